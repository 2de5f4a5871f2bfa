/**
 * PostgreSQL read replicas with exact read-your-writes (docs/storage-setup.md, "Read replicas"):
 * a primary and a streaming replica of it, started here on loopback, the replica applying each
 * commit 400 ms late (`recovery_min_apply_delay`) so that reading it right after a write really is
 * stale. Two routers, each over a storage of its own (its own pools, driver and caches: what two
 * processes would have), write through one and read through the other.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import pg from 'pg'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import type { CalendarOptions } from '../src/options.js'
import { createSqlStorage, openPostgres, type SqlDriver, type SqlStorage } from '../src/storage/sql/index.js'
import { authenticate, NOW } from './http/harness.js'
import { BOOKMARK_COOKIE, visitorApi } from '../examples/node-server/pages/visitor-api.js'
import { inCi } from './support/postgres-setup.js'
import { findPostgresBin, startPostgres, startReplica, type PgServer } from './support/postgres-server.js'
import { startExample } from './support/example-server.js'

const bin = findPostgresBin()
// In CI the binaries are installed (.ci/run): a missing one fails there instead of skipping.
const describeReplicas =
  bin || inCi()
    ? describe
    : // Skip reason: no PostgreSQL binaries on this machine (outside CI only), named in the title.
      (name: string, fn: () => void) => describe.skip(`${name} (no PostgreSQL binaries: apt-get install postgresql)`, fn)
const API = 'http://127.0.0.1/wp-json/calendar/events/v1'
const APPLY_DELAY_MS = 400

let primary: PgServer | undefined
let replica: PgServer | undefined
const opened: { storage: SqlStorage; driver: SqlDriver; router: CalendarRouter }[] = []

async function node(cache: boolean, more: CalendarOptions = {}) {
  const driver = await openPostgres(primary!.url, {
    max: 4,
    replicas: [replica!.url],
    replicaHealth: { pollMs: 50, maxLagMs: 3000 },
  })
  const storage = createSqlStorage({ driver })
  const router = createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), ...(cache ? { cache: {} } : {}), ...more })
  opened.push({ storage, driver, router })
  return { storage, driver, router }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function call(router: CalendarRouter, method: string, path: string, body?: unknown, bookmark?: string | null) {
  const headers: Record<string, string> = { authorization: 'Bearer administrator' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (bookmark) headers['x-calendar-bookmark'] = bookmark
  const res = await router.fetch(new Request(`${API}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) }))
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, text }
}

/** Reads through `n` until one is served by its replica: its poll runs and found the replica fresh. */
async function warm(n: { router: CalendarRouter; driver: SqlDriver }) {
  const before = n.driver.replicas!.counts().replicas[0]!
  for (let k = 0; k < 200 && n.driver.replicas!.counts().replicas[0] === before; k++) {
    await call(n.router, 'GET', '/events?per_page=1')
    await sleep(20)
  }
}

/** A webhook receiver on 127.0.0.1: the payloads it was sent. */
async function receiver() {
  const got: Array<{ type: string; data: { id: number; title?: string } }> = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push(JSON.parse(body))
      res.writeHead(200)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

/**
 * Scans of the calendar's tables the server behind `url` has counted (its replica polls and this
 * query touch none). The counters are published up to a second or so late.
 */
async function scansOn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query(
      `SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)::int AS n FROM pg_stat_user_tables`,
    )
    return rows[0].n as number
  } finally {
    await client.end()
  }
}

const eventBody = (title: string) => ({ title, start_date: '2027-05-01 10:00', end_date: '2027-05-01 11:00', status: 'publish' })

