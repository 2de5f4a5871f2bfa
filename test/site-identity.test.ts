/**
 * The site's identity (`siteUrl`): iCalendar UIDs, `global_id`, JSON-LD and webhook payloads
 * name the site, whatever name a request reached it by. A subscriber who fetches the feed as
 * `localhost` and as `127.0.0.1` sees each event once; a receiver matches a webhook payload to
 * what it read over HTTP by `global_id`. The identity comes from the options only, never from
 * the storage, so this runs on memory storage.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { resolveOptions } from '../src/options.js'
import { makeApp, type App } from './http/harness.js'

const EVENT = { title: 'Identity', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00', status: 'publish' }
const SITE = 'https://events.example.org/calendar'
const HOSTS = ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://evil.test']

async function open(siteUrl?: string): Promise<App> {
  const app = await makeApp(createMemoryStorage, { ...(siteUrl ? { siteUrl } : {}), webhooks: { allowPrivate: true, retrySchedule: [0] } })
  onTestFinished(() => app.close())
  return app
}

const uids = (ics: string) => ics.split('\r\n').filter((l) => l.startsWith('UID:') || l.startsWith('X-CALENDAR-GLOBAL-ID:'))

/** A receiver on 127.0.0.1 keeping the JSON bodies it was sent. */
async function receiver() {
  const got: any[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push(JSON.parse(body))
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

describe('site identity (siteUrl)', () => {
  it('the same feed fetched under different Host names has the same UIDs and global ids', async () => {
    const app = await open(SITE)
    const e = await app.seed(EVENT)
    const feeds = await Promise.all(HOSTS.map((h) => app.fetch(`${h}/wp-json/calendar/events/v1/events?format=ics`)))
    for (const f of feeds) expect(f.status).toBe(200)
    const first = uids(feeds[0]!.text)
    expect(first).toEqual([`UID:${e.id}@events.example.org`, `X-CALENDAR-GLOBAL-ID:events.example.org/calendar?id=${e.id}`])
    for (const f of feeds) expect(uids(f.text)).toEqual(first)
    // A single event's feed too.
    const single = await app.fetch(`http://evil.test/wp-json/calendar/events/v1/events/${e.id}?format=ics`)
    expect(uids(single.text)).toEqual(first)
  })

  it('global_id and JSON-LD over HTTP do not follow the Host header; links still do', async () => {
    const app = await open(SITE)
    const e = await app.seed(EVENT)
    for (const h of HOSTS) {
      const res = await app.fetch(`${h}/wp-json/calendar/events/v1/events/${e.id}`)
      expect(res.status).toBe(200)
      expect(res.body.global_id).toBe(`events.example.org/calendar?id=${e.id}`)
      expect(res.body.global_id_lineage).toEqual([`events.example.org/calendar?id=${e.id}`])
      expect(res.body.json_ld.url).toBe(`${SITE}/event/identity/`)
      // `url` and `rest_url` are links for this caller: they keep the request's origin (baseUrl pins them).
      expect(res.body.rest_url).toBe(`${h}/wp-json/calendar/events/v1/events/${e.id}`)
    }
  })

  it("webhook payloads carry the same global_id as HTTP and links under the site's address", async () => {
    const app = await open(SITE)
    const hook = await receiver()
    expect((await app.post('/webhooks', { url: hook.url, events: ['event.created'] }, { as: 'administrator' })).status).toBe(201)
    const e = await app.seed(EVENT)
    await app.router.webhooks.run()
    expect(hook.got).toHaveLength(1)
    const data = hook.got[0].data
    const overHttp = await app.fetch(`http://127.0.0.1:8080/wp-json/calendar/events/v1/events/${e.id}`)
    expect(data.global_id).toBe(overHttp.body.global_id)
    expect(data.url).toBe(`${SITE}/event/identity/`)
    expect(data.rest_url).toBe(`${SITE}/wp-json/calendar/events/v1/events/${e.id}`)
  })

  it("with baseUrl too, payload links are those HTTP answers carry (baseUrl), the global_id the site's", async () => {
    const base = 'https://www.example.org/cms'
    const app = await makeApp(createMemoryStorage, { siteUrl: SITE, baseUrl: base, webhooks: { allowPrivate: true, retrySchedule: [0] } })
    onTestFinished(() => app.close())
    const hook = await receiver()
    expect((await app.post('/webhooks', { url: hook.url, events: ['event.created'] }, { as: 'administrator' })).status).toBe(201)
    const e = await app.seed(EVENT)
    await app.router.webhooks.run()
    const data = hook.got[0].data
    const overHttp = (await app.fetch(`http://127.0.0.1:8080/wp-json/calendar/events/v1/events/${e.id}`, { as: 'administrator' })).body
    expect(overHttp.rest_url).toBe(`${base}/wp-json/calendar/events/v1/events/${e.id}`)
    expect({ url: data.url, rest_url: data.rest_url, global_id: data.global_id }).toEqual({
      url: overHttp.url,
      rest_url: overHttp.rest_url,
      global_id: `events.example.org/calendar?id=${e.id}`,
    })
  })

  it('without siteUrl, baseUrl is the identity; without either, the request origin (as before)', async () => {
    const app = await makeApp(createMemoryStorage, { baseUrl: 'https://base.example/' })
    onTestFinished(() => app.close())
    const e = await app.seed(EVENT)
    const res = await app.fetch(`http://localhost:8080/wp-json/calendar/events/v1/events/${e.id}`)
    expect(res.body.global_id).toBe(`base.example?id=${e.id}`)
    const bare = await open()
    const b = await bare.seed(EVENT)
    const own = await bare.fetch(`http://localhost:8080/wp-json/calendar/events/v1/events/${b.id}`)
    expect(own.body.global_id).toBe(`localhost?id=${b.id}`)
  })

  it('a siteUrl that is not an http(s) URL stops the start with a message naming the option', () => {
    for (const bad of ['events.example.org', 'ftp://events.example.org', 'https://', 'https://x.test/?q=1', 'https://x.test/#a'])
      expect(() => resolveOptions({ siteUrl: bad }), bad).toThrow(/siteUrl/)
    expect(resolveOptions({ siteUrl: 'https://x.test/a/' }).siteUrl).toBe('https://x.test/a')
  })
})
