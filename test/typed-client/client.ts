/**
 * A small client of the namespace written the way a user would: types generated from the served
 * /doc by openapi-typescript (into ./api.ts, at test time), requests through openapi-fetch, and
 * the representation types the package exports. It contains no type assertion, no non-null
 * assertion and no `any`: test/typed-client.test.ts checks that, type-checks this directory with
 * `strict`, `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`, then runs `tour` against
 * a live server.
 */
import createClient from 'openapi-fetch'
import type { components, paths } from './api.js'
// The package root re-exports these (test/typed-client.test.ts checks that it does); importing the
// module itself keeps this check to the representations, not the router's implementation.
import type { ErrorEnvelope, Event, EventList } from '../../src/types.js'

export function calendarClient(baseUrl: string, token?: string) {
  // JSON is the representation we read by default; the iCalendar form is asked for with parseAs.
  return createClient<paths, 'application/json'>({
    baseUrl,
    ...(token !== undefined ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    // /doc declares list parameters as style=form, explode=false: `categories=a,b`.
    querySerializer: { array: { style: 'form', explode: false } },
  })
}

export interface Tour {
  created: Event
  listed: EventList
  listTotalHeader: string | null
  read: Event
  notModifiedStatus: number
  updated: Event
  /** A second update sent with the ETag the read gave before the first one: refused. */
  staleStatus: number
  staleCode: string
  /** Ids a full sync listed, then what a sync from its token reported after a change. */
  synced: number[]
  syncChanged: number[]
  syncDeleted: number[]
  ics: string
  icsType: string | null
  invalid: ErrorEnvelope
  invalidNames: string[]
  /** The declared url field as the generated types have it (a string), and a list filtered by a custom field. */
  ticketUrl: string | undefined
  capacity: number | undefined
  byGenre: number[]
}

/**
 * A declared custom field read through the generated types: /doc types each field's value, so
 * `custom_fields.ticket_url.value` is a string here and `capacity` a number, with no cast.
 */
export function ticketUrl(event: components['schemas']['Event']): string | undefined {
  const fields = event.custom_fields
  return Array.isArray(fields) ? undefined : fields.ticket_url?.value
}

export function capacity(event: components['schemas']['Event']): number | undefined {
  const fields = event.custom_fields
  return Array.isArray(fields) ? undefined : fields.capacity?.value
}

function fail(what: string, response: Response): never {
  throw new Error(`${what} answered ${response.status}`)
}

export async function tour(baseUrl: string, token: string): Promise<Tour> {
  const api = calendarClient(baseUrl, token)

  // Only the required fields, a nested venue, organizer objects and category names.
  const create = await api.POST('/events', {
    body: {
      title: 'Typed client night',
      start_date: '2026-12-04 19:00:00',
      end_date: '2026-12-04 22:00:00',
      venue: { venue: 'Blue Hall', city: 'Oslo', country: 'Norway' },
      organizer: [
        { organizer: 'Ann Organiser', email: 'ann@example.com' },
        { organizer: 'Bo Booker', phone: '+47 555 0100' },
      ],
      categories: ['Concerts', 'Jazz'],
      custom_fields: { ticket_url: 'https://tickets.example/typed', capacity: 120, genre: 'jazz' },
    },
  })
  if (!create.data) fail('create', create.response)
  const byGenre = await api.GET('/events', { params: { query: { start_date: '2026-12-01', custom_fields: { genre: 'jazz' } } } })
  if (!byGenre.data) fail('custom field filter', byGenre.response)
  const created: Event = create.data

  // Dates as text and as a Unix timestamp, a page, and a term filter by slug.
  const list = await api.GET('/events', {
    params: { query: { start_date: '2026-12-01', end_date: Date.UTC(2026, 11, 31) / 1000, page: 1, per_page: 5, categories: ['jazz'] } },
  })
  if (!list.data) fail('list', list.response)
  const listed: EventList = list.data

  const one = await api.GET('/events/{id}', { params: { path: { id: created.id } } })
  if (!one.data) fail('read', one.response)
  const etag = one.response.headers.get('etag')
  if (etag === null) throw new Error('read answered no ETag')
  const again = await api.GET('/events/{id}', { params: { path: { id: created.id }, header: { 'If-None-Match': etag } } })

  // A conditional write: If-Match is a typed header of the operation.
  const patch = await api.PATCH('/events/{id}', {
    params: { path: { id: created.id }, header: { 'If-Match': etag } },
    body: { title: 'Typed client night (moved)', cost: 15 },
  })
  if (!patch.data) fail('update', patch.response)
  const stale = await api.PATCH('/events/{id}', {
    params: { path: { id: created.id }, header: { 'If-Match': etag } },
    body: { title: 'Lost update' },
  })
  if (!stale.error) throw new Error(`a stale If-Match answered ${stale.response.status}`)

  const calendar = await api.GET('/events/{id}', { params: { path: { id: created.id }, query: { format: 'ics' } }, parseAs: 'text' })
  if (calendar.data === undefined) fail('iCalendar', calendar.response)

  // Incremental sync: sync_token, deleted and the next sync_token are typed fields of the list.
  const full = await api.GET('/events', { params: { query: { sync_token: '*', per_page: 50 } } })
  if (!full.data) fail('full sync', full.response)
  const syncToken: string | undefined = full.data.sync_token
  if (syncToken === undefined) throw new Error('a one-page full sync gave no sync_token')
  await api.DELETE('/events/{id}', { params: { path: { id: created.id } } })
  const delta = await api.GET('/events', { params: { query: { sync_token: syncToken, per_page: 50 } } })
  if (!delta.data) fail('sync', delta.response)
  const deletedIds: number[] = delta.data.deleted ?? []

  const bad = await api.GET('/events', { params: { query: { per_page: 0, start_date: 'no such day' } } })
  if (!bad.error) throw new Error(`an invalid list answered ${bad.response.status}`)
  const { params } = bad.error.data
  const invalidNames = params === undefined ? [] : Array.isArray(params) ? params : Object.keys(params)

  return {
    created,
    listed,
    listTotalHeader: list.response.headers.get('x-wp-total'),
    read: one.data,
    notModifiedStatus: again.response.status,
    updated: patch.data,
    synced: full.data.events.map((e) => e.id),
    syncChanged: delta.data.events.map((e) => e.id),
    syncDeleted: deletedIds,
    staleStatus: stale.response.status,
    staleCode: stale.error.code,
    ics: calendar.data,
    icsType: calendar.response.headers.get('content-type'),
    invalid: bad.error,
    invalidNames,
    ticketUrl: ticketUrl(create.data),
    capacity: capacity(create.data),
    byGenre: byGenre.data.events.map((e) => e.id),
  }
}
