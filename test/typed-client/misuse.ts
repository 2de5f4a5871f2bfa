/**
 * What the generated types must refuse. Each `@ts-expect-error` fails the type check when the
 * line below it compiles, so types that grew loose (`unknown`, `Record<string, never>`, a
 * required `all_day`) are caught as surely as types that are wrong.
 */
import { calendarClient } from './client.js'

export async function misuse(api: ReturnType<typeof calendarClient>) {
  // @ts-expect-error title is required on create
  await api.POST('/events', { body: { start_date: '2026-12-04 19:00:00', end_date: '2026-12-04 22:00:00' } })
  // @ts-expect-error a date is a string or a number
  await api.POST('/events', { body: { title: 'x', start_date: true, end_date: '2026-12-04 22:00:00' } })
  // @ts-expect-error cost is a string, a number or a list of them
  await api.POST('/events', { body: { title: 'x', start_date: 1, end_date: 2, cost: { amount: 5 } } })
  // @ts-expect-error nested venue data needs the venue name (or an id)
  await api.POST('/events', { body: { title: 'x', start_date: 1, end_date: 2, venue: { city: 'Oslo' } } })
  // @ts-expect-error an organizer's name is a string
  await api.POST('/events', { body: { title: 'x', start_date: 1, end_date: 2, organizer: [{ organizer: 'A' }, { organizer: 42 }] } })
  // @ts-expect-error a list filter takes dates, not booleans
  await api.GET('/events', { params: { query: { start_date: true } } })
  // @ts-expect-error format is json or ics
  await api.GET('/events', { params: { query: { format: 'xml' } } })
  const read = await api.GET('/events/{id}', { params: { path: { id: 1 } } })
  if (read.data) {
    // @ts-expect-error the representation has no such field
    void read.data.no_such_field
    // @ts-expect-error organizer is a list, possibly empty: an index may be undefined
    void read.data.organizer[0].organizer
  }
}
