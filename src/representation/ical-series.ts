/**
 * Recurring series in iCalendar feeds: a series is one VEVENT with its RRULE, RDATE and EXDATE
 * in the series' own zone (plus that zone's VTIMEZONE), so calendar apps expand it exactly as
 * the JSON list shows it; occurrences edited on their own are VEVENTs with the series' UID and
 * a RECURRENCE-ID. Occurrences that still follow the series are not written one by one.
 */
import type { Context } from '../context.js'
import { expandRule, formatRule, parseRule } from '../recurrence/index.js'
import type { EventRecord } from '../storage/types.js'
import { addDays, epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from '../time/format.js'
import { vevent, type IcalText } from './ical.js'
import type { Relations } from './embedded.js'
import { writeVtimezone } from './vtimezone.js'
import { seriesVersion } from './series-version.js'
import { isRegularWallClock, localToUtc } from '../time/zone.js'

const stamp = (wall: string) => wall.replace(/[-:]/g, '').replace(' ', 'T')
const day = (wall: string) => wall.slice(0, 10).replace(/-/g, '')
const seconds = (wall: string) => partsToEpochSeconds(requireWallClock(wall))

/** A date property of a series member: in the series' zone (DATE for all-day events). */
function dateProp(name: string, walls: string[], e: EventRecord): string {
  if (e.allDay) return `${name};VALUE=DATE:${walls.map(day).join(',')}`
  // A TZID must name a VTIMEZONE of the calendar; UTC is written in its own form instead.
  if (e.timezone === 'UTC') return `${name}:${walls.map((w) => `${stamp(w)}Z`).join(',')}`
  return `${name};TZID=${e.timezone}:${walls.map(stamp).join(',')}`
}

function dates(e: EventRecord, start: string, length: number): string[] {
  if (e.allDay)
    return [
      dateProp('DTSTART', [start], e),
      `DTEND;VALUE=DATE:${day(addDays(formatWallClock(epochSecondsToParts(seconds(start) + length)), 1))}`,
    ]
  return [dateProp('DTSTART', [start], e), dateProp('DTEND', [formatWallClock(epochSecondsToParts(seconds(start) + length))], e)]
}

/** `rrule` ending with the occurrence at `last` (UNTIL in UTC for timed series, as RFC 5545 asks beside a TZID). */
function until(rrule: string, last: string, head: EventRecord): string {
  const rule = parseRule(rrule)
  delete rule.count
  if (head.allDay) rule.until = { date: last.slice(0, 10), utc: false }
  else {
    const utc = localToUtc(last, head.timezone)
    rule.until = { date: utc.slice(0, 10), time: utc.slice(11), utc: true }
  }
  return formatRule(rule)
}

/** What the feed has seen of one series: the listed occurrences' original starts and a template. */
interface Seen {
  shown: Set<string>
  /** A listed occurrence that follows the series (else a listed detached one): the master's fields. */
  template: { e: EventRecord; rel: Relations }
}

export class SeriesFeed {
  private readonly seen = new Map<number, Seen>()
  private readonly heads = new Map<number, EventRecord>()
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
    if (e.id === e.seriesId) this.heads.set(e.id, e)
    const s = this.seen.get(e.seriesId)
    if (!s) this.seen.set(e.seriesId, { shown: new Set([e.series.original]), template: { e, rel } })
    else {
      s.shown.add(e.series.original)
      if (s.template.e.series!.detached && !e.series.detached) s.template = { e, rel }
    }
    if (!e.series.detached) return
    const length = seconds(e.endDate) - seconds(e.startDate)
    this.zone(e, e.startDate, e.startDate)
    vevent(this.ctx, this.out, e, rel, this.host, {
      uid: `${e.seriesId}@${this.host}`,
      dates: dates(e, e.startDate, length),
      recurrence: [dateProp('RECURRENCE-ID', [e.series.original], e)],
    })
  }

  /**
   * The series VEVENTs and the zones they use. A master expands to exactly the occurrences this
   * feed listed: it ends (UNTIL) with the last one listed, and every other one before that (not
   * visible to the caller, before the window or page) is an EXDATE. Its fields come from a listed occurrence, never from an unlisted first
   * occurrence, which only lends the rule.
   */
  async finish(): Promise<void> {
    const heads = this.heads
    const missing = [...this.seen.keys()].filter((id) => !heads.has(id))
    if (missing.length) {
      for (const p of await this.ctx.storage.getPosts(missing)) if (p.type === 'event') heads.set(p.id, p)
    }
    for (const [id, { shown, template }] of this.seen) {
      const head = heads.get(id)
      const rule = head?.series?.rule
      if (!head || !rule) continue
      const original = head.series!.original
      const length = seconds(template.e.endDate) - seconds(template.e.startDate)
      const master: EventRecord = { ...template.e, allDay: head.allDay, timezone: head.timezone, ...seriesVersion(head, template.e) }
      const fromRule = new Set([
        original,
        ...expandRule(parseRule(rule.rrule), original, { timezone: head.timezone, horizon: rule.through ?? original, max: 5000 }),
      ])
      const rdates = new Set(rule.rdate)
      const exdate = new Set(rule.exdate)
      const rdate: string[] = []
      const utc: string[] = []
      // The master ends with the last occurrence listed (a window, a page or the feed's cap cut
      // the rest): later ones are not excluded one by one but never produced, so a reader shows
      // neither occurrences the list did not, nor a run of excluded ones followed by more.
      const last = [...shown].sort().pop()!
      const cut = rule.through !== undefined || [...fromRule].some((w) => w > last)
      for (const w of new Set([...fromRule, ...rdates])) {
        if (rule.exdate.includes(w) || w > last) continue
        if (!shown.has(w)) {
          if (fromRule.has(w)) exdate.add(w)
          continue
        }
        // Local times in a DST gap or overlap: readers resolve them differently (ical.js against
        // RFC 5545 §3.3.5), so such an occurrence is excluded in local time and added back as the
        // exact UTC instant the JSON shows, which every reader reads alike.
        if (!head.allDay && !isRegularWallClock(w, head.timezone)) {
          utc.push(w)
          if (!rdates.has(w)) exdate.add(w)
        } else if (rdates.has(w)) rdate.push(w)
      }
      const lines = [`RRULE:${cut ? until(rule.rrule, last, head) : rule.rrule}`]
      if (rdate.length) lines.push(dateProp('RDATE', rdate.sort(), head))
      if (utc.length)
        lines.push(
          `RDATE:${utc
            .sort()
            .map((w) => `${stamp(localToUtc(w, head.timezone))}Z`)
            .join(',')}`,
        )
      if (exdate.size) lines.push(dateProp('EXDATE', [...exdate].sort(), head))
      vevent(this.ctx, this.out, master, template.rel, this.host, {
        uid: `${head.id}@${this.host}`,
        dates: dates(head, original, length),
        recurrence: lines,
      })
      this.zone(head, original, last)
    }
    for (const [tz, span] of this.zones) if (tz !== 'UTC') writeVtimezone(this.out, tz, span.from, span.to)
  }
}
