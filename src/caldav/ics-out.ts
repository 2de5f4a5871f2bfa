/**
 * Calendar object resources cut out of the REST iCalendar feed: the feed writes every event (a
 * series as one VEVENT with its rule, its edited occurrences with RECURRENCE-ID, and the zones
 * they use), and a resource is its own VEVENTs with the VTIMEZONEs they name, in a VCALENDAR
 * without METHOD (RFC 4791 §4.1 forbids it in a calendar object resource) or the feed's
 * subscription properties. The UID becomes the one the calendar app chose, if it chose one, and a
 * series' RRULE the rule as stored (the feed ends an open series at its last stored occurrence).
 */
import type { Resource } from './resource.js'
import { foldedExtras } from './extras.js'

interface Component {
  kind: string
  /** Content lines as written (still folded), CRLF-less. */
  lines: string[]
}

export interface FeedParts {
  /** The events whose kept properties a resource's text needs: its own, and its edited occurrences'. */
  idsOf(r: Resource): number[]
  /** The resource's text; `extras`: kept lines (unfolded) by event id. */
  resource(r: Resource, extras: ReadonlyMap<number, string[]>): string
  /** Only the resource's edited occurrences (RECURRENCE-ID VEVENTs), as content lines. */
  overrides(r: Resource, extras: ReadonlyMap<number, string[]>): string[]
}

/** The event a VEVENT of the feed stands for: its X-CALENDAR-GLOBAL-ID ends with `?id={id}`. */
const eventIdOf = (c: Component) => Number(/\?id=(\d+)$/.exec(propValue(logical(c), 'X-CALENDAR-GLOBAL-ID') ?? '')?.[1])

const unfoldedValue = (lines: string[], i: number) => {
  let s = lines[i]!
  for (let j = i + 1; j < lines.length && /^[ \t]/.test(lines[j]!); j++) s += lines[j]!.slice(1)
  return s
}

/** Logical lines: a line and its folded continuations joined. */
function logical(component: Component): string[] {
  const out: string[] = []
  component.lines.forEach((l, i) => {
    if (!/^[ \t]/.test(l)) out.push(unfoldedValue(component.lines, i))
  })
  return out
}

function components(feed: string): { head: string[]; parts: Component[] } {
  const head: string[] = []
  const parts: Component[] = []
  let current: Component | null = null
  let depth = 0
  for (const line of feed.split('\r\n')) {
    if (line === '') continue
    if (current) {
      current.lines.push(line)
      if (line.startsWith('BEGIN:')) depth++
      else if (line.startsWith('END:') && --depth === 0) current = null
    } else if (line.startsWith('BEGIN:') && line !== 'BEGIN:VCALENDAR') {
      current = { kind: line.slice(6), lines: [line] }
      parts.push(current)
      depth = 1
    } else if (/^(BEGIN:VCALENDAR|VERSION:|PRODID:|CALSCALE:)/.test(line)) head.push(line)
  }
  return { head, parts }
}

const propValue = (lines: string[], name: string) => {
  const line = lines.find((l) => l.toUpperCase().startsWith(`${name}:`) || l.toUpperCase().startsWith(`${name};`))
  return line === undefined ? null : line.slice(line.indexOf(':') + 1)
}

/** The feed's text split by component, ready to give each resource its part. */
export function splitFeed(feed: string): FeedParts {
  const { head, parts } = components(feed)
  const zones = new Map<string, Component>()
  const events = new Map<number, Component[]>()
  for (const c of parts) {
    const lines = logical(c)
    if (c.kind === 'VTIMEZONE') zones.set(propValue(lines, 'TZID') ?? '', c)
    if (c.kind !== 'VEVENT') continue
    const key = Number(/^(\d+)@/.exec(propValue(lines, 'UID') ?? '')?.[1])
    if (!Number.isSafeInteger(key)) continue
    events.set(key, [...(events.get(key) ?? []), c])
  }
  const isMaster = (c: Component) => !c.lines.some((l) => l.startsWith('RECURRENCE-ID'))
  // The master's kept lines are its series' (or the lone event's); an edited occurrence's its own.
  const ownerOf = (c: Component, r: Resource) => (isMaster(c) ? r.key : eventIdOf(c))
  const veventLines = (c: Component, r: Resource, extras: ReadonlyMap<number, string[]>) => {
    const lines = rewrite(c, r)
    // Kept lines go last, before END:VEVENT (the sub-components, VALARM, after the properties).
    lines.splice(lines.length - 1, 0, ...foldedExtras(extras.get(ownerOf(c, r)) ?? []))
    return lines
  }
  return {
    overrides: (r, extras) => (events.get(r.key) ?? []).filter((c) => !isMaster(c)).flatMap((c) => veventLines(c, r, extras)),
    idsOf: (r) => (events.get(r.key) ?? []).map((c) => ownerOf(c, r)).filter((id) => Number.isSafeInteger(id)),
    resource(r, extras) {
      const own = events.get(r.key) ?? []
      const used = new Set<string>()
      const body: string[] = []
      for (const c of own) {
        for (const line of c.lines) {
          const tzid = /;TZID=([^;:]+)/.exec(line)
          if (tzid) used.add(tzid[1]!)
        }
        body.push(...veventLines(c, r, extras))
      }
      const lines = [...head, ...[...used].flatMap((z) => zones.get(z)?.lines ?? []), ...body, 'END:VCALENDAR']
      return lines.join('\r\n') + '\r\n'
    },
  }
}

/** A VEVENT with the resource's UID and, on the series' master, its stored rule. */
function rewrite(c: Component, r: Resource): string[] {
  const out: string[] = []
  const master = !c.lines.some((l) => l.startsWith('RECURRENCE-ID'))
  let skipping = false
  for (const line of c.lines) {
    if (/^[ \t]/.test(line)) {
      if (!skipping) out.push(line)
      continue
    }
    skipping = false
    if (line.startsWith('UID:') && !r.ownUid) {
      out.push(...fold(`UID:${r.uid}`))
      skipping = true
    } else if (line.startsWith('RRULE:') && master && r.rrule) {
      out.push(...fold(`RRULE:${r.rrule}`))
      skipping = true
    } else out.push(line)
  }
  return out
}

/** Folds at 75 characters (UIDs and rules are ASCII). */
function fold(line: string): string[] {
  const out = [line.slice(0, 75)]
  for (let i = 75; i < line.length; i += 74) out.push(` ${line.slice(i, i + 74)}`)
  return out
}
