/**
 * The series fields of an event's representation: `recurrence` (its series' rule, described)
 * and `series` (the series id, the occurrence's place in it, whether it was edited on its own).
 * They come from another row (the series' first occurrence, which the resources load), so they
 * are never part of an event's cached fragment.
 */
import { describeRule, parseRule } from '../recurrence/index.js'
import type { EventRecord, SeriesRule } from '../storage/types.js'
import type { Json } from './common.js'

/**
 * The series fields of each event, null for an event outside any series. `heads`: the first
 * occurrence of every series the events belong to (one missing leaves out `recurrence`).
 */
export function seriesJson(events: readonly EventRecord[], heads: ReadonlyMap<number, EventRecord>): Array<Json | null> {
  // Members of one series share their head's rule: describe it once per call.
  const described = new Map<number, Json>()
  return events.map((e) => {
    if (!e.seriesId || !e.series) return null
    const rule = heads.get(e.seriesId)?.series?.rule
    const fields: Json = {}
    if (rule) {
      let recurrence = described.get(e.seriesId)
      if (!recurrence) described.set(e.seriesId, (recurrence = recurrenceJson(rule)))
      fields.recurrence = recurrence
    }
    fields.series = { id: e.seriesId, position: e.series.position, detached: e.series.detached === true }
    return fields
  })
}

export function recurrenceJson(rule: SeriesRule): Json {
  return { rrule: rule.rrule, rdate: rule.rdate, exdate: rule.exdate, description: describeRule(parseRule(rule.rrule)) }
}
