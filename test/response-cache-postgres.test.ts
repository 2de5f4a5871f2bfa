/**
 * Two routers, each with its own connection pool, on one PostgreSQL database (as two server
 * processes would be): a write through one is seen by the other once its cached entries expire
 * (`cache.ttlMs`, the documented lifetime), and never served stale after that.
 */
import { afterAll, expect, it, onTestFinished } from 'vitest'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { API, authenticate, NOW } from './http/harness.js'
import { admin, pgDescribe, schemaStorage } from './support/pg-schema.js'

afterAll(() => admin?.end())

const TTL_MS = 300

async function get(router: CalendarRouter, path: string) {
  const res = await router.fetch(new Request(API + path))
  return { status: res.status, body: (await res.json()) as any }
}

async function send(router: CalendarRouter, method: string, path: string, body: unknown) {
  const res = await router.fetch(
    new Request(API + path, {
      method,
      headers: { authorization: 'Bearer administrator', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )
  expect(res.status, await res.clone().text()).toBeLessThan(300)
  return (await res.json()) as any
}

pgDescribe('response cache across router instances on one PostgreSQL database', () => {
  it('sees the other instance’s writes within ttlMs', async () => {
    const first = await schemaStorage()
    const second = await schemaStorage(first.schema)
    onTestFinished(async () => {
      await second.close()
      await first.close()
    })
    const options = { authenticate, now: () => new Date(NOW), cache: { ttlMs: TTL_MS } }
    const a = createCalendarRouter(first, options)
    const b = createCalendarRouter(second, options)

    const venue = await send(a, 'POST', '/venues', { venue: 'Main Hall' })
    const event = await send(a, 'POST', '/events', {
      title: 'Before',
      start_date: '2026-11-28 10:00:00',
      end_date: '2026-11-28 12:00:00',
      venue: venue.id,
    })
    const urls = [`/events/${event.id}`, '/events', `/venues/${venue.id}`]
    for (const url of urls) expect((await get(b, url)).status).toBe(200)
    const cached = b.cacheStats()!.entries
    expect(cached).toBe(urls.length)

    await send(a, 'PATCH', `/events/${event.id}`, { title: 'After' })
    await send(a, 'PATCH', `/venues/${venue.id}`, { venue: 'Grand Hall' })
    await send(a, 'POST', '/events', { title: 'Second', start_date: '2026-11-29 10:00:00', end_date: '2026-11-29 12:00:00' })
    // A's own cache follows its writes at once; b has seen none of them and keeps its entries.
    expect((await get(a, `/events/${event.id}`)).body.title).toBe('After')
    expect(b.cacheStats()!.entries).toBe(cached)

    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100))
    const single = await get(b, `/events/${event.id}`)
    expect(single.body.title).toBe('After')
    expect(single.body.venue.venue).toBe('Grand Hall')
    expect((await get(b, '/events')).body.total).toBe(2)
    expect((await get(b, `/venues/${venue.id}`)).body.venue).toBe('Grand Hall')

    // And the other way round, through b's writes.
    await send(b, 'PATCH', `/events/${event.id}`, { title: 'Again' })
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('Again')
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100))
    expect((await get(a, `/events/${event.id}`)).body.title).toBe('Again')
  })
})