describeReplicas('PostgreSQL read replicas', () => {
  let a: Awaited<ReturnType<typeof node>>
  let b: Awaited<ReturnType<typeof node>>
  /** With a response cache, which follows the journal of the primary. */
  let c: Awaited<ReturnType<typeof node>>

  beforeAll(async () => {
    primary = await startPostgres(bin!)
    replica = await startReplica(bin!, primary, APPLY_DELAY_MS)
    a = await node(false)
    b = await node(false)
    c = await node(true)
    await a.storage.migrate()
    // The replica serves reads once it has the schema (until then they fail over to the primary).
    const probe = new pg.Client({ connectionString: replica.url })
    await probe.connect()
    while (!(await probe.query(`SELECT to_regclass('calendar_journal_floor') AS t`)).rows[0].t) await sleep(50)
    await probe.end()
  }, 60_000)

  afterAll(async () => {
    for (const o of opened) {
      o.router.close()
      await o.storage.close()
    }
    await replica?.destroy()
    await primary?.destroy()
  }, 60_000)

  it('a read carrying the write bookmark sees the write on another router; without it the replica answers stale', async () => {
    let staleWith = 0
    let staleWithout = 0
    for (let k = 0; k < 12; k++) {
      const created = await call(a.router, 'POST', '/events', eventBody(`Created ${k}`))
      expect(created.status, created.text).toBe(201)
      const bookmark = created.headers.get('x-calendar-bookmark')
      expect(bookmark).toMatch(/^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/)
      const id = created.body.id as number
      if ((await call(b.router, 'GET', `/events/${id}`)).status !== 200) staleWithout++
      for (const reader of [b, c]) if ((await call(reader.router, 'GET', `/events/${id}`, undefined, bookmark)).status !== 200) staleWith++

      const updated = await call(a.router, 'POST', `/events/${id}`, { title: `Updated ${k}` })
      expect(updated.status, updated.text).toBe(200)
      const after = updated.headers.get('x-calendar-bookmark')
      if ((await call(b.router, 'GET', `/events/${id}`)).body?.title !== `Updated ${k}`) staleWithout++
      for (const reader of [c, b]) {
        const reread = await call(reader.router, 'GET', `/events/${id}`, undefined, after)
        expect(reread.status).toBe(200)
        if (reread.body.title !== `Updated ${k}`) staleWith++
      }
    }
    expect(staleWith).toBe(0)
    // The reads without a bookmark went to the replica, 400 ms behind.
    expect(staleWithout).toBeGreaterThan(0)
    expect(b.driver.replicas!.counts().replicas[0]).toBeGreaterThan(0)
    // Once the replica has replayed the write, a read carrying its bookmark is the replica's.
    const last = await call(a.router, 'POST', '/events', eventBody('Replayed'))
    await sleep(APPLY_DELAY_MS * 2)
    const before = b.driver.replicas!.counts()
    const read = await call(b.router, 'GET', `/events/${last.body.id}`, undefined, last.headers.get('x-calendar-bookmark'))
    expect(read.body.title).toBe('Replayed')
    const after = b.driver.replicas!.counts()
    expect(after.replicas[0]!).toBeGreaterThan(before.replicas[0]!)
    expect(after.primary).toBe(before.primary)
  })

  it('the example pages read with the bookmark cookie the editor keeps: the visitor sees their write', async () => {
    let stale = 0
    for (let k = 0; k < 6; k++) {
      const created = await call(a.router, 'POST', '/events', eventBody(`Page ${k}`))
      const bookmark = created.headers.get('x-calendar-bookmark')!
      const cookie = `${BOOKMARK_COOKIE}=${encodeURIComponent(bookmark)}; calendar_token=administrator`
      const api = visitorApi(b.router, new Request(`http://127.0.0.1/event/${created.body.slug}/`, { headers: { cookie } }))
      const read = await api.get(`/events/${created.body.id}`)
      if (read.status !== 200 || read.body.title !== `Page ${k}`) stale++
    }
    expect(stale).toBe(0)
    // A cookie that is not a bookmark the API gave is not sent on (the page still answers).
    const junk = visitorApi(b.router, new Request('http://127.0.0.1/', { headers: { cookie: `${BOOKMARK_COOKIE}=nonsense` } }))
    expect((await junk.get('/events')).status).toBe(200)
  })

  it('refuses a malformed bookmark with a 400', async () => {
    const res = await call(b.router, 'GET', '/events', undefined, 'not-a-position')
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('calendar_invalid_bookmark')
  })

  it('sync chains whose pages alternate between routers end equal to a full read while a writer runs', async () => {
    let writing = true
    let last: string | null = null
    const ids: number[] = []
    const writer = (async () => {
      for (let k = 0; writing; k++) {
        const pick = ids[k % 7]
        const res =
          k % 3 === 0 || pick === undefined
            ? await call(a.router, 'POST', '/events', eventBody(`Sync ${k}`))
            : k % 5 === 0
              ? await call(a.router, 'DELETE', `/events/${pick}?force=true`)
              : await call(a.router, 'POST', `/events/${pick}`, { title: `Sync edit ${k}` })
        expect(res.status, res.text).toBeLessThan(300)
        if (res.status === 201) ids.push(res.body.id)
        if (k % 5 === 0 && pick !== undefined && res.status === 200) ids.splice(ids.indexOf(pick), 1)
        last = res.headers.get('x-calendar-bookmark') ?? last
        await sleep(15)
      }
    })()
    const routers = [a.router, b.router, c.router]
    let turn = 0
    /** One sync from `token`, each page from the next router, into `seen`; the token it ends with. */
    const chain = async (token: string, seen: Map<number, string>, bookmark: string | null = null) => {
      let path = `/events?sync_token=${encodeURIComponent(token)}&per_page=4`
      for (;;) {
        const res = await call(routers[turn++ % routers.length]!, 'GET', path, undefined, bookmark)
        expect(res.status, res.text).toBe(200)
        for (const e of res.body.events) seen.set(e.id, `${e.title}|${e.modified}`)
        for (const id of res.body.deleted) seen.delete(id)
        if (!res.body.next_rest_url) return res.body.sync_token as string
        const next = new URL(res.body.next_rest_url)
        path = next.pathname.replace('/wp-json/calendar/events/v1', '') + next.search
      }
    }
    const mirror = new Map<number, string>()
    let token = await chain('*', mirror)
    const until = performance.now() + 3000
    while (performance.now() < until) {
      token = await chain(token, mirror)
      await sleep(30)
    }
    writing = false
    await writer
    // The last chains carry the last write's bookmark: they see at least everything written.
    token = await chain(token, mirror, last)
    const full = new Map<number, string>()
    await chain('*', full, last)
    expect(full.size).toBeGreaterThan(5)
    expect(new Map([...mirror].sort())).toEqual(new Map([...full].sort()))
  }, 30_000)

  it('never serves a sync page from a replica behind its token, in the full listing or in the changes', async () => {
    /** One page: its events and deletions into `seen`; the next page's path, or the final token. */
    const page = async (router: CalendarRouter, path: string, seen: Map<number, string>, bookmark: string | null) => {
      const res = await call(router, 'GET', path, undefined, bookmark)
      expect(res.status, res.text).toBe(200)
      for (const e of res.body.events) seen.set(e.id, e.title)
      for (const id of res.body.deleted) seen.delete(id)
      const next = res.body.next_rest_url ? new URL(res.body.next_rest_url) : null
      return next
        ? { path: next.pathname.replace('/wp-json/calendar/events/v1', '') + next.search }
        : { token: res.body.sync_token as string }
    }
    const ids: number[] = []
    for (let k = 0; k < 6; k++) ids.push((await call(a.router, 'POST', '/events', eventBody(`Paged ${k}`))).body.id)
    await sleep(APPLY_DELAY_MS * 2)
    await warm(b)
    // The full listing: its first page on the primary (the bookmark of an edit the replica has
    // not replayed), the rest without a bookmark, where the replica would show the record as before.
    const edited = await call(a.router, 'POST', `/events/${ids[5]}`, { title: 'Paged 5, edited' })
    const mirror = new Map<number, string>()
    let step = await page(a.router, '/events?sync_token=*&per_page=3', mirror, edited.headers.get('x-calendar-bookmark'))
    while (step.path) step = await page(b.router, step.path, mirror, null)
    expect(mirror.get(ids[5]!)).toBe('Paged 5, edited')
    // The changes: the first page on the primary again, the next ones where the replica has not
    // replayed the stretch of journal the token names.
    await warm(b)
    const bookmarks: string[] = []
    for (const id of ids.slice(0, 5))
      bookmarks.push((await call(a.router, 'POST', `/events/${id}`, { title: `Changed ${id}` })).headers.get('x-calendar-bookmark')!)
    step = await page(a.router, `/events?sync_token=${encodeURIComponent(step.token!)}&per_page=2`, mirror, bookmarks.at(-1)!)
    while (step.path) step = await page(b.router, step.path, mirror, null)
    for (const id of ids.slice(0, 5)) expect(mirror.get(id)).toBe(`Changed ${id}`)
  })

  it('the response cache follows other processes through the journal read on the replica', async () => {
    const created = await call(a.router, 'POST', '/events', eventBody('Cached'))
    const id = created.body.id as number
    await sleep(APPLY_DELAY_MS * 2)
    await warm(c)
    expect((await call(c.router, 'GET', `/events/${id}`)).body.title).toBe('Cached')
    // Cache hits read nothing themselves: what the replica serves meanwhile is the coherence's poll.
    const before = c.driver.replicas!.counts()
    for (let k = 0; k < 10; k++) {
      expect((await call(c.router, 'GET', `/events/${id}`)).body.title).toBe('Cached')
      await sleep(100)
    }
    const after = c.driver.replicas!.counts()
    expect(after.replicas[0]! - before.replicas[0]!).toBeGreaterThan(2)
    expect(after.primary).toBe(before.primary)
    // Another process's edit reaches the cache once the replica has replayed it, and an answer
    // that showed it never goes back.
    await call(a.router, 'POST', `/events/${id}`, { title: 'Cached, edited' })
    const titles: string[] = []
    for (const deadline = performance.now() + 10_000; performance.now() < deadline; await sleep(50)) {
      titles.push((await call(c.router, 'GET', `/events/${id}`)).body.title as string)
      if (titles.filter((t) => t === 'Cached, edited').length >= 10) break
    }
    const first = titles.indexOf('Cached, edited')
    expect(first).toBeGreaterThanOrEqual(0)
    expect(titles.slice(first).every((t) => t === 'Cached, edited')).toBe(true)
  })

  it("the webhook dispatcher reads on the replica what it has replayed, and its own process's commits at once", async () => {
    const hook = await receiver()
    const w = await node(false, { webhooks: { allowPrivate: true, retrySchedule: [0], timeoutMs: 5000 } })
    const made = await call(w.router, 'POST', '/webhooks', { url: hook.url, events: ['event.*'] })
    expect(made.status, made.text).toBe(201)
    await w.router.webhooks.run()
    // Its own write, dispatched right after (the replica has not replayed it yet): on the primary.
    const own = await call(w.router, 'POST', '/events', eventBody('Hooked here'))
    const ownRun = await w.router.webhooks.run()
    expect(ownRun.dispatched).toBe(1)
    expect(hook.got.map((p) => p.data.title)).toEqual(['Hooked here'])
    expect(hook.got[0]!.data.id).toBe(own.body.id)
    // Another process's write, once the replica has it: the journal and the record from the replica.
    const other = await call(a.router, 'POST', '/events', eventBody('Hooked there'))
    await sleep(APPLY_DELAY_MS * 2)
    await warm(w)
    const before = w.driver.replicas!.counts()
    expect((await w.router.webhooks.run()).dispatched).toBe(1)
    const after = w.driver.replicas!.counts()
    expect(hook.got.map((p) => [p.type, p.data.id, p.data.title])).toEqual([
      ['event.created', own.body.id, 'Hooked here'],
      ['event.created', other.body.id, 'Hooked there'],
    ])
    expect(after.replicas[0]! - before.replicas[0]!).toBeGreaterThanOrEqual(2)
    expect(after.primary).toBe(before.primary)
  })

  it(
    'the example server reads CALENDAR_DATABASE_REPLICA_URLS: a bookmark carried to another server sees the write, sync pages alternate between servers, reads go to the replica',
    { timeout: 120_000 },
    async () => {
      const env = {
        CALENDAR_DATABASE_URL: primary!.url,
        CALENDAR_DATABASE_REPLICA_URLS: ` ${replica!.url} ,`,
        CALENDAR_API_TOKENS: 'admintoken:administrator',
        CALENDAR_DEMO: 'off',
      }
      const [one, two] = await Promise.all([startExample(env), startExample(env)])
      const auth = { authorization: 'Bearer admintoken' }
      let stale = 0
      for (let k = 0; k < 5; k++) {
        const res = await fetch(`${one!.root}/events`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(eventBody(`Across servers ${k}`)),
        })
        expect(res.status).toBe(201)
        const bookmark = res.headers.get('x-calendar-bookmark')
        expect(bookmark).toMatch(/^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/)
        const { id } = (await res.json()) as { id: number }
        const read = await fetch(`${two!.root}/events/${id}`, { headers: { ...auth, 'x-calendar-bookmark': bookmark! } })
        if (read.status !== 200 || ((await read.json()) as { title: string }).title !== `Across servers ${k}`) stale++
        const updated = await fetch(`${one!.root}/events/${id}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Across servers ${k}, edited` }),
        })
        expect(updated.status).toBe(200)
        const reread = await fetch(`${two!.root}/events/${id}`, {
          headers: { ...auth, 'x-calendar-bookmark': updated.headers.get('x-calendar-bookmark')! },
        })
        if (((await reread.json()) as { title: string }).title !== `Across servers ${k}, edited`) stale++
      }
      expect(stale).toBe(0)

      // Sync pages alternating between the two processes (each with its response cache) while the
      // first one writes, ending equal to a full read once they carry the last write's bookmark.
      let writing = true
      let last: string | null = null
      const writer = (async () => {
        const mine: number[] = []
        for (let k = 0; writing; k++) {
          const pick = mine[k % 4]
          const [path, body] =
            pick === undefined || k % 3 === 0 ? ['/events', eventBody(`Synced ${k}`)] : [`/events/${pick}`, { title: `Synced edit ${k}` }]
          const res = await fetch(`${one!.root}${path}`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
          expect(res.status).toBeLessThan(300)
          if (res.status === 201) mine.push(((await res.json()) as { id: number }).id)
          else await res.body?.cancel()
          last = res.headers.get('x-calendar-bookmark') ?? last
          await sleep(20)
        }
      })()
      let turn = 0
      const chain = async (token: string, seen: Map<number, string>, bookmark: string | null = null) => {
        let search = `?sync_token=${encodeURIComponent(token)}&per_page=4`
        for (;;) {
          const root = [one!, two!][turn++ % 2]!.root
          const res = await fetch(`${root}/events${search}`, {
            headers: { ...auth, ...(bookmark ? { 'x-calendar-bookmark': bookmark } : {}) },
          })
          expect(res.status).toBe(200)
          const page = (await res.json()) as {
            events: Array<{ id: number; title: string; modified: string }>
            deleted: number[]
            next_rest_url?: string
            sync_token: string
          }
          for (const e of page.events) seen.set(e.id, `${e.title}|${e.modified}`)
          for (const id of page.deleted) seen.delete(id)
          if (!page.next_rest_url) return page.sync_token
          search = new URL(page.next_rest_url).search
        }
      }
      const mirror = new Map<number, string>()
      let token = await chain('*', mirror)
      for (const until = performance.now() + 3000; performance.now() < until; await sleep(30)) token = await chain(token, mirror)
      writing = false
      await writer
      await chain(token, mirror, last)
      const full = new Map<number, string>()
      await chain('*', full, last)
      expect(full.size).toBeGreaterThan(10)
      expect(new Map([...mirror].sort())).toEqual(new Map([...full].sort()))
      // Reads without a bookmark (distinct queries, so the response cache cannot answer them) reach the replica.
      await sleep(APPLY_DELAY_MS * 2)
      const before = await scansOn(replica!.url)
      for (let k = 1; k <= 20; k++) expect((await fetch(`${two!.root}/events?per_page=${k}`)).status).toBe(200)
      let scans = 0
      for (const deadline = performance.now() + 15_000; scans < 20 && performance.now() < deadline; await sleep(250))
        scans = (await scansOn(replica!.url)) - before
      expect(scans).toBeGreaterThanOrEqual(20)
    },
  )

  it('keeps answering while the replica is stopped and started again, then uses it again', async () => {
    const statuses: number[] = []
    const created = await call(a.router, 'POST', '/events', eventBody('Through a restart'))
    const id = created.body.id as number
    const reads = async (n: number) => {
      for (let k = 0; k < n; k++) {
        statuses.push((await call(b.router, 'GET', `/events/${id}`, undefined, created.headers.get('x-calendar-bookmark'))).status)
        statuses.push((await call(b.router, 'GET', '/events?per_page=3')).status)
        await sleep(10)
      }
    }
    await reads(10)
    const stopping = replica!.stop()
    await reads(20)
    await stopping
    await reads(20)
    await replica!.start()
    const before = b.driver.replicas!.counts().replicas[0]!
    const deadline = performance.now() + 15_000
    while (b.driver.replicas!.counts().replicas[0] === before && performance.now() < deadline) await reads(5)
    expect(b.driver.replicas!.counts().replicas[0]).toBeGreaterThan(before)
    expect(statuses.filter((s) => s !== 200)).toEqual([])
  }, 40_000)
})
