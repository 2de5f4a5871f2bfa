/**
 * A real WordPress REST client nobody here wrote: `wpapi` learns our routes from the namespace
 * index (the same shape WordPress's own index has) and drives the router over loopback HTTP.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WPAPI from 'wpapi'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { toNodeHandler } from '../adapters/node/index.js'

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
