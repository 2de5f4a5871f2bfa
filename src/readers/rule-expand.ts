/**
 * One RRULE expander: when the router refuses a series an import sends (more occurrences than a
 * series may have, an EXDATE that is not an occurrence...), the series comes in as single
 * events at the dates the router's own expander (src/recurrence/) gives, never at dates another
 * library computes, so the importer and the router never disagree about which dates exist. A
 * rule with no occurrence at all ("every February 30th") gives none, and its event is refused.
 */
import { expandRule, parseRule } from '../recurrence/index.js'
import { addMonths, toUtcString } from '../time/format.js'
import { utcToLocal } from '../time/zone.js'
import type { SourceRecord } from './types.js'

export interface RuleExpandOptions {
  /** Open-ended rules reach this many months past `now` (the router's horizon; default 24). */
  horizonMonths?: number
  /** At most this many single events (default 1,000). */
  maxOccurrences?: number
  now?: Date
}

const LAST = '9999-12-31 23:59:59'
const ms = (wall: string) => Date.parse(`${wall.replace(' ', 'T')}Z`)
const wallOf = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', ' ')

/** A date of RDATE/EXDATE as written by a source: a day (`2027-01-05`) or a wall clock. */
const atTime = (d: string, time: string) => (d.length === 10 ? `${d} ${time}` : d)

/**
 * The single events a series record becomes, at the router's dates. Records that carry no rule
 * of ours give none.
 *
 * @example
 * const singles = expandWithRouterRule(record, { now: new Date() })
 * if (!singles.length) console.log('the rule has no occurrence')
 */
export function expandWithRouterRule(master: SourceRecord, o: RuleExpandOptions = {}): SourceRecord[] {
  const body = master.body ?? {}
  const rec = body.recurrence as { rrule?: string; rdate?: string[]; exdate?: string[] } | undefined
  if (!rec?.rrule) return []
  const start = String(body.start_date)
  const zone = typeof body.timezone === 'string' ? body.timezone : 'UTC'
  const now = utcToLocal(toUtcString(o.now ?? new Date()), zone)
  const horizon = addMonths(now, o.horizonMonths ?? 24)
  const max = o.maxOccurrences ?? 1000
  const time = start.slice(11)
  const all = new Set(expandRule(parseRule(rec.rrule), start, { timezone: zone, horizon: horizon > start ? horizon : start, max }))
  for (const r of rec.rdate ?? []) if (atTime(r, time) >= start) all.add(atTime(r, time))
  for (const x of rec.exdate ?? []) for (const s of [...all]) if (x.length === 10 ? s.startsWith(x) : s === x) all.delete(s)
  const lengthMs = ms(String(body.end_date)) - ms(start)
  const { recurrence: _, ...single } = body
  return [...all]
    .sort()
    .slice(0, max)
    .filter((wall) => wall <= LAST)
    .map((wall) => ({
      kind: 'event' as const,
      sourceId: `${master.sourceId}#${wall}`,
      ref: `${master.ref} (occurrence ${wall})`,
      body: { ...single, start_date: wall, end_date: wallOf(ms(wall) + lengthMs) },
      ...(master.refs ? { refs: master.refs } : {}),
    }))
}
