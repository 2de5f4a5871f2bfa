/**
 * The iCalendar SEQUENCE rule both backends apply inside `updatePost`: calendar apps replace a
 * stored copy of an event only when its SEQUENCE grew, so every change to something they show
 * must raise it, and nothing else should. A recurring series is one VEVENT whose SEQUENCE is its
 * first occurrence's: changes to its set of occurrences are recorded there (resources/series.ts).
 */
import { fieldsWhere } from './fields.js'
import { sameCustomValues, type CustomValues } from './custom-values.js'
import type { EventRecord, PostRecord, SeriesMember, SeriesRule } from './types.js'

/** Event fields an iCalendar feed shows (directly, or through URL, LOCATION, ORGANIZER, CATEGORIES): the field table's `calendar` role. */
export const CALENDAR_FIELDS = fieldsWhere('event', 'calendar')

const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((x, i) => x === b[i])
    : isObject(a) && isObject(b) && !Array.isArray(a) && !Array.isArray(b)
      ? sameCustomValues(a as CustomValues, b as CustomValues) // custom field values: a flat object
      : a === b

const isObject = (x: unknown): x is object => typeof x === 'object' && x !== null

/**
 * What a feed shows of an event's place in its series: RECURRENCE-ID and being written on its
 * own (`original`, `detached`), and on the first occurrence the rule with its extra and excluded
 * dates, and `changes` (the series' own edits). Not `position` or `through`: no feed shows them.
 */
function seriesShownChanged(a: SeriesMember | null | undefined, b: SeriesMember | null | undefined): boolean {
  if (!a || !b) return !a !== !b
  if (a.original !== b.original || !a.detached !== !b.detached || (a.changes ?? 0) !== (b.changes ?? 0)) return true
  return ruleShownChanged(a.rule, b.rule)
}

/** Whether a series' rule changed as its occurrences show it (`recurrence`): not `through`. */
function ruleShownChanged(r: SeriesRule | undefined, s: SeriesRule | undefined): boolean {
  if (!r || !s) return !r !== !s
  return r.rrule !== s.rrule || !same(r.rdate, s.rdate) || !same(r.exdate, s.exdate)
}

/**
 * True when `after` is the first occurrence of a series and the rule its occurrences show as
 * `recurrence` (rrule, extra and excluded dates) changed: every other occurrence reads that rule
 * from this row, so each of them changed too and gets a new revision (its journal entry) from
 * the backend, in the same transaction.
 */
export function seriesRuleShownChanged(before: EventRecord, after: EventRecord): boolean {
  return after.seriesId === after.id && ruleShownChanged(before.series?.rule, after.series?.rule)
}

/** The sequence an event moving from `before` to `after` gets. */
export function nextSequence(before: EventRecord, after: EventRecord): number {
  const base = before.sequence ?? 0
  const changed = CALENDAR_FIELDS.some((f) => !same(before[f], after[f])) || seriesShownChanged(before.series, after.series)
  return changed ? base + 1 : base
}

/** Venue and organizer fields a feed shows on the events linked to them (LOCATION, GEO, ORGANIZER, CONTACT). */
export const LINKED_CALENDAR_FIELDS = {
  venue: fieldsWhere('venue', 'calendar'),
  organizer: fieldsWhere('organizer', 'calendar'),
}

/** True when a venue or organizer update changes what its events show: their sequences grow too. */
export function linkedShownChanged(before: PostRecord, after: PostRecord): boolean {
  if (before.type === 'event') return false
  const a = before as unknown as Record<string, unknown>
  const b = after as unknown as Record<string, unknown>
  return LINKED_CALENDAR_FIELDS[before.type].some((f) => a[f] !== b[f])
}
