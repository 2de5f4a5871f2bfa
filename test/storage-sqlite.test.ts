import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, it } from 'vitest'
import { MIGRATIONS, createSqlStorage, openSqliteFile, sqliteDriver, type SqlDriver, type SqlParam } from '../src/storage/sql/index.js'
import { StorageUnavailableError, type EventListQuery } from '../src/storage/types.js'
import { newEvent, newTerm, newVenue, storageContract } from '../src/testing/index.js'
import { checkDayCounts, dayCountEvents, recording, slugRace } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-sqlite-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const freshFile = () => join(dir, `db-${++n}.sqlite`)

storageContract({ describe, it }, 'sqlite (file)', async () => createSqlStorage({ driver: await openSqliteFile(freshFile()) }))
storageContract({ describe, it }, 'sqlite (:memory:)', async () => createSqlStorage({ driver: await openSqliteFile(':memory:') }))

describe('sqlite storage', () => {
  it('runs migrations once: migrating again (and from a second instance) changes nothing', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file), migrate: false })
    await a.migrate()
    await a.migrate()
    const e = await a.transaction((tx) => tx.insertPost(newEvent({ slug: 'kept' })))
    await a.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    await b.migrate()
    assert.equal((await b.getPost(e.id))?.slug, 'kept')
    await b.close()
    const raw = new Database(file)
    assert.deepEqual(
      raw.prepare('SELECT version FROM calendar_migrations ORDER BY version').all(),
      MIGRATIONS.map((m) => ({ version: m.version })),
    )
    raw.close()
  })

  it('keeps its data when the file is reopened', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const { e, t } = await a.transaction(async (tx) => {
      const t = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
      const v = await tx.insertPost(newVenue({ slug: 'hall' }))
      const e = await tx.insertPost(newEvent({ slug: 'party', categoryIds: [t.id], venueIds: [v.id] }))
      return { e, t }
    })
    await a.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    assert.deepEqual(await b.getPost(e.id), e)
    assert.equal((await b.getTerm(t.id))?.count, 1)
    await b.close()
  })

  it("shares a read snapshot within an event-loop turn only: another process's commit is seen after it", async () => {
    const file = freshFile()
    const storage = createSqlStorage({ driver: await openSqliteFile(file) })
    const e = await storage.transaction((tx) => tx.insertPost(newEvent({ slug: 'party', title: 'Before' })))
    // Another process's writer: a connection of its own, outside every driver of this one.
    const other = new Database(file)
    const title = async () => (await storage.getPost(e.id))?.title
    try {
      assert.equal(await title(), 'Before')
      other.prepare('UPDATE posts SET title = ?, revision = revision + 1 WHERE id = ?').run('After', e.id)
      // Still this turn: the snapshot the first read opened may answer (not asserted either way).
      await title()
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(await title(), 'After')
      // A host that never lets the loop turn still sees it once the snapshot is SNAPSHOT_MS old.
      assert.equal(await title(), 'After')
      other.prepare('UPDATE posts SET title = ?, revision = revision + 1 WHERE id = ?').run('Later', e.id)
      const until = performance.now() + 10
      while (performance.now() < until) await Promise.resolve()
      assert.equal(await title(), 'Later')
      // A commit in this process ends the snapshot at once, whichever storage made it.
      const second = createSqlStorage({ driver: await openSqliteFile(file) })
      assert.equal(await title(), 'Later')
      await second.transaction((tx) => tx.updatePost(e.id, 'event', { title: 'Mine' }))
      assert.equal(await title(), 'Mine')
      await second.close()
    } finally {
      other.close()
      await storage.close()
    }
  })

  it('lets the WAL checkpoint while a host writes in a loop that never lets the event loop turn', async () => {
    const file = freshFile()
    const storage = createSqlStorage({ driver: await openSqliteFile(file) })
    const check = new Database(file)
    try {
      // A read opens the shared snapshot; an import then writes without a single event-loop turn.
      await storage.listEvents({ language: 'en', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 5 })
      for (let b = 0; b < 20; b++)
        await storage.transaction(async (tx) => {
          for (let i = 0; i < 50; i++) await tx.insertPost(newEvent({ slug: `e${b}-${i}`, title: `Imported ${i}` }))
        })
      // No reader holds an old snapshot: a checkpoint reaches the end of the log.
      const [status] = check.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[]
      assert.ok(status!.log > 0)
      assert.equal(status!.checkpointed, status!.log)
    } finally {
      check.close()
      await storage.close()
    }
  })

  it('gives its reading connection a 64 MiB page cache, or the size asked for', async () => {
    const cacheOf = async (driver: SqlDriver) => {
      // Reads outside a transaction go to the reading connection.
      const rows = await driver.read((c) => c.query<{ cache_size: unknown }>('PRAGMA cache_size'))
      await driver.close()
      return Number(rows[0]?.cache_size)
    }
    assert.equal(await cacheOf(await openSqliteFile(freshFile())), -64 * 1024)
    assert.equal(await cacheOf(await openSqliteFile(freshFile(), { cacheSizeMiB: 8 })), -8 * 1024)
  })

  it('fills the term counts when it migrates a version-1 database (no term_counts yet)', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const t = await a.transaction(async (tx) => {
      const t = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
      await tx.insertPost(newEvent({ slug: 'a', categoryIds: [t.id, t.id] }))
      await tx.insertPost(newEvent({ slug: 'b', categoryIds: [t.id], status: 'draft' }))
      await tx.insertPost(newEvent({ slug: 'c', tagIds: [t.id], language: 'ja' }))
      return t
    })
    await a.close()
    const raw = new Database(file)
    raw.exec('DROP TABLE term_counts; DELETE FROM calendar_migrations WHERE version >= 2')
    raw.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    assert.equal((await b.getTerm(t.id))?.count, 2)
    await b.close()
  })

  it('fills the event day counters when it migrates a version-2 database (no event_day_counts yet)', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    await a.transaction((tx) => dayCountEvents(tx))
    await a.close()
    const raw = new Database(file)
    raw.exec('DROP TABLE event_day_counts; DELETE FROM calendar_migrations WHERE version >= 3')
    raw.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    await checkDayCounts(b)
    const check = new Database(file)
    assert.deepEqual(check.prepare('SELECT sum(n) AS n FROM event_day_counts').get(), { n: 7 }) // every event not hidden
    check.close()
    await b.close()
  })

  it('answers the default event list from an index, without scanning or sorting the posts table', async () => {
    const file = freshFile()
    // Record the statements the storage really sends, then ask SQLite how it runs them.
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    const db = new Database(file)
    const plans = async (q: Partial<EventListQuery>) => {
      seen.length = 0
      // What GET /events asks for by default: published, from yesterday to 24 months ahead.
      await s.listEvents({
        language: 'en',
        statuses: ['publish'],
        startGte: '2027-01-01 00:00:00',
        endLte: '2029-01-01 23:59:59',
        orderBy: 'start',
        offset: 0,
        limit: 10,
        ...q,
      })
      // The page, and the count: from the day counters for whole-day windows, else from posts.
      const posts = seen.filter((x) => /\b(posts p|event_day_counts c) WHERE/.test(x.sql))
      assert.equal(posts.length, 2)
      return posts.map((x) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${x.sql}`).all(...x.params) as { detail: string }[]).map((r) => r.detail).join('\n'),
      )
    }
    const [page, count] = await plans({})
    assert.match(
      page!,
      /SEARCH p USING INDEX posts_event_start \(type=\? AND language=\? AND status=\? AND hide_from_listings=\? AND start_date>\?\)/,
    )
    assert.doesNotMatch(page!, /SCAN p\b|TEMP B-TREE/)
    assert.match(count!, /SEARCH c USING INDEX sqlite_autoindex_event_day_counts_1 \(language=\? AND status=\? AND start_day>\?\)/)
    const [, rowCount] = await plans({ startGte: '2027-01-01 09:00:00' })
    assert.match(rowCount!, /SEARCH p USING (COVERING )?INDEX posts_event_start/)
    const [featured] = await plans({ featured: true })
    assert.match(featured!, /SEARCH p USING INDEX posts_event_featured/)
    assert.doesNotMatch(featured!, /SCAN p\b|TEMP B-TREE/)
    const [venue] = await plans({ venueIds: [1, 2] })
    assert.doesNotMatch(venue!, /SCAN p\b/)
    db.close()
    await s.close()
  })

  it('pages a sync (id order from a cursor) along the primary key, without sorting every match per page', async () => {
    const file = freshFile()
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    await s.transaction((tx) => dayCountEvents(tx))
    const db = new Database(file)
    seen.length = 0
    // What the REST sync asks for each page of `sync_token=*` (resources/events.ts): every status
    // an editor sees, no date window, no count.
    const statuses: EventListQuery['statuses'] = ['publish', 'future', 'draft', 'pending', 'private']
    await s.listEvents({ language: 'en', statuses, orderBy: 'id', idAfter: 1, offset: 0, uncounted: true, limit: 2 })
    const page = seen.find((x) => /\bposts p\b.* WHERE .*p\.id > \?/.test(x.sql))!
    const detail = (db.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n')
    assert.match(detail, /SEARCH p USING INTEGER PRIMARY KEY \(rowid>\?\)/)
    assert.doesNotMatch(detail, /TEMP B-TREE/)
    db.close()
    await s.close()
  })

  it('gives distinct slugs to concurrent creates from two storages on one file', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    await a.migrate()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    const made = await Promise.all(Array.from({ length: 10 }, (_, i) => slugRace(i % 2 ? a : b, 'same')))
    assert.equal(new Set(made.map((e) => e.slug)).size, 10)
    assert.equal((await a.slugsLike('event', 'en', 'same')).length, 10)
    await Promise.all([a.close(), b.close()])
  })

  it('reports a file locked beyond the busy timeout as StorageUnavailableError, and works once it is free', async () => {
    const file = freshFile()
    const s = createSqlStorage({ driver: await openSqliteFile(file) })
    await s.migrate()
    const locker = new Database(file)
    locker.pragma('busy_timeout = 0')
    // Shorten the wait: the storage's writer gives up after its busy_timeout.
    const quick = new Database(file)
    quick.pragma('journal_mode = WAL')
    quick.pragma('busy_timeout = 200')
    const q = createSqlStorage({ driver: sqliteDriver(quick) })
    locker.exec('BEGIN IMMEDIATE')
    const started = Date.now()
    await assert.rejects(
      q.transaction((tx) => tx.insertPost(newEvent({ slug: 'blocked' }))),
      StorageUnavailableError,
    )
    assert.ok(Date.now() - started < 2000)
    locker.exec('ROLLBACK')
    locker.close()
    const e = await q.transaction((tx) => tx.insertPost(newEvent({ slug: 'free' })))
    assert.equal((await s.getPost(e.id))?.slug, 'free')
    await Promise.all([q.close(), s.close()])
  })

  it('reports a database that cannot be opened as StorageUnavailableError', async () => {
    await assert.rejects(openSqliteFile(join(dir, 'missing', 'dir', 'x.db')), StorageUnavailableError)
    await assert.rejects(openSqliteFile(dir), StorageUnavailableError) // a directory: SQLITE_CANTOPEN
  })

  it('with a single connection, readers wait for the running write and never see it uncommitted', async () => {
    const s = createSqlStorage({ driver: sqliteDriver(new Database(':memory:')) })
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let inside = false
    const tx = s.transaction(async (t) => {
      await t.insertPost(newEvent({ slug: 'pending' }))
      inside = true
      await gate
    })
    while (!inside) await new Promise((r) => setTimeout(r, 1))
    let seen: unknown = 'not yet'
    const read = s.findPostBySlug('event', 'en', 'pending').then((p) => (seen = p?.slug))
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(seen, 'not yet')
    release()
    await tx
    await read
    assert.equal(seen, 'pending')
    await s.close()
  })

  it('switches a file to WAL for a reader connection, and says how when it cannot', async () => {
    const file = freshFile()
    const writer = new Database(file)
    assert.equal(String(writer.pragma('journal_mode', { simple: true })).toLowerCase(), 'delete')
    const s = createSqlStorage({ driver: sqliteDriver(writer, { reader: new Database(file, { readonly: false }) }) })
    const e = await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'walled' })))
    assert.equal((await s.getPost(e.id))?.slug, 'walled')
    assert.equal(String(writer.pragma('journal_mode', { simple: true })).toLowerCase(), 'wal')
    await s.close()
    assert.throws(() => sqliteDriver(new Database(':memory:'), { reader: new Database(':memory:') }), /PRAGMA journal_mode = WAL/)
  })

  it('deletes the temporary file behind :memory: on close', async () => {
    const driver = await openSqliteFile(':memory:')
    const s = createSqlStorage({ driver })
    await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'x' })))
    const files = (await import('node:fs')).readdirSync(tmpdir()).filter((f) => f.startsWith('calendar-sqlite-')).length
    await s.close()
    const after = (await import('node:fs')).readdirSync(tmpdir()).filter((f) => f.startsWith('calendar-sqlite-')).length
    assert.equal(after, files - 1)
  })
})
