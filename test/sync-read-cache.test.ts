/**
 * Sync answers and the response cache: a sync from a token reads the change journal, so a
 * cached answer must go as soon as anything is committed (found by the CalDAV face, which asks
 * "anything since this token?" before reusing a calendar it read: the cached empty answer hid a
 * new event until the cache's ttl passed).
 */
import { describe, expect, it } from 'vitest'
import { createCalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { API, authenticate, NOW } from './http/harness.js'

const ADMIN = { authorization: 'Bearer administrator', 'content-type': 'application/json' }

describe('sync answers with the response cache on', () => {
  it.each(['events', 'venues', 'organizers'])(
    '/%s: a sync from a token sees a commit made after the same sync was cached',
    async (list) => {
      const router = createCalendarRouter(createMemoryStorage(), { authenticate, now: () => new Date(NOW), cache: { ttlMs: 60_000 } })
      const get = async (path: string) => (await (await router.fetch(new Request(API + path, { headers: ADMIN }))).json()) as any
      const token = (await get(`/${list}?sync_token=*`)).sync_token
      const since = `/${list}?sync_token=${encodeURIComponent(token)}`
      expect((await get(since))[list]).toEqual([])
      const body =
        list === 'events'
          ? { title: 'New', start_date: '2027-01-05 10:00', end_date: '2027-01-05 11:00' }
          : list === 'venues'
            ? { venue: 'New hall' }
            : { organizer: 'New organizer' }
      const created = await router.fetch(new Request(`${API}/${list}`, { method: 'POST', headers: ADMIN, body: JSON.stringify(body) }))
      expect(created.status).toBe(201)
      expect((await get(since))[list]).toHaveLength(1)
    },
  )

  it('/events: a sync from a token sees an edit of shown-only fields (a new title) made after the same sync was cached', async () => {
    const router = createCalendarRouter(createMemoryStorage(), { authenticate, now: () => new Date(NOW), cache: { ttlMs: 60_000 } })
    const send = async (method: string, path: string, body?: unknown) =>
      (await (
        await router.fetch(new Request(API + path, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) }))
      ).json()) as any
    const created = await send('POST', '/events', { title: 'Old', start_date: '2027-01-05 10:00', end_date: '2027-01-05 11:00' })
    const since = `/events?sync_token=${encodeURIComponent((await send('GET', '/events?sync_token=*')).sync_token)}`
    expect((await send('GET', since)).events).toEqual([])
    expect((await send('POST', `/events/${created.id}`, { title: 'New' })).title).toBe('New')
    expect((await send('GET', since)).events.map((e: any) => e.title)).toEqual(['New'])
  })
})
