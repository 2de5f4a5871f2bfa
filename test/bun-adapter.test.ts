/**
 * calendar-events-router/bun under Node: the helper only wires `calendar.fetch` into Bun.serve
 * (the real Bun.serve runs in test/runtime/bun.test.ts and the bun example's test).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { serveCalendar, toBunHandler } from '../adapters/bun/index.js'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'

const calendar = { fetch: async (request: Request) => new Response(`seen ${new URL(request.url).pathname}`) }
const g = globalThis as { Bun?: unknown }

afterEach(() => {
  delete g.Bun
})

describe('calendar-events-router/bun', () => {
  it('toBunHandler answers with calendar.fetch', async () => {
    const res = await toBunHandler(calendar)(new Request('http://x/wp-json/a'))
    expect(await res.text()).toBe('seen /wp-json/a')
  })

  it('serveCalendar passes the options to Bun.serve with the calendar as fetch', async () => {
    let given: Record<string, unknown> = {}
    const server = { port: 1234, hostname: '127.0.0.1', url: new URL('http://127.0.0.1:1234/'), stop() {} }
    g.Bun = { serve: (options: Record<string, unknown>) => ((given = options), server) }
    expect(serveCalendar(calendar, { port: 0, hostname: '127.0.0.1', idleTimeout: 30 })).toBe(server)
    expect(given).toMatchObject({ port: 0, hostname: '127.0.0.1', idleTimeout: 30 })
    const res = await (given.fetch as (r: Request) => Promise<Response>)(new Request('http://x/b'))
    expect(await res.text()).toBe('seen /b')
  })

  it('hands authenticate the standard Request as request.raw (Bun, Deno, any fetch host)', async () => {
    let raw: unknown
    const router = createCalendarRouter(createMemoryStorage(), { authenticate: (request) => ((raw = request.raw), null) })
    const request = new Request('http://x/wp-json/calendar/events/v1/events')
    expect((await toBunHandler(router)(request)).status).toBe(200)
    expect(raw).toBe(request)
  })

  it('toBunHandler hands paths outside the namespace to fallback, and answers its own', async () => {
    const router = createCalendarRouter(createMemoryStorage())
    const handler = toBunHandler(router, { fallback: (request) => new Response(`host ${new URL(request.url).pathname}`, { status: 202 }) })
    const outside = await handler(new Request('http://x/about'))
    expect(outside.status).toBe(202)
    expect(await outside.text()).toBe('host /about')
    const inside = await handler(new Request('http://x/wp-json/calendar/events/v1/nothing-here'))
    expect(inside.status).toBe(404)
    expect((await inside.json()).code).toBe('rest_no_route')
    const list = await handler(new Request('http://x/wp-json/calendar/events/v1/events'))
    expect(list.status).toBe(200)
    expect((await list.json()).events).toEqual([])
  })

  it('serveCalendar passes fallback to the handler, not to Bun.serve', async () => {
    let given: Record<string, unknown> = {}
    const server = { port: 1, hostname: '127.0.0.1', url: new URL('http://127.0.0.1:1/'), stop() {} }
    g.Bun = { serve: (options: Record<string, unknown>) => ((given = options), server) }
    serveCalendar(createCalendarRouter(createMemoryStorage()), { port: 0, fallback: () => new Response('host') })
    expect('fallback' in given).toBe(false)
    const res = await (given.fetch as (r: Request) => Promise<Response>)(new Request('http://x/elsewhere'))
    expect(await res.text()).toBe('host')
  })

  it('fallback without a router says what it needs', () => {
    expect(() => toBunHandler(calendar, { fallback: () => new Response('') })).toThrow(/needs a CalendarRouter/)
  })

  it('serveCalendar says so outside Bun', () => {
    expect(() => serveCalendar(calendar)).toThrow(/not running on Bun/)
  })
})
