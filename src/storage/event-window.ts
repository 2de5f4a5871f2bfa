/**
 * The date window of an event list (EventListQuery's wall-clock bounds), tested on one record:
 * the memory backend's list and the provisional occurrences a read shows past a series'
 * horizon (resources/provisional.ts) apply the same rule as the SQL planner's conditions.
 */
import type { EventListQuery, EventRecord } from './types.js'

/**
 * Whether `e` falls in the window of `q` (start and end, each bound optional).
 * @example inDateWindow({ startGte: '2027-01-01 00:00:00' } as EventListQuery, event)
 */
export function inDateWindow(q: EventListQuery, e: Pick<EventRecord, 'startDate' | 'endDate'>): boolean {
  if (q.startGte !== undefined && !(e.startDate >= q.startGte)) return false
  if (q.startGt !== undefined && !(e.startDate > q.startGt)) return false
  if (q.startLt !== undefined && !(e.startDate < q.startLt)) return false
  if (q.endLte !== undefined && !(e.endDate <= q.endLte)) return false
  if (q.endGt !== undefined && !(e.endDate > q.endGt)) return false
  if (q.endLt !== undefined && !(e.endDate < q.endLt)) return false
  return true
}
