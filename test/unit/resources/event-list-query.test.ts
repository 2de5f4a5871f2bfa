/**
 * The event list query builder on its own: validated parameters and a fixed clock in, the
 * storage query, the canonical rest_url parameters and the failures out. No storage, no HTTP.
 */
import { describe, expect, it } from 'vitest'
import type { Principal } from '../../../src/auth/principal.js'
import { resolveOptions } from '../../../src/options.js'
import { eventListQuery, type ListEnv } from '../../../src/resources/event-list-query.js'
import type { Input } from '../../../src/schemas/index.js'
import { LIVE_STATUSES } from '../../../src/storage/types.js'

// Wednesday 10 June 2026, 14:30 in Paris (UTC+2).
const now = new Date('2026-06-10T12:30:00Z')

const env = (principal: Principal | null = null, options = {}): ListEnv => ({
  options: resolveOptions({ timezone: 'Europe/Paris', maxPerPage: 50, ...options }),
  principal,
  language: 'en',
  now,
  nowUtc: '2026-06-10 12:30:00',
  nowLocal: '2026-06-10 14:30:00',
})

const list = (q: Partial<Input<'eventList'>> = {}): Input<'eventList'> => ({ page: 1, per_page: 10, ...q })

const editor: Principal = { id: 7, role: 'editor' }
const author: Principal = { id: 9, role: 'author' }

describe('eventListQuery', () => {
  it('defaults to whole days from yesterday to 24 months ahead, published only for the anonymous', () => {
    const plan = eventListQuery(list(), env())
    expect(plan.query).toEqual({
      language: 'en',
      statuses: ['publish'],
      orderBy: 'start',
      offset: 0,
      limit: 10,
      startGte: '2026-06-09 00:00:00',
      endLte: '2028-06-10 23:59:59',
    })
    expect(plan.canonical).toEqual([
      ['page', '1'],
      ['per_page', '10'],
      ['start_date', '2026-06-09 00:00:00'],
      ['end_date', '2028-06-10 23:59:59'],
      ['status', 'publish'],
    ])
    expect(plan.failures.size).toBe(0)
  })

  it('keeps the exact default bounds with strict_dates and says so last but the links', () => {
    const plan = eventListQuery(list({ strict_dates: true, featured: false }), env())
    expect(plan.query.startGte).toBe('2026-06-09 23:59:00')
    expect(plan.query.endLte).toBe('2028-06-10 14:30:00')
    expect(plan.canonical.slice(-2)).toEqual([
      ['strict_dates', '1'],
      ['featured', '0'],
    ])
  })

  it('caps per_page at maxPerPage and pages by offset', () => {
    const plan = eventListQuery(list({ page: 3, per_page: 500 }), env())
    expect([plan.page, plan.perPage, plan.query.offset, plan.query.limit]).toEqual([3, 50, 100, 50])
    expect(plan.canonical.slice(0, 2)).toEqual([
      ['page', '3'],
      ['per_page', '50'],
    ])
  })

  it('reads dates in the site zone and widens them to whole days', () => {
    const plan = eventListQuery(list({ start_date: '2026-07-01 18:00', end_date: '2026-07-03' }), env())
    expect([plan.query.startGte, plan.query.endLte]).toEqual(['2026-07-01 00:00:00', '2026-07-03 23:59:59'])
  })

  it('drops the default window when only relative filters are given, and lists them after the status', () => {
    const plan = eventListQuery(list({ starts_after: '2026-07-01', ends_before: '2026-08-01' }), env())
    expect(plan.query.startGte).toBeUndefined()
    expect(plan.query.endLte).toBeUndefined()
    expect(plan.query.startGt).toBe('2026-07-01 23:59:59')
    expect(plan.query.endLt).toBe('2026-08-01 23:59:59')
    expect(plan.canonical.map(([k]) => k)).toEqual(['page', 'per_page', 'status', 'starts_after', 'ends_before'])
  })

  it('keeps an explicit start_date beside relative filters', () => {
    const plan = eventListQuery(list({ start_date: '2026-07-01', starts_before: '2026-07-10' }), env())
    expect(plan.query.startGte).toBe('2026-07-01 00:00:00')
    expect(plan.query.endLte).toBeUndefined()
    expect(plan.query.startLt).toBe('2026-07-10 23:59:59')
  })

  it('ignores every date filter for include and orders by date', () => {
    const plan = eventListQuery(list({ include: [4, 2], start_date: '2026-07-01', starts_before: '2026-08-01' }), env())
    expect(plan.query).toMatchObject({ include: [4, 2], orderBy: 'date' })
    expect(plan.query.startGte).toBeUndefined()
    expect(plan.query.startLt).toBeUndefined()
    expect(plan.canonical).toContainEqual(['include', '4,2'])
    // rest_url shows effective values only: no date parameter, and never the text "undefined".
    const keys = plan.canonical.map(([k]) => k)
    expect(keys).not.toContain('start_date')
    expect(keys).not.toContain('starts_before')
    expect(plan.canonical.some(([, v]) => v === 'undefined')).toBe(false)
  })

  it('shows every status to editors (status=any) and only their own drafts to authors', () => {
    const forEditor = eventListQuery(list(), env(editor))
    expect(forEditor.query.statuses).toEqual(LIVE_STATUSES)
    expect(forEditor.query.unpublishedAuthor).toBeUndefined()
    expect(forEditor.canonical).toContainEqual(['status', 'any'])
    const forAuthor = eventListQuery(list({ status: ['draft', 'publish'] }), env(author))
    expect(forAuthor.query.statuses).toEqual(['draft', 'publish'])
    expect(forAuthor.query.unpublishedAuthor).toBe(9)
    expect(forAuthor.canonical).toContainEqual(['status', 'draft,publish'])
  })

  it('collects failures instead of throwing: a status the caller may not ask for, half a geo point', () => {
    const plan = eventListQuery(list({ status: ['draft'], geoloc_lat: 48.85 }), env())
    expect([...plan.failures.keys()]).toEqual(['status', 'geoloc_lng'])
    expect(plan.query.statuses).toEqual([])
  })

  it('puts the canonical parameters in the reference order', () => {
    const plan = eventListQuery(
      list({
        tags: ['jazz'],
        categories: [3, 'music'],
        featured: true,
        organizer: [12],
        venue: [11],
        strict_dates: true,
        ends_after: '2026-07-01 10:00',
        hide_subsequent_recurrences: true,
        post_parent: 5,
        geoloc_lat: 48.85,
        geoloc_lng: 2.35,
        geoloc_radius: 10,
        search: 'night',
      }),
      env(),
    )
    expect(plan.canonical.map(([k]) => k)).toEqual([
      'page',
      'per_page',
      'search',
      'geoloc_lat',
      'geoloc_lng',
      'geoloc_radius',
      'status',
      'post_parent',
      'hide_subsequent_recurrences',
      'ends_after',
      'strict_dates',
      'venue',
      'organizer',
      'featured',
      'categories',
      'tags',
    ])
    expect(plan.query).toMatchObject({
      parentId: 5,
      venueIds: [11],
      organizerIds: [12],
      featured: true,
      search: 'night',
      firstOfSeries: true,
      endGt: '2026-07-01 10:00:00',
      venueGeo: { near: { lat: 48.85, lng: 2.35 } },
    })
    // Terms need the storage: resolveListReferences fills them in.
    expect(plan.query.categoryIds).toBeUndefined()
    expect(plan.canonical).toContainEqual(['categories', '3,music'])
  })
})
