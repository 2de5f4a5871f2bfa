/**
 * A series' feed version lives on its first occurrence: calendar apps keep their copy of a
 * recurring VEVENT until its SEQUENCE grows, and that VEVENT's SEQUENCE and LAST-MODIFIED are
 * the first occurrence's (representation/ical-series.ts). Every write that changes the series
 * without changing the first occurrence's own fields (an exception, a restored or detached
 * occurrence, a cut) goes through here, so storage raises its sequence (storage/sequence.ts).
 */
import type { Context } from '../context.js'
import type { EventRecord, PostPatch, SeriesRule } from '../storage/types.js'

/** The patch of `head` recording a change of its series (with `rule` when the rule changed too). */
export function touchSeries(ctx: Pick<Context, 'nowLocal' | 'nowUtc'>, head: EventRecord, rule?: SeriesRule): PostPatch<'event'> {
  const series = head.series!
  return {
    modified: ctx.nowLocal,
    modifiedUtc: ctx.nowUtc,
    series: { ...series, ...(rule ? { rule } : {}), changes: (series.changes ?? 0) + 1 },
  }
}
