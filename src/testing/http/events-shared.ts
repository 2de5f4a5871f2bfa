/**
 * What the events suites (events-*.suite.ts) share: the expected key order of an event, the list
 * window and URLs for the harness clock, and a fresh app per test.
 */
import { onTestFinished } from './api.js'
import type { CalendarOptions } from '../../options.js'
import type { Storage } from '../../storage/types.js'
import { API, makeApp, type App, type Res } from './harness.js'

/** Event keys in TEC's order (docs/wire-compatibility.md §2.1) plus our language fields; `json_ld` on single reads. */
export const EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'custom_fields',
  // TEC's Event Status and Virtual Events fields, after TEC's own.
  'event_status',
  'event_status_reason',
  'attendance_mode',
  'virtual_url',
  'language',
  'translations',
]

/** Default list window for the harness clock (2026-11-21 22:54:48 UTC), form-encoded. */
export const WINDOW = 'start_date=2026-11-20+00%3A00%3A00&end_date=2028-11-21+23%3A59%3A59'
export const LIST = `${API}/events/`
export const CACHE_CONTROL = 'no-cache, must-revalidate, max-age=0, no-store, private'

export const ids = (res: Res): number[] => res.body.events.map((e: { id: number }) => e.id)

export const details = (y: string, mo: string, d: string, h: string, mi: string, s: string) => ({
  year: y,
  month: mo,
  day: d,
  hour: h,
  minutes: mi,
  seconds: s,
})

/** `open(options)`: a fresh app over a fresh storage, closed when the test ends. */
export function eventsOpener(makeStorage: () => Storage | Promise<Storage>) {
  return async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }
}
