/**
 * Several routers on one database, each with its response cache on, as several server processes
 * are: a read through one never answers what a write committed through another made stale
 * (SQLite: from the very next read; PostgreSQL: once `cache.pollMs` has passed since the commit),
 * and what that write did not touch stays cached.
 *
 * The oracle is a router without a cache over the reading router's own storage: after the writes,
 * every watched URL must read the same (status, body) through both. SQLite is tested with two
 * storages on one file in this process and with two `npm start` servers in processes of their
 * own; PostgreSQL with two connection pools on one schema, also while an older transaction holds
 * the journal's horizon back, and with two `npm start` servers on one schema.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEFAULT_POLL_MS } from '../src/cache/response-cache.js'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { API, authenticate, NOW } from './http/harness.js'
import { admin as pgAdmin, pgDescribe, schemaStorage, url as pgUrl } from './support/pg-schema.js'
import { startExample } from './support/example-server.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-coherence-'))
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await pgAdmin?.end()
})
let files = 0

const ADMIN = { authorization: 'Bearer administrator' }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function get(router: CalendarRouter, path: string) {
  const res = await router.fetch(new Request(API + path))
  return { status: res.status, body: (await res.json()) as any }
}

async function send(router: CalendarRouter, method: string, path: string, body: unknown) {
  const res = await router.fetch(
    new Request(API + path, { method, headers: { ...ADMIN, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  )
  const text = await res.text()
  expect(res.status, text).toBeLessThan(300)
  return JSON.parse(text) as any
}

const options = { authenticate, now: () => new Date(NOW) }

/** A writing router over `first` and a reading one over `second` (the same data), both cached. */
function routers(first: Storage, second: Storage) {
  const a = createCalendarRouter(first, { ...options, cache: {} })
  const b = createCalendarRouter(second, { ...options, cache: {} })
  const oracle = createCalendarRouter(second, options)
  onTestFinished(() => {
    a.close()
    b.close()
  })
  return { a, b, oracle }
}

/**
 * Fills b's cache, writes through a (title, venue, a new event, an unpublish, an organizer left
 * alone), waits `settle`, and checks that b answers every URL as the oracle does, with the
 * untouched organizer still a hit.
 */
