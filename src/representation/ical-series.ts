/**
 * Recurring series in iCalendar feeds: a series is one VEVENT with its RRULE, RDATE and EXDATE
 * in the series' own zone (plus that zone's VTIMEZONE), so calendar apps expand it exactly as
 * the JSON list shows it; occurrences edited on their own are VEVENTs with the series' UID and
 * a RECURRENCE-ID. Occurrences that still follow the series are not written one by one.
 */
import type { Context } from '../resources/context.js'
import { expandRule, parseRule } from '../recurrence/index.js'
import type { EventRecord } from '../storage/types.js'
import { addDays, epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from '../time/format.js'
import { vevent, type IcalText } from './ical.js'
import type { Relations } from './relations.js'
import { writeVtimezone } from './vtimezone.js'
import { localToUtc, offsetMinutes, utcToLocal } from '../time/zone.js'

const stamp = (wall: string) => wall.replace(/[-:]/g, '').replace(' ', 'T')
const day = (wall: string) => wall.slice(0, 10).replace(/-/g, '')
const seconds = (wall: string) => partsToEpochSeconds(requireWallClock(wall))

/** A date property of a series member: in the series' zone (DATE for all-day events). */
function dateProp(name: string, walls: string[], e: EventRecord): string {
  if (e.allDay) return `${name};VALUE=DATE:${walls.map(day).join(',')}`
  return `${name};TZID=${e.timezone}:${walls.map(stamp).join(',')}`
}

function dates(e: EventRecord, start: string, length: number): string[] {
  if (e.allDay) return [dateProp('DTSTART', [start], e), `DTEND;VALUE=DATE:${day(addDays(formatWallClock(epochSecondsToParts(seconds(start) + length)), 1))}`]
  return [dateProp('DTSTART', [start], e), dateProp('DTEND', [formatWallClock(epochSecondsToParts(seconds(start) + length))], e)]
}

/** False when `wall` does not exist in `tz` (a DST gap) or exists twice (an overlap). */
function regular(wall: string, tz: string): boolean {
  const utc = localToUtc(wall, tz)
  if (utcToLocal(utc, tz) !== wall) return false
  const at = seconds(utc)
  for (const shift of [-3 * 3600, 3 * 3600]) {
    // Another instant with the same wall clock: the offset of the other side of an overlap.
    const offset = offsetMinutes(tz, new Date((at + shift) * 1000)) * 60
    const other = seconds(wall) - offset
    if (other !== at && utcToLocal(formatWallClock(epochSecondsToParts(other)), tz) === wall) return false
  }
  return true
}

export class SeriesFeed {
  private readonly needed = new Set<number>()
  private readonly heads = new Map<number, { head: EventRecord; rel: Relations }>()
  private readonly zones = new Map<string, { from: string; to: string }>()

  constructor(
    private readonly ctx: Context,
    private readonly out: IcalText,
    private readonly host: string,
  ) {}

  private zone(e: EventRecord, from: string, to: string): void {
    if (e.allDay) return
    const z = this.zones.get(e.timezone)
    this.zones.set(e.timezone, { from: z && z.from < from ? z.from : from, to: z && z.to > to ? z.to : to })
  }

  /** Writes a lone event now; a series member now (detached) or with its series at the end. */
  write(e: EventRecord, rel: Relations): void {
    if (!e.seriesId || !e.series) return vevent(this.ctx, this.out, e, rel, this.host)
    this.needed.add(e.seriesId)
    if (e.id === e.seriesId) this.heads.set(e.id, { head: e, rel })
    if (!e.series.detached) return
    const length = seconds(e.endDate) - seconds(e.startDate)
    this.zone(e, e.startDate, e.startDate)
    vevent(this.ctx, this.out, e, rel, this.host, {
      uid: `${e.seriesId}@${this.host}`,
      dates: dates(e, e.startDate, length),
      recurrence: [dateProp('RECURRENCE-ID', [e.series.original], e)],
    })
  }

  /** The series VEVENTs and the zones they use; `relations` loads what a head not yet seen shows. */
  async finish(relations: (events: EventRecord[]) => Promise<Relations>): Promise<void> {
    const missing = [...this.needed].filter((id) => !this.heads.has(id))
    if (missing.length) {
      const loaded = (await this.ctx.storage.getPosts(missing)).filter((p): p is EventRecord => p.type === 'event')
      const rel = await relations(loaded)
      for (const head of loaded) this.heads.set(head.id, { head, rel })
    }
    for (const id of this.needed) {
      const entry = this.heads.get(id)
      const rule = entry?.head.series?.rule
      if (!entry || !rule) continue
      const { rel } = entry
      // A first occurrence trashed on its own is an exception (EXDATE), not the series called off.
      const head: EventRecord = entry.head.status === 'trash' ? { ...entry.head, status: 'publish' } : entry.head
      const original = head.series!.original
      const length = seconds(head.endDate) - seconds(head.startDate)
      const lines = [`RRULE:${rule.rrule}`]
      const last = expandRule(parseRule(rule.rrule), original, { timezone: head.timezone, horizon: rule.through ?? original, max: 5000 })
      // Local times in a DST gap or overlap: readers resolve them differently (ical.js against
      // RFC 5545 §3.3.5), so such an occurrence is excluded in local time and added back as the
      // exact UTC instant the JSON shows, which every reader reads alike.
      const irregular = head.allDay ? [] : [...last, ...rule.rdate].filter((w) => !rule.exdate.includes(w) && !regular(w, head.timezone))
      const rdate = rule.rdate.filter((w) => !irregular.includes(w))
      const exdate = [...rule.exdate, ...irregular.filter((w) => !rule.rdate.includes(w))].sort()
      if (rdate.length) lines.push(dateProp('RDATE', rdate, head))
      if (irregular.length) lines.push(`RDATE:${irregular.map((w) => `${stamp(localToUtc(w, head.timezone))}Z`).join(',')}`)
      if (exdate.length) lines.push(dateProp('EXDATE', exdate, head))
      vevent(this.ctx, this.out, head, rel, this.host, { uid: `${head.id}@${this.host}`, dates: dates(head, original, length), recurrence: lines })
      const latest = [last[last.length - 1] ?? original, ...rule.rdate].sort().pop()!
      this.zone(head, original, latest)
    }
    for (const [tz, span] of this.zones) if (tz !== 'UTC') writeVtimezone(this.out, tz, span.from, span.to)
  }
}
