/**
 * Hostile sources over one backend (issue 39, findings 1, 13, 15 and 16): files whose parsing
 * never ends, impossible rules, huge answers, redirect loops and redirects that try to take the
 * credentials elsewhere. Each ends within its budget with a clear sentence; what is good in the
 * same file is imported. Registered for memory, SQLite and PostgreSQL by test/import-*.test.ts.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { importCalendar, type ImportSource } from '../../src/import/index.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'

const fixture = (name: string) => `test/fixtures/import/hostile/${name}`
const YEAR = '?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,future,draft,pending,private'

/** A throwaway HTTP server on loopback; `seen` keeps each request's path and Authorization header. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Array<{ path: string; authorization: string | undefined }> = []
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization })
    handler(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) }
}

/**
 * A TEC site of its own making (the shapes of test/support/tec-stub.ts, trimmed): `listing`
 * answers each listing's page, the API root answers itself, everything else is empty.
 */
function tecSite(listing: (key: string, page: number, origin: string) => Record<string, unknown>) {
  return serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const base = '/wp-json/tribe/events/v1'
    const key = url.pathname.slice(base.length).replace(/^\/|\/$/g, '')
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    if (!url.pathname.startsWith(base)) return res.writeHead(404).end('{}')
    if (key === '') return json({ namespace: 'tribe/events/v1', routes: {} })
    json(listing(key, Number(url.searchParams.get('page') ?? 1), `http://${req.headers.host}`))
  })
}

const tecEvent = (id: number) => ({
  id,
  global_id: `hostile.test?id=${id}`,
  title: `Event ${id}`,
  start_date: '2027-03-01 10:00:00',
  end_date: '2027-03-01 11:00:00',
  timezone: 'UTC',
  status: 'publish',
})

/** A file with one plain event. */
const GOOD =
  readFileSync('test/fixtures/import/hostile/impossible-rules.ics', 'utf8').split('BEGIN:VEVENT').slice(0, 2).join('BEGIN:VEVENT') +
  'END:VCALENDAR\r\n'

