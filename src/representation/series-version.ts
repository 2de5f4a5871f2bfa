/**
 * SEQUENCE and LAST-MODIFIED of a series' VEVENT. Changes of the series as a whole (its rule,
 * exceptions, occurrences edited on their own) are recorded on its first occurrence
 * (resources/series-version.ts); changes of what it shows reach every occurrence that follows
 * it, the one the feed takes the fields from (`shown`) included. The larger of the two never
 * goes down and grows with either, whichever occurrence a feed's window happens to show.
 */
import type { EventRecord } from '../storage/types.js'

export function seriesVersion(head: EventRecord, shown: EventRecord): Pick<EventRecord, 'sequence' | 'modifiedUtc'> {
  return {
    sequence: Math.max(head.sequence ?? 0, shown.sequence ?? 0),
    modifiedUtc: head.modifiedUtc > shown.modifiedUtc ? head.modifiedUtc : shown.modifiedUtc,
  }
}
