/**
 * The events that embed given venues, organizers or terms, as ids: a sync's changes include the
 * events showing a record that changed (resources/sync.ts). Read from the link tables' indexes
 * on the linked id, each event's language by primary key; no record is loaded.
 */
import type { EventsShown } from '../types.js'
import type { Db } from './db.js'
import type { SqlParam } from './driver.js'
import { toInt } from './records.js'

const SOURCES = [
  { key: 'venueIds', table: 'event_links', column: 'linked_id', kind: 'venue' },
  { key: 'organizerIds', table: 'event_links', column: 'linked_id', kind: 'organizer' },
  { key: 'categoryIds', table: 'event_terms', column: 'term_id', kind: 'category' },
  { key: 'tagIds', table: 'event_terms', column: 'term_id', kind: 'tag' },
] as const

export async function eventsShowing(db: Db, language: string, shown: EventsShown): Promise<number[]> {
  const d = db.dialect
  const parts: string[] = []
  const params: SqlParam[] = []
  for (const s of SOURCES) {
    const ids = shown[s.key]
    if (!ids?.length) continue
    parts.push(`SELECT x.event_id FROM ${s.table} x WHERE x.kind = '${s.kind}' AND ${d.inList(`x.${s.column}`, 'int')}`)
    params.push(d.list(ids))
  }
  if (!parts.length) return []
  const rows = await db.query<{ id: unknown }>(`SELECT p.id FROM posts p WHERE p.id IN (${parts.join(' UNION ')}) AND p.language = ?`, [
    ...params,
    language,
  ])
  return rows.map((r) => toInt(r.id))
}