async function readAfterWrite(first: Storage, second: Storage, settle: () => Promise<unknown>) {
  const { a, b, oracle } = routers(first, second)
  const venue = await send(a, 'POST', '/venues', { venue: 'Main Hall' })
  const organizer = await send(a, 'POST', '/organizers', { organizer: 'Acme' })
  const day = { start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' }
  const e1 = await send(a, 'POST', '/events', { title: 'Before', ...day, venue: venue.id, categories: ['Music'] })
  const e2 = await send(a, 'POST', '/events', { title: 'Public', ...day, status: 'publish' })
  const urls = [
    `/events/${e1.id}`,
    `/events/${e2.id}`,
    '/events',
    `/venues/${venue.id}`,
    '/venues',
    '/categories',
    `/categories/${e1.categories[0].id}`,
  ]
  for (const url of [...urls, `/organizers/${organizer.id}`]) expect((await get(b, url)).status).toBe(200)
  expect((await get(b, `/events/${e1.id}`)).body.title).toBe('Before')

  await send(a, 'PATCH', `/events/${e1.id}`, { title: 'After' })
  await send(a, 'PATCH', `/venues/${venue.id}`, { venue: 'Grand Hall' })
  await send(a, 'POST', '/events', { title: 'Second', ...day, categories: ['Music'] })
  await send(a, 'PATCH', `/events/${e2.id}`, { status: 'draft' })
  await settle()

  for (const url of urls) expect(await get(b, url), url).toEqual(await get(oracle, url))
  expect((await get(b, `/events/${e1.id}`)).body).toMatchObject({ title: 'After', venue: { venue: 'Grand Hall' } })
  expect((await get(b, `/events/${e2.id}`)).status).not.toBe(200)
  expect((await get(b, `/categories/${e1.categories[0].id}`)).body.count).toBe(2)
  // Nothing written touched the organizer: still served from b's cache.
  const before = b.cacheStats()!.hits
  expect((await get(b, `/organizers/${organizer.id}`)).status).toBe(200)
  expect(b.cacheStats()!.hits).toBe(before + 1)
}

const sqliteFile = () => join(dir, `coherence-${++files}.db`)

async function sqlitePair() {
  const file = sqliteFile()
  const first = createSqlStorage({ driver: await openSqliteFile(file) })
  await first.migrate()
  const second = createSqlStorage({ driver: await openSqliteFile(file) })
  onTestFinished(async () => {
    await second.close()
    await first.close()
  })
  return { first, second }
}

describe('response cache across storages on one SQLite file', () => {
  it('answers a read made after another storage’s commit with what it committed', async () => {
    const { first, second } = await sqlitePair()
    await readAfterWrite(first, second, async () => undefined)
  })

  it('never answers an earlier state, write after write', async () => {
    const { first, second } = await sqlitePair()
    const { a, b } = routers(first, second)
    const event = await send(a, 'POST', '/events', { title: 'Edit 0', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' })
    for (let n = 1; n <= 20; n++) {
      expect((await get(b, `/events/${event.id}`)).body.title).toBe(`Edit ${n - 1}`)
      expect((await get(b, '/events')).body.events[0].title).toBe(`Edit ${n - 1}`)
      await send(a, 'PATCH', `/events/${event.id}`, { title: `Edit ${n}` })
    }
    expect(b.cacheStats()!.hits).toBe(0) // every read followed a write that touched it
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('Edit 20')
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('Edit 20')
    expect(b.cacheStats()!.hits).toBe(1)
  })

  it('checks each hit against PRAGMA data_version, and reads the journal only when it moved', async () => {
    const { first, second } = await sqlitePair()
    const { a, b } = routers(first, second)
    const head = vi.spyOn(second, 'journalHead')
    const journal = vi.spyOn(second, 'readJournal')
    const event = await send(a, 'POST', '/events', { title: 'Once', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' })
    for (let i = 0; i < 10; i++) await get(b, `/events/${event.id}`)
    expect(b.cacheStats()!.hits).toBe(9)
    // Where the journal stood when b first looked; nothing to read since.
    expect([head.mock.calls.length, journal.mock.calls.length]).toEqual([1, 0])
    await send(a, 'PATCH', `/events/${event.id}`, { title: 'Twice' })
    for (let i = 0; i < 10; i++) expect((await get(b, `/events/${event.id}`)).body.title).toBe('Twice')
    expect([head.mock.calls.length, journal.mock.calls.length]).toEqual([1, 1])
  })

  it('reads data_version as a read starting then would see, not inside a snapshot too old to share', async () => {
    const file = sqliteFile()
    const driver = await openSqliteFile(file)
    const storage = createSqlStorage({ driver })
    await storage.migrate()
    const other = new Database(file) // another program: no commit of it reaches this process's drivers
    onTestFinished(async () => {
      other.close()
      await storage.close()
    })
    await storage.getTerm(1) // opens the reading connection's shared snapshot
    const before = await driver.dataVersion!()
    other.exec('CREATE TABLE scratch (x)')
    // No turn of the event loop has ended the snapshot, but it is older than a read may share.
    for (const until = performance.now() + 10; performance.now() < until;);
    const after = await driver.dataVersion!()
    expect(after).not.toBe(before)
    await storage.getTerm(1)
    expect(await driver.dataVersion!()).toBe(after)
  })

  it('sees every commit of another program from the next turn, though it answers from the WAL index while nothing changed', async () => {
    const file = sqliteFile()
    const driver = await openSqliteFile(file)
    const storage = createSqlStorage({ driver })
    await storage.migrate()
    const other = new Database(file) // another program, writing in WAL mode through its own connection
    other.exec('CREATE TABLE scratch (x)')
    onTestFinished(async () => {
      other.close()
      await storage.close()
    })
    const turn = () => new Promise((resolve) => setImmediate(resolve))
    const insert = other.prepare('INSERT INTO scratch VALUES (?)')
    let before = await driver.dataVersion!()
    for (let n = 0; n < 20; n++) {
      await turn()
      expect(await driver.dataVersion!()).toBe(before) // nothing committed: the same answer
      // Alternately a commit that only grows the log and one after a checkpoint started it over.
      if (n % 2) other.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      insert.run(n)
      await turn()
      const after = await driver.dataVersion!()
      expect(after).not.toBe(before)
      before = after
    }
  })

  it('drops the whole cache when the journal was compacted past the position it had read', async () => {
    const { first, second } = await sqlitePair()
    const { a, b } = routers(first, second)
    const day = { start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' }
    const one = await send(a, 'POST', '/events', { title: 'One', ...day })
    const two = await send(a, 'POST', '/events', { title: 'Two', ...day })
    for (const id of [one.id, two.id]) await get(b, `/events/${id}`)
    expect(b.cacheStats()!.entries).toBe(2)
    await send(a, 'PATCH', `/events/${one.id}`, { title: 'One again' })
    expect(await first.compactJournal('9999-12-31 23:59:59')).toBeGreaterThan(0)
    expect((await get(b, `/events/${two.id}`)).body.title).toBe('Two')
    expect(b.cacheStats()).toMatchObject({ entries: 1, hits: 0 })
    expect((await get(b, `/events/${one.id}`)).body.title).toBe('One again')
  })
})

/**
 * Two `npm start` servers on one database (`env` names it), caches on: a write through either is
 * what the other answers once `settle` has passed (SQLite: at once; PostgreSQL: the poll interval).
 */
async function twoServers(env: Record<string, string>, settle: () => Promise<unknown>) {
  const common = { ...env, CALENDAR_API_TOKENS: 'admintoken:administrator', CALENDAR_DEMO: 'off' }
  // One after the other: the first one's migrations are done when the second one opens.
  const first = await startExample(common)
  const second = await startExample(common)
  const call = async (root: string, method: string, path: string, body?: unknown) => {
    const headers = body === undefined ? undefined : { authorization: 'Bearer admintoken', 'content-type': 'application/json' }
    const res = await fetch(root + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const day = { start_date: 'tomorrow 7pm', end_date: 'tomorrow 10pm', status: 'publish' }
  const event = (await call(first.root, 'POST', '/events', { title: 'Launch', ...day })).body
  await settle()
  for (let n = 1; n <= 5; n++) {
    const [writer, reader] = n % 2 ? [first, second] : [second, first]
    // Read twice: the second answer comes from the reader's cache.
    for (let i = 0; i < 2; i++) {
      expect((await call(reader.root, 'GET', `/events/${event.id}`)).body.title).toBe(n === 1 ? 'Launch' : `Edit ${n - 1}`)
      expect((await call(reader.root, 'GET', '/events')).body.total).toBe(n)
    }
    await call(writer.root, 'PATCH', `/events/${event.id}`, { title: `Edit ${n}` })
    await call(writer.root, 'POST', '/events', { title: `More ${n}`, ...day })
    await settle()
    expect((await call(reader.root, 'GET', `/events/${event.id}`)).body.title).toBe(`Edit ${n}`)
    expect((await call(reader.root, 'GET', '/events')).body.total).toBe(n + 1)
  }
  // Unpublished through one: the other stops showing it publicly.
  expect((await call(second.root, 'GET', `/events/${event.id}`)).status).toBe(200)
  await call(first.root, 'PATCH', `/events/${event.id}`, { status: 'draft' })
  await settle()
  const hidden = await call(second.root, 'GET', `/events/${event.id}`)
  expect(hidden.status).toBe((await call(first.root, 'GET', `/events/${event.id}`)).status)
  expect(hidden.status).not.toBe(200)
}

describe('two `npm start` servers on one SQLite file', () => {
  it('serve a write made through either to readers of the other at once, with their caches on', { timeout: 60_000 }, async () => {
    await twoServers({ CALENDAR_DB: sqliteFile() }, async () => {})
  })
})

pgDescribe('two `npm start` servers on one PostgreSQL database', () => {
  it(
    `serve a write made through either to readers of the other once cache.pollMs (${DEFAULT_POLL_MS} ms) passed, with their caches on`,
    { timeout: 60_000 },
    async () => {
      const schema = `s_servers_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
      await pgAdmin!.query(`CREATE SCHEMA ${schema}`)
      onTestFinished(async () => {
        await pgAdmin!.query(`DROP SCHEMA ${schema} CASCADE`)
      })
      const database = new URL(pgUrl!)
      database.searchParams.set('options', `-c search_path=${schema}`)
      await twoServers({ CALENDAR_STORAGE: 'postgres', CALENDAR_DATABASE_URL: database.href }, () => sleep(DEFAULT_POLL_MS + 20))
    },
  )
})

describe('response cache over the memory storage', () => {
  it('has no other writers to follow: never reads the journal', async () => {
    const storage = createMemoryStorage()
    expect(storage.otherWriters).toBeUndefined()
    const head = vi.spyOn(storage, 'journalHead')
    const journal = vi.spyOn(storage, 'readJournal')
    const router = createCalendarRouter(storage, { ...options, cache: {} })
    const event = await send(router, 'POST', '/events', {
      title: 'Here',
      start_date: '2026-11-28 10:00:00',
      end_date: '2026-11-28 12:00:00',
    })
    for (let i = 0; i < 3; i++) await get(router, `/events/${event.id}`)
    expect(router.cacheStats()!.hits).toBe(2)
    expect(head).not.toHaveBeenCalled()
    expect(journal).not.toHaveBeenCalled()
  })
})

pgDescribe('response cache across connection pools on one PostgreSQL database', () => {
  async function pgPair() {
    const first = await schemaStorage()
    const second = await schemaStorage(first.schema)
    onTestFinished(async () => {
      await second.close()
      await first.close()
    })
    return { first, second }
  }
  // The documented bound, and a little for the timers' granularity: no read after it may be stale.
  const pollInterval = () => sleep(DEFAULT_POLL_MS + 20)

  it(`answers what another pool committed once cache.pollMs (${DEFAULT_POLL_MS} ms) has passed`, async () => {
    const { first, second } = await pgPair()
    await readAfterWrite(first, second, pollInterval)
  })

  it('drops what a commit made stale while an older transaction holds the journal back', async () => {
    const { first, second } = await pgPair()
    const { a, b } = routers(first, second)
    const event = await send(a, 'POST', '/events', { title: 'Before', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' })
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('Before')
    const head = await second.journalHead()

    // A transaction with an id, begun before the write and still running after it.
    const older = await pgAdmin!.connect()
    await older.query('BEGIN')
    await older.query('SELECT pg_current_xact_id()')
    try {
      await send(a, 'PATCH', `/events/${event.id}`, { title: 'After' })
      expect((await second.readJournal(head, 100)).entries).toEqual([]) // held back by the older transaction
      await pollInterval()
      expect((await get(b, `/events/${event.id}`)).body.title).toBe('After')
    } finally {
      await older.query('ROLLBACK')
      older.release()
    }
    // Once the horizon passes the entry, readJournal hands it out again: already dropped, it
    // drops nothing more, so what was cached since stays a hit.
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('After')
    await pollInterval()
    const hits = b.cacheStats()!.hits
    expect((await get(b, `/events/${event.id}`)).body.title).toBe('After')
    expect(b.cacheStats()!.hits).toBe(hits + 1)
  })

  it('stops polling when the router or the storage is closed', async () => {
    const { first, second } = await pgPair()
    const { a, b } = routers(first, second)
    const polls = vi.spyOn(second, 'readJournal')
    const event = await send(a, 'POST', '/events', { title: 'Here', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' })
    await get(b, `/events/${event.id}`)
    b.close()
    const atClose = polls.mock.calls.length
    await sleep(3 * DEFAULT_POLL_MS)
    expect(polls.mock.calls.length).toBe(atClose)

    const third = await schemaStorage(first.schema)
    const spied = vi.spyOn(third, 'readJournal')
    const c = createCalendarRouter(third, { ...options, cache: {} })
    await get(c, `/events/${event.id}`)
    await third.close()
    const atStorageClose = spied.mock.calls.length
    await sleep(3 * DEFAULT_POLL_MS)
    // At most the poll that found the storage closed.
    expect(spied.mock.calls.length).toBeLessThanOrEqual(atStorageClose + 1)
  })
})
