/** Deep copies of records, so callers can never mutate what a backend holds (or caches). */
import type { EventRecord, PostRecord } from './types.js'

export function clonePost<T extends PostRecord>(p: T): T {
  const c = { ...p }
  if (c.image) c.image = { ...c.image }
  if (c.type === 'event') {
    const e = c as EventRecord
    e.cost = [...e.cost]
    e.venueIds = [...e.venueIds]
    e.organizerIds = [...e.organizerIds]
    e.categoryIds = [...e.categoryIds]
    e.tagIds = [...e.tagIds]
    if (e.series) e.series = JSON.parse(JSON.stringify(e.series)) as typeof e.series
  }
  return c
}
