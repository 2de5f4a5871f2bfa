/**
 * `event_custom_values`: one row per event and custom field value (event_id, field_key,
 * field_value), derived from `posts.custom_fields` (storage/custom-values.ts) and written in the
 * same transaction as the event, like event_filters. Its index (field_key, field_value,
 * event_id) answers the `custom_fields[key]=value` list filter both ways the planner needs:
 * - a rare value drives the list: its event ids are one range of the index, each post then read
 *   by primary key, so a page costs the matches, never the date window;
 * - a common value is probed per row while the list walks its own order (the same index, all
 *   three columns bound), so a page stops after `limit` matches.
 * `customFieldRefs` picks per key by counting a bounded stretch of the index first. A common
 * value's list is mostly served by event_filters instead (its rows and day counters carry the
 * values too, migration 24; event-filters.ts): this table then probes a second key.
 */
import type { EventRecord, CustomFieldFilter } from '../types.js'
import { customValueRows } from '../custom-values.js'
import type { Db } from './db.js'
import type { SqlParam } from './driver.js'
import type { MigrationStatement } from './dialect.js'

const table = (tail: string) => `CREATE TABLE IF NOT EXISTS event_custom_values (
  event_id {int} NOT NULL,
  field_key {text} NOT NULL,
  field_value {text} NOT NULL,
  PRIMARY KEY (event_id, field_key, field_value)
)${tail}`

/** Migration 21. No foreign key, as event_filters on PostgreSQL: the rows go with the event's own writes. */
export const CUSTOM_VALUES_DDL: MigrationStatement[] = [
  { sqlite: table(' WITHOUT ROWID'), postgres: table('') },
  `CREATE INDEX IF NOT EXISTS event_custom_values_key ON event_custom_values (field_key, field_value, event_id)`,
]

type Valued = Pick<EventRecord, 'id' | 'customFields'>

/**
 * Keeps an event's rows in step with its values when it moves from `before` (null: new) to
 * `after` (null: deleted): only the rows that differ are written.
 */
export async function syncCustomValues(db: Db, before: Valued | null, after: Valued | null): Promise<void> {
  const id = (after ?? before)!.id
  const old = new Set(customValueRows(before?.customFields).map((r) => JSON.stringify(r)))
  const now = new Set(customValueRows(after?.customFields).map((r) => JSON.stringify(r)))
  for (const r of old) {
    if (now.has(r)) continue
    const [key, value] = JSON.parse(r) as [string, string]
    await db.run('DELETE FROM event_custom_values WHERE event_id = ? AND field_key = ? AND field_value = ?', [id, key, value])
  }
  const added = [...now].filter((r) => !old.has(r)).map((r) => [id, ...(JSON.parse(r) as [string, string])] as SqlParam[])
  await insertRows(db, added)
}

/** The rows of many new events (a series written in bulk) in a few statements. */
export async function insertCustomValues(db: Db, events: readonly Valued[]): Promise<void> {
  const rows: SqlParam[][] = []
  for (const e of events) for (const [key, value] of customValueRows(e.customFields)) rows.push([e.id, key, value])
  await insertRows(db, rows)
}

function insertRows(db: Db, rows: SqlParam[][]): Promise<unknown> {
  if (!rows.length) return Promise.resolve()
  return db.insertMany('INSERT INTO event_custom_values (event_id, field_key, field_value)', ['int', 'text', 'text'], rows)
}

/**
 * Up to this many matching rows, a key's filter drives the list (its event ids read from the
 * index, then each post by primary key, then sorted); past it the value is common enough that
 * walking the list's order and probing each row stops sooner. The count that decides reads at
 * most this many index entries.
 */
export const DRIVING_MATCHES = 2000

/** A filter as listEvents takes it: SQL selecting `x.event_id` (alias x) with its parameters. */
export interface CustomRef {
  sql: string
  params: SqlParam[]
  /** The filter it selects (event_filters' plan takes these, in the same order). */
  filter: CustomFieldFilter
}

/**
 * The custom field filters of a list as link-like filters for listEvents: the rarest key first
 * with `driving` set when it has few enough rows to drive the list, every key's `ref`
 * (`FROM event_custom_values x WHERE ...`). null: some key matches no event at all (the list is
 * empty, nothing else need be read).
 */
export async function customFieldRefs(
  db: Db,
  filters: readonly CustomFieldFilter[],
): Promise<{ refs: CustomRef[]; driving: boolean } | null> {
  const d = db.dialect
  const counted: Array<{ ref: CustomRef; n: number }> = []
  for (const f of filters) {
    const values = [...new Set(f.values)]
    const ref: CustomRef = {
      sql: `FROM event_custom_values x WHERE x.field_key = ? AND ${d.inList('x.field_value', 'text')}`,
      params: [f.key, d.list(values)],
      filter: { key: f.key, values },
    }
    const rows = await db.query<{ n: unknown }>(
      `SELECT count(*) AS n FROM (SELECT 1 ${ref.sql} LIMIT ${DRIVING_MATCHES + 1}) c`,
      ref.params,
    )
    const n = Number(rows[0]?.n ?? 0)
    if (n === 0) return null
    counted.push({ ref, n })
  }
  counted.sort((a, b) => a.n - b.n)
  return { refs: counted.map((c) => c.ref), driving: counted.length > 0 && counted[0]!.n <= DRIVING_MATCHES }
}