export function hostileSuite(backend: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`hostile import sources [${backend}]`, () => {
    let app: App
    afterEach(async () => app?.close())
    const titles = async () => ((await app.get(`/events${YEAR}`, { as: 'administrator' })).body.events as any[]).map((e) => e.title)
    const run = (source: ImportSource, o = {}) => importCalendar(app.router, source, o)

    describe('iCalendar that never ends', () => {
      it('an impossible rule (February 30th, daily or yearly) is refused for its event with the reason, never imported as made-up dates', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('impossible-rules.ics') })
        expect(s.created).toBe(1)
        expect(s.failed.map((f) => [f.ref, f.reason])).toEqual([
          ['UID feb30-daily@hostile.test', expect.stringMatching(/no occurrence.*gives no date: not imported/)],
          ['UID feb30-yearly@hostile.test', expect.stringMatching(/no occurrence.*gives no date: not imported/)],
        ])
        expect(await titles()).toEqual(['Still here'])
      })

      it('DURATION:P999999999999999999W fails its event with a sentence; the rest of the file is imported', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('huge-duration.ics') })
        expect(s.failed).toEqual([
          {
            ref: expect.stringContaining('UID forever@hostile.test'),
            reason: expect.stringMatching(/DURATION .* is longer than a century/),
          },
        ])
        expect(await titles()).toEqual(['Still here'])
      })

      it('a rule outside our subset that never yields (hourly on February 30th) fails its event at its time budget', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('endless-rule.ics'), budget: { eventMs: 1000 } })
        expect(s.failed).toEqual([
          { ref: 'UID hourly-feb30@hostile.test', reason: expect.stringMatching(/more than 1000 ms \(budget\.eventMs\): not imported/) },
        ])
        expect(await titles()).toEqual(['Still here'])
      })

      it('a VTIMEZONE that changes every second fails the event that uses it; the rest is imported', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('endless-zone.ics'), budget: { eventMs: 1000, memoryMb: 64 } })
        expect(s.failed).toEqual([
          { ref: expect.stringContaining('UID restless@hostile.test'), reason: expect.stringMatching(/Custom\/Restless|budget\./) },
        ])
        expect(await titles()).toEqual(['Still here'])
      })

      it('a file over its time budget is reported as a whole and nothing of it is written', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('endless-rules.ics'), budget: { eventMs: 1000, sourceMs: 2500 } })
        expect(s.failed).toEqual([{ ref: 'source', reason: 'over budget: reading the file took more than 2500 ms (budget.sourceMs)' }])
        expect(await titles()).toEqual([])
      })

      it('a file that gives more records than its budget is reported as a whole', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('impossible-rules.ics'), budget: { records: 2 } })
        expect(s.failed).toEqual([{ ref: 'source', reason: 'over budget: the file gives more than 2 records (budget.records)' }])
        expect(await titles()).toEqual([])
      })
    })

    describe('TEC sites', () => {
      it('a site that never reports total_pages ends at budget.pages, with a sentence', async () => {
        app = await makeApp(makeStorage)
        const site = await tecSite((key, page) => (key === 'events' ? { events: [tecEvent(1000 + page)] } : { [key]: [] }))
        try {
          const s = await run({ format: 'tec', location: site.url, budget: { pages: 20 } })
          expect(s.failed).toEqual([
            {
              ref: 'events (publish)',
              reason: `over budget: ${site.url}/wp-json/tribe/events/v1/events has more than 20 pages (budget.pages)`,
            },
          ])
          expect(site.seen.filter((r) => r.path.includes('/events?')).length).toBeLessThanOrEqual(21)
          expect((await titles()).length).toBe(20)
        } finally {
          await site.close()
        }
      })

      it('a site that ignores `page` (the same page again and again) ends the listing at the repeat, and says so', async () => {
        app = await makeApp(makeStorage)
        const site = await tecSite((key) =>
          key === 'categories'
            ? { categories: [{ id: 3, name: 'Loop', slug: 'loop', parent: 0 }] }
            : key === 'events'
              ? { events: [tecEvent(7)] }
              : { [key]: [] },
        )
        try {
          const s = await run({ format: 'tec', location: site.url })
          expect(s.failed).toEqual([])
          expect(s.warnings.map((w) => w.reason)).toEqual([
            `${site.url}/wp-json/tribe/events/v1/categories: page 2 repeats page 1; the listing ends there`,
            `${site.url}/wp-json/tribe/events/v1/events: page 2 repeats page 1; the listing ends there`,
          ])
          expect(await titles()).toEqual(['Event 7'])
        } finally {
          await site.close()
        }
      })

      it('next_rest_url on another origin is not followed: the other server gets nothing, the credentials stay on the site', async () => {
        app = await makeApp(makeStorage)
        const thief = await tecSite(() => ({ events: [tecEvent(666)], total_pages: 2 }))
        const site = await tecSite((key, page) =>
          key === 'events'
            ? {
                events: [tecEvent(100 + page)],
                total_pages: 2,
                ...(page === 1 ? { next_rest_url: `${thief.url}/wp-json/tribe/events/v1/events?page=2` } : {}),
              }
            : { [key]: [], total_pages: 1 },
        )
        try {
          const s = await run({ format: 'tec', location: site.url, auth: 'importer:s3cr3t app pass' })
          expect(s.failed).toEqual([])
          expect(s.warnings.map((w) => w.reason)).toEqual([
            `next_rest_url leads to another origin (${thief.url}/wp-json/tribe/events/v1/events?page=2): not followed, pages are counted instead`,
          ])
          expect(thief.seen).toEqual([])
          expect(site.seen.every((r) => r.authorization === `Basic ${Buffer.from('importer:s3cr3t app pass').toString('base64')}`)).toBe(
            true,
          )
          expect((await titles()).sort()).toEqual(['Event 101', 'Event 102'])
        } finally {
          await site.close()
          await thief.close()
        }
      })
    })

    describe('TEC sites that hold on', () => {
      it('a categories listing that never ends is cut at budget.bytes of terms kept, long before budget.pages', async () => {
        app = await makeApp(makeStorage)
        const blurb = 'x'.repeat(1000)
        const site = await tecSite((key, page) =>
          key === 'categories'
            ? {
                categories: Array.from({ length: 100 }, (_, i) => ({
                  id: page * 100 + i,
                  name: `Term ${page}-${i}`,
                  slug: `t-${page}-${i}`,
                  parent: 0,
                  description: blurb,
                })),
              }
            : { [key]: [] },
        )
        try {
          const s = await run({ format: 'tec', location: site.url, budget: { bytes: 1024 * 1024 } })
          expect(s.failed).toEqual([
            {
              ref: 'terms, venues and organizers',
              reason: `over budget: the categories of ${site.url}/wp-json/tribe/events/v1 take more than 1048576 bytes (budget.bytes)`,
            },
          ])
          expect(site.seen.filter((r) => r.path.includes('/categories?')).length).toBeLessThanOrEqual(12)
        } finally {
          await site.close()
        }
      })

      it('a page that never answers ends the run at budget.sourceMs, not at the request timeout', async () => {
        app = await makeApp(makeStorage)
        const site = await serve((req, res) => {
          const url = new URL(req.url ?? '/', 'http://x')
          const key = url.pathname.replace('/wp-json/tribe/events/v1', '').replace(/^\/|\/$/g, '')
          const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
          if (key === '') return json({ namespace: 'tribe/events/v1', routes: {} })
          if (key !== 'events') return json({ [key]: [] })
          // The first page answers; the second never does (the connection stays open).
          if (url.searchParams.get('page') === '1') return json({ events: [tecEvent(1)], total_pages: 2 })
        })
        try {
          const s = await run({ format: 'tec', location: site.url, budget: { sourceMs: 1500 }, timeoutMs: 600_000 })
          expect(s.failed).toEqual([
            { ref: 'events (publish)', reason: 'over budget: reading the site took more than 1500 ms (budget.sourceMs)' },
          ])
          expect(await titles()).toEqual(['Event 1'])
        } finally {
          site.close().catch(() => undefined)
        }
      })
    })

    describe('downloads', () => {
      it('an answer larger than budget.bytes is abandoned with a clear error, with or without a Content-Length', async () => {
        app = await makeApp(makeStorage)
        const big = 'X'.repeat(64 * 1024)
        const site = await serve((req, res) => {
          if (req.url === '/declared.ics') return res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) }).end(big.repeat(32))
          // Chunked, no length: it never stops on its own.
          res.writeHead(200, { 'content-type': 'text/calendar' })
          const timer = setInterval(() => res.write(big), 1)
          res.on('close', () => clearInterval(timer))
        })
        try {
          for (const path of ['/declared.ics', '/endless.ics']) {
            const s = await run({ format: 'ics', location: `${site.url}${path}`, budget: { bytes: 1024 * 1024 } })
            expect(s.failed).toEqual([
              { ref: 'source', reason: `over budget: the answer of ${site.url}${path} is larger than 1048576 bytes (budget.bytes)` },
            ])
          }
        } finally {
          await site.close()
        }
        expect(await titles()).toEqual([])
      })

      it('a slow trickle ends at budget.sourceMs, not at the request timeout; nothing is written', async () => {
        app = await makeApp(makeStorage)
        const site = await serve((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/calendar' })
          res.write('BEGIN:VCALENDAR\r\n')
          const timer = setInterval(() => res.write('X'), 100)
          res.on('close', () => clearInterval(timer))
        })
        try {
          const s = await run({ format: 'ics', location: `${site.url}/slow.ics`, budget: { sourceMs: 1500 }, timeoutMs: 600_000 })
          expect(s.failed).toEqual([{ ref: 'source', reason: 'over budget: reading the file took more than 1500 ms (budget.sourceMs)' }])
        } finally {
          await site.close()
        }
        expect(await titles()).toEqual([])
      })

      it('credentials are never sent over http: after an https: feed redirects there, nor to a next_rest_url downgraded to http:', async () => {
        app = await makeApp(makeStorage)
        const seen: Array<{ url: string; authorization: string | null }> = []
        const fake: typeof fetch = (input, init) => {
          const url = String(input)
          seen.push({ url, authorization: new Headers(init?.headers).get('authorization') })
          const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
          if (url === 'https://calendar.example/team.ics')
            return Promise.resolve(new Response(null, { status: 302, headers: { location: 'http://calendar.example/team.ics' } }))
          if (url === 'http://calendar.example/team.ics')
            return Promise.resolve(new Response(GOOD, { headers: { 'content-type': 'text/calendar' } }))
          const path = new URL(url).pathname.replace('/wp-json/tribe/events/v1', '').replace(/^\/|\/$/g, '')
          if (path === '') return Promise.resolve(json({ namespace: 'tribe/events/v1', routes: {} }))
          if (path !== 'events') return Promise.resolve(json({ [path]: [] }))
          const page = Number(new URL(url).searchParams.get('page') ?? 1)
          return Promise.resolve(
            json({
              events: [tecEvent(200 + page)],
              total_pages: 2,
              ...(page === 1 ? { next_rest_url: 'http://site.example/wp-json/tribe/events/v1/events?page=2' } : {}),
            }),
          )
        }
        // Public addresses, so that only the credentials rule is at stake.
        const resolveHost = () => Promise.resolve(['93.184.216.34'])
        const feed = await run({
          format: 'ics',
          location: 'https://calendar.example/team.ics',
          headers: { authorization: 'Bearer feed-token' },
          fetch: fake,
          resolveHost,
        })
        expect(feed.failed).toEqual([])
        expect(seen.map((r) => [r.url, r.authorization])).toEqual([
          ['https://calendar.example/team.ics', 'Bearer feed-token'],
          ['http://calendar.example/team.ics', null],
        ])
        seen.length = 0
        const tec = await run({
          format: 'tec',
          location: 'https://site.example',
          auth: 'importer:s3cr3t app pass',
          fetch: fake,
          resolveHost,
        })
        expect(tec.failed).toEqual([])
        expect(tec.warnings.map((w) => w.reason)).toContainEqual(
          expect.stringMatching(/^next_rest_url leads to another origin \(http:\/\/site\.example\//),
        )
        expect(seen.filter((r) => r.url.startsWith('http:'))).toEqual([])
        expect(seen.every((r) => r.authorization?.startsWith('Basic '))).toBe(true)
      })

      it('a redirect loop ends after budget.redirects hops', async () => {
        app = await makeApp(makeStorage)
        const site = await serve((req, res) => res.writeHead(302, { location: `/again${req.url}` }).end())
        try {
          const s = await run({ format: 'ics', location: `${site.url}/cal.ics`, budget: { redirects: 3 } })
          expect(s.failed).toEqual([{ ref: 'source', reason: `${site.url}/cal.ics redirects more than 3 times` }])
          expect(site.seen.length).toBe(4)
        } finally {
          await site.close()
        }
      })

      it('credentials go to the configured origin only; a redirect elsewhere is refused on a private address unless allowed, and never gets them', async () => {
        app = await makeApp(makeStorage)
        const other = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(GOOD))
        const feed = await serve((req, res) => {
          if (req.url === '/same.ics') return res.writeHead(301, { location: '/moved.ics' }).end()
          if (req.url === '/moved.ics') return res.writeHead(200).end(GOOD)
          res.writeHead(302, { location: `${other.url}/stolen.ics` }).end()
        })
        const headers = { authorization: 'Basic c2VjcmV0OnBhc3M=' }
        try {
          // The configured address is trusted (loopback here); a redirect on it keeps the credentials.
          const same = await run({ format: 'ics', location: `${feed.url}/same.ics`, headers })
          expect(same.failed).toEqual([])
          expect(feed.seen.map((r) => r.authorization)).toEqual([headers.authorization, headers.authorization])
          const refused = await run({ format: 'ics', location: `${feed.url}/away.ics`, headers, name: 'away' })
          expect(refused.failed).toEqual([
            {
              ref: 'source',
              reason: expect.stringMatching(
                /^refused: http:\/\/127\.0\.0\.1:\d+\/stolen\.ics \(named by the source, not configured\) is at 127\.0\.0\.1, a private.*allowPrivateAddresses/,
              ),
            },
          ])
          expect(other.seen).toEqual([])
          const allowed = await run({ format: 'ics', location: `${feed.url}/away.ics`, headers, name: 'away', allowPrivateAddresses: true })
          expect(allowed.failed).toEqual([])
          expect(other.seen).toEqual([{ path: '/stolen.ics', authorization: undefined }])
        } finally {
          await feed.close()
          await other.close()
        }
      })
    })
  })
}
