/**
 * Records a backend holds (or caches) must never change under it. Two ways: hand out deep copies
 * (`clonePost`, what a writer starts from), or freeze what is held and hand it out as it is
 * (`freezePost`, what reads return: copying every record of a page cost a tenth of its CPU).
 */
import type { EventRecord, PostRecord } from './types.js'

export function clonePost<T extends PostRecord>(p: T): T {
  const c = { ...p }
  if (c.image) c.image = { ...c.image }
  // Absent on records stored before custom fields (a custom storage's): none.
  c.customFields = { ...(c.customFields ?? {}) }
  if (c.type === 'event') {
    // tsc does not narrow a generic record by its `type`; the rule assumes it does.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
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

const deepFreeze = (value: unknown): void => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const inner of Object.values(value)) deepFreeze(inner)
}

/** The record, frozen to the last array: a caller that assigns to it gets a TypeError. */
export function freezePost<T extends PostRecord>(p: T): T {
  deepFreeze(p)
  return p
}
