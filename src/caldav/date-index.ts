/**
 * A calendar's resources by date, for time-range queries (RFC 4791 §9.9): the UTC spans of its
 * events sorted by start, so a query looks at the events starting in its range (and up to
 * SHORT_DAYS before it) instead of every span of the calendar. Spans longer than that are few
 * and checked one by one. Built once per collection as held (a change makes a new collection).
 */
import type { Resource } from './resource.js'

/** Spans at most this long are found by their start; longer ones are checked one by one. */
const SHORT_DAYS = 31

interface Span {
  start: string
  end: string
  resource: Resource
}

/** `YYYY-MM-DD HH:MM:SS` moved back by days (a UTC wall clock). */
function daysBefore(wall: string, days: number): string {
  const t = Date.parse(`${wall.replace(' ', 'T')}Z`)
  if (Number.isNaN(t)) return ''
  return new Date(t - days * 86_400_000).toISOString().slice(0, 19).replace('T', ' ')
}

/** The first index of a sorted span list whose start is at least `wall`. */
function firstFrom(spans: readonly Span[], wall: string): number {
  let lo = 0
  let hi = spans.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (spans[mid]!.start < wall) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class DateIndex {
  private readonly short: Span[] = []
  private readonly long: Span[] = []
  private readonly position = new Map<Resource, number>()

  constructor(resources: readonly Resource[]) {
    resources.forEach((resource, i) => {
      this.position.set(resource, i)
      for (const [start, end] of resource.spans) {
        const span = { start, end, resource }
        if (daysBefore(end, SHORT_DAYS) <= start) this.short.push(span)
        else this.long.push(span)
      }
    })
    this.short.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
  }

  /** The resources with an event overlapping [start, end) (either may be open), in calendar order. */
  overlapping(start: string | null, end: string | null): Resource[] {
    const found = new Set<Resource>()
    const overlaps = (s: Span) => (end === null || s.start < end) && (start === null || s.end > start)
    // A short span overlapping the range starts at most SHORT_DAYS before it.
    const from = start === null ? 0 : firstFrom(this.short, daysBefore(start, SHORT_DAYS))
    for (let i = from; i < this.short.length; i++) {
      const s = this.short[i]!
      if (end !== null && s.start >= end) break
      if (overlaps(s)) found.add(s.resource)
    }
    for (const s of this.long) if (overlaps(s)) found.add(s.resource)
    return [...found].sort((a, b) => this.position.get(a)! - this.position.get(b)!)
  }
}
