/**
 * What the importer compares: a source record's fingerprint (has the source changed since the
 * last import?) and a record's representation projected onto the fields an import writes (has
 * anyone changed them here since?). Projections use the representation on both sides (the write's
 * answer, a later read), so the body's spelling (names or ids, date forms) never matters.
 */
import { createHash } from 'node:crypto'
import type { ImportKind } from '../storage/import-links.js'
import { at } from '../http/json-at.js'

/** JSON with object keys sorted: the same value always hashes the same. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * @example
 * fingerprint({ title: 'Gig', start_date: '2027-01-01 20:00:00' }) // 'f3a1…' (40 hex digits)
 */
export function fingerprint(value: unknown): string {
  return createHash('sha1').update(stableJson(value)).digest('hex')
}

const ids = (list: unknown): number[] =>
  (Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : [])
    .map((x) => Number((x as { id?: unknown }).id))
    .filter(Number.isFinite)
    .sort((a, b) => a - b)

export { at }

/** One field of an event, venue, organizer or term read, as the write named `field` left it. */
function projectField(kind: ImportKind, rep: unknown, field: string): unknown {
  switch (field) {
    case 'categories':
    case 'tags':
    case 'venue':
    case 'organizer':
      return kind === 'event' ? ids(at(rep, field)) : at(rep, field)
    case 'image':
      return at(rep, 'image', 'url') ?? null
    case 'recurrence':
      return at(rep, 'recurrence')
        ? {
            rrule: at(rep, 'recurrence', 'rrule'),
            rdate: at(rep, 'recurrence', 'rdate') ?? [],
            exdate: at(rep, 'recurrence', 'exdate') ?? [],
          }
        : null
    case 'cost':
      return at(rep, 'cost_details', 'values') ?? at(rep, 'cost') ?? null
    case 'geo_lat':
    case 'geo_lng':
      return at(rep, field) ?? null
    default:
      return at(rep, field) ?? null
  }
}

/**
 * The fields of `body` as the representation `rep` shows them.
 *
 * @example
 * project('event', { title: 'Gig', venue: { id: 4 } }, ['title', 'venue']) // { title: 'Gig', venue: [4] }
 */
export function project(kind: ImportKind, rep: unknown, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) out[f] = projectField(kind, rep, f)
  return out
}

/** The fields whose current value differs from what the last import left: changed here since. */
export function locallyChanged(current: Record<string, unknown>, imported: Record<string, unknown>): Set<string> {
  const changed = new Set<string>()
  for (const [f, v] of Object.entries(imported)) if (f in current && stableJson(current[f]) !== stableJson(v)) changed.add(f)
  return changed
}
