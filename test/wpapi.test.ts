/**
 * A real WordPress REST client nobody here wrote: `wpapi` learns our routes from the namespace
 * index (the same shape WordPress's own index has) and drives the router over loopback HTTP; on
 * the example server it finds the API by itself, as `WPAPI.discover()` does on a WordPress site.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WPAPI from 'wpapi'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { toNodeHandler } from '../adapters/node/index.js'
import { startServer } from '../examples/node-server/server.js'

describe('wpapi client against the router on a loopback port', () => {
  let server: http.Server
  let endpoint: string

  beforeAll(async () => {
    const calendar = createCalendarRouter(createMemoryStorage(), {
      authenticate: (r) => (r.headers.get('authorization') === 'Bearer editor-token' ? { id: 7, role: 'editor' } : null),
    })
    server = http.createServer(toNodeHandler(calendar))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  async function client(auth: boolean) {
    const index = await (await fetch(`${endpoint}/calendar/events/v1`)).json()
    const site = new WPAPI({ endpoint, routes: index.routes })
    if (auth) site.setHeaders('Authorization', 'Bearer editor-token')
    return site.namespace('calendar/events/v1')
  }

  it('registers every resource of the namespace from discovery', async () => {
    const ns = await client(false)
    for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags', 'doc']) expect(typeof ns[resource]).toBe('function')
  })

  it('creates, reads, lists and updates an event', async () => {
    const ns = await client(true)
    const created = await ns.events().create({ title: 'Via wpapi', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00' })
    expect(created).toMatchObject({ title: 'Via wpapi', status: 'publish', start_date: '2026-12-01 19:00:00' })
    const one = await ns.events().id(created.id).get()
    expect(one.id).toBe(created.id)
    expect(one.json_ld['@type']).toBe('Event')
    const updated = await ns.events().id(created.id).update({ title: 'Updated via wpapi' })
    expect(updated.title).toBe('Updated via wpapi')
    expect(updated.end_date).toBe('2026-12-01 21:00:00')
    const anon = await client(false)
    const list = await anon.events().param('start_date', '2026-11-01').param('end_date', '2026-12-31').get()
    expect(list.total).toBe(1)
    expect(list.events[0].title).toBe('Updated via wpapi')
  })

  it('surfaces the API errors to the client as WordPress error objects', async () => {
    const anon = await client(false)
    await expect(anon.events().create({ title: 'x', start_date: 'tomorrow', end_date: 'tomorrow' })).rejects.toMatchObject({
      code: 'rest_forbidden',
      data: { status: 401 },
    })
    const ns = await client(true)
    await expect(ns.events().id(424242).get()).rejects.toMatchObject({ code: 'rest-event-not-found' })
  })
})

describe('WPAPI.discover() against the example server', () => {
  let started: Awaited<ReturnType<typeof startServer>>
  let site: string

  beforeAll(async () => {
    started = await startServer({
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_STORAGE: 'memory',
      CALENDAR_API_TOKENS: 'wpapi-token:editor',
      CALENDAR_DEMO: 'off',
    })
    site = `http://127.0.0.1:${started.port}`
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => started.server.close(() => resolve()))
    await started.storage.close?.()
  })

  it('follows the Link header to the API index and binds the namespace routes', async () => {
    for (const from of [`${site}/wp-json/`, `${site}/wp-json/calendar/events/v1/events`]) {
      const wp = await WPAPI.discover(from)
      expect(wp._options.endpoint).toBe(`${site}/wp-json/`)
      for (const resource of ['events', 'venues', 'organizers', 'categories', 'tags']) {
        expect(typeof wp.namespace('calendar/events/v1')[resource]).toBe('function')
      }
    }
  })

  it('writes with the host token, then pages a list with _paging filled from X-WP-Total(Pages)', async () => {
    const wp = await WPAPI.discover(`${site}/wp-json/`)
    wp.setHeaders('Authorization', 'Bearer wpapi-token')
    const ns = wp.namespace('calendar/events/v1')
    for (const day of [2, 3, 4]) {
      const created = await ns
        .events()
        .create({ title: `Discovered ${day}`, start_date: `2026-12-0${day} 10:00`, end_date: `2026-12-0${day} 11:00` })
      expect(created.title).toBe(`Discovered ${day}`)
    }
    const page = await ns.events().param('start_date', '2026-12-01').param('end_date', '2026-12-31').perPage(2).page(2).get()
    expect(page.events.map((e: { title: string }) => e.title)).toEqual(['Discovered 4'])
    expect(page._paging).toMatchObject({ total: 3, totalPages: 2 })
  })
})
