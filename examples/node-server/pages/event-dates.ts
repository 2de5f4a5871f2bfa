/**
 * An event's dates as a reader wants them: in the event's own time zone (the wall-clock
 * `start_date`/`end_date` the API gives, not the server's or the visitor's zone), with the
 * zone named and a machine-readable `<time datetime>` carrying the UTC offset.
 */
import { html, type SafeHtml } from './html.js'

export interface EventDates {
  start_date: string
  end_date: string
  utc_start_date: string
  utc_end_date: string
  all_day: boolean
  timezone: string
  timezone_abbr?: string
}

const parts = (wall: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(wall)
  if (!m) return null
  return { y: +m[1]!, mo: +m[2]!, d: +m[3]!, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0) }
}

/** Wall time as a Date whose UTC fields are the wall fields: formatted with timeZone UTC. */
const asUtc = (wall: string) => {
  const p = parts(wall)
  return p ? new Date(Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s)) : null
}

const DAY = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
const SHORT_DAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' })

/** `+01:00` from the wall time and the UTC time of the same instant. */
export function offsetOf(wall: string, utc: string): string {
  const a = asUtc(wall)
  const b = asUtc(utc)
  if (!a || !b) return 'Z'
  const minutes = Math.round((a.getTime() - b.getTime()) / 60_000)
  if (minutes === 0) return 'Z'
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

/** ISO 8601 with the event's offset, for `<time datetime>` and calendar links. */
export function isoInZone(wall: string, utc: string): string {
  return `${wall.replace(' ', 'T')}${offsetOf(wall, utc)}`
}

const sameDay = (a: string, b: string) => a.slice(0, 10) === b.slice(0, 10)

/** "Friday 4 December 2026, 19:00 – 22:00" and its variants, as marked-up text. */
export function whenHtml(e: EventDates): SafeHtml {
  const start = asUtc(e.start_date)
  const end = asUtc(e.end_date)
  if (!start || !end) return html`${e.start_date}`
  const startAttr = e.all_day ? e.start_date.slice(0, 10) : isoInZone(e.start_date, e.utc_start_date)
  const endAttr = e.all_day ? e.end_date.slice(0, 10) : isoInZone(e.end_date, e.utc_end_date)
  if (e.all_day) {
    if (sameDay(e.start_date, e.end_date)) return html`<time datetime="${startAttr}">${DAY.format(start)}</time> (all day)`
    return html`<time datetime="${startAttr}">${DAY.format(start)}</time> – <time datetime="${endAttr}">${DAY.format(end)}</time> (all day)`
  }
  if (sameDay(e.start_date, e.end_date)) {
    return html`<time datetime="${startAttr}">${DAY.format(start)}, ${TIME.format(start)}</time> –
      <time datetime="${endAttr}">${TIME.format(end)}</time>`
  }
  return html`<time datetime="${startAttr}">${SHORT_DAY.format(start)}, ${TIME.format(start)}</time> –
    <time datetime="${endAttr}">${SHORT_DAY.format(end)}, ${TIME.format(end)}</time>`
}

/** "Europe/Berlin (CET)": which clock the times above are read on. */
export function zoneLabel(e: EventDates): string {
  return e.timezone_abbr && e.timezone_abbr !== e.timezone ? `${e.timezone} (${e.timezone_abbr})` : e.timezone
}

/** "Fri 4 Dec 2026, 19:00" for lists of events. */
export function shortWhen(e: EventDates): string {
  const start = asUtc(e.start_date)
  if (!start) return e.start_date
  return e.all_day ? SHORT_DAY.format(start) : `${SHORT_DAY.format(start)}, ${TIME.format(start)}`
}

/** `20261204T180000Z` (timed, UTC) or `20261204` (all-day) for Google Calendar's `dates`. */
export function compactDate(wallOrUtc: string, dateOnly: boolean): string {
  const digits = wallOrUtc.replace(/[-: T]/g, '')
  return dateOnly ? digits.slice(0, 8) : `${digits.slice(0, 8)}T${digits.slice(8, 14).padEnd(6, '0')}Z`
}

/** The day after a `YYYY-MM-DD...` wall date (all-day ends are exclusive in Google's links). */
export function nextDay(wall: string): string {
  const d = asUtc(wall.slice(0, 10))!
  d.setUTCDate(d.getUTCDate() + 1)
  return d.toISOString().slice(0, 10)
}
