/**
 * The search index of the SQL storages (src/storage/sql/search-index.ts): migrating an older
 * database builds it over the records already there, reads go through it, and an engine or role
 * that cannot have it falls back to the scan with one log line. What search answers is covered
 * over HTTP on every engine (test/http/search.suite.ts).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlDriver, type SqlParam, type SqlStorage } from '../src/storage/sql/index.js'
import type { EventListQuery, LinkedListQuery, StorageTx } from '../src/storage/types.js'
import { newEvent, newVenue } from '../src/testing/index.js'
import { admin, schemaStorage, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-search-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())
let n = 0
const freshFile = () => join(dir, `db-${++n}.sqlite`)

const query = (search: string): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  orderBy: 'start',
  offset: 0,
  limit: 10,
  search,
})
const venues = (...searchFragments: string[]): LinkedListQuery => ({
  language: 'en',
  statuses: ['publish'],
  offset: 0,
  limit: 10,
  searchFragments,
})

/** Records of every searchable kind; returns their ids. */
async function fill(tx: StorageTx) {
  const jazz = await tx.insertPost(newEvent({ slug: 'jazz', title: 'Midnight Jazz', description: '<p>Zephyr quartet</p>' }))
  const brunch = await tx.insertPost(newEvent({ slug: 'brunch', title: 'Brunch', excerpt: 'with a zephyr breeze' }))
  const hall = await tx.insertPost(newVenue({ slug: 'hall', title: 'Grand Hall', city: 'Springfield' }))
  return { jazz: jazz.id, brunch: brunch.id, hall: hall.id }
}

/** Every answer that the search index could get wrong after a migration. */
async function checkSearch(s: SqlStorage, ids: Awaited<ReturnType<typeof fill>>) {
  const found = async (q: string) => (await s.listEvents(query(q))).items.map((e) => e.id)
  assert.deepEqual(await found('zephyr'), [ids.jazz, ids.brunch])
  assert.deepEqual(await found('ZEPH QUARTET'), [ids.jazz])
  assert.deepEqual(await found('<p>'), [ids.jazz])
  assert.deepEqual(await found('ph'), [ids.jazz, ids.brunch])
  assert.deepEqual(
    (await s.listLinked('venue', venues('grand', 'hall'))).items.map((v) => v.id),
    [ids.hall],
  )
  assert.deepEqual(
    (await s.listLinked('venue', venues('springf'))).items.map((v) => v.id),
    [ids.hall],
  )
  assert.equal((await s.listLinked('venue', venues('grand', 'springfield'))).total, 0)
}

describe('sqlite search index', () => {
  it('migrating a version-4 database (no index) indexes the records already there', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const ids = await a.transaction(fill)
    await a.close()
    // Back to the schema before migration 5: no FTS table, no triggers, no venue search_text.
    const raw = new Database(file)
    raw.exec(`DROP TRIGGER posts_fts_insert; DROP TRIGGER posts_fts_delete; DROP TRIGGER posts_fts_update; DROP TABLE post_fts;
              UPDATE posts SET search_text = NULL WHERE type <> 'event'; DELETE FROM calendar_migrations WHERE version >= 5`)
    raw.close()
    const { driver, seen } = recording(await openSqliteFile(file))
    const b = createSqlStorage({ driver })
    await checkSearch(b, ids)
    // The answers came through the index.
    const searched = seen.find((x) => /post_fts MATCH/.test(x.sql) && /ORDER BY/.test(x.sql))
    assert.ok(searched, 'a search statement used the FTS index')
    const check = new Database(file)
    const plan = (check.prepare(`EXPLAIN QUERY PLAN ${searched.sql}`).all(...searched.params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n')
    assert.match(plan, /VIRTUAL TABLE INDEX/)
    assert.deepEqual(check.prepare(`SELECT count(*) AS n FROM event_fts WHERE event_fts MATCH '"zephyr"'`).get(), { n: 2 })
    check.close()
    // Writes after the migration keep the index in their own transaction.
    const late = await b.transaction((tx) => tx.insertPost(newEvent({ slug: 'late', title: 'Late zephyr' })))
    await b.transaction((tx) => tx.updatePost(ids.jazz, 'event', { description: 'no wind' }))
    assert.deepEqual(
      (await b.listEvents(query('zephyr'))).items.map((e) => e.id),
      [ids.brunch, late.id],
    )
    await b.close()
  })

  it('migrating a version-9 database fills event_keys, which search counts read and every write keeps', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const ids = await a.transaction(fill)
    await a.close()
    // Back to the schema before migration 10: the count read an index of posts instead.
    const raw = new Database(file)
    raw.exec(`DROP TRIGGER posts_event_keys_insert; DROP TRIGGER posts_event_keys_delete; DROP TRIGGER posts_event_keys_update;
              DROP TABLE event_keys; CREATE INDEX posts_event_keys ON posts (id, type, language, status, hide_from_listings, start_date, end_date);
              DELETE FROM calendar_migrations WHERE version >= 10`)
    raw.close()
    const { driver, seen } = recording(await openSqliteFile(file))
    const b = createSqlStorage({ driver })
    await checkSearch(b, ids)
    const counted = seen.find((x) => /event_fts MATCH/.test(x.sql) && /count\(\*\)/.test(x.sql))
    assert.match(counted?.sql ?? '', /CROSS JOIN event_keys p/)
    const keys = () => {
      const db = new Database(file, { readonly: true })
      const rows = db.prepare('SELECT id, language, status, start_date, end_date FROM event_keys ORDER BY id').all()
      const index = db.prepare(`SELECT name FROM sqlite_master WHERE name = 'posts_event_keys'`).all()
      db.close()
      return { rows, index }
    }
    const before = keys()
    assert.deepEqual(before.index, [], 'the old index is gone')
    assert.deepEqual(
      before.rows.map((r) => (r as { id: number }).id),
      [ids.jazz, ids.brunch],
      'events only, venues never',
    )
    // Every write that moves a listed column keeps the table in step with posts.
    await b.transaction((tx) => tx.updatePost(ids.jazz, 'event', { status: 'draft' }))
    assert.equal((await b.listEvents(query('zephyr'))).total, 1)
    await b.transaction((tx) =>
      tx.updatePost(ids.jazz, 'event', { status: 'publish', startDate: '2031-01-01 10:00:00', endDate: '2031-01-01 11:00:00' }),
    )
    assert.deepEqual(
      (await b.listEvents({ ...query('zephyr'), startGte: '2030-12-31 00:00:00' })).items.map((e) => e.id),
      [ids.jazz],
    )
    await b.transaction((tx) => tx.updatePost(ids.brunch, 'event', { hideFromListings: true }))
    assert.deepEqual(
      keys().rows.map((r) => (r as { id: number }).id),
      [ids.jazz],
    )
    await b.transaction((tx) => tx.deletePost(ids.jazz))
    assert.deepEqual(keys().rows, [])
    assert.equal((await b.listEvents(query('zephyr'))).total, 0)
    await b.close()
  })

  it('without FTS5 trigram the migration logs one line, leaves no trigger behind, and search scans', async () => {
    // An SQLite built without FTS5 (or older than 3.34, without the trigram tokenizer); the
    // migration runs through the driver its lock hands out, so that one is wrapped too.
    const withoutFts5 = (inner: SqlDriver): SqlDriver => ({
      ...inner,
      execute: (sql) => (/fts5/.test(sql) ? Promise.reject(new Error('no such module: fts5')) : inner.execute(sql)),
      migrationLock: (fn) => inner.migrationLock!((locked) => fn(withoutFts5(locked))),
    })
    const driver = withoutFts5(await openSqliteFile(freshFile()))
    const lines: string[] = []
    const s = createSqlStorage({ driver, log: (line) => lines.push(line) })
    const ids = await s.transaction(fill)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /no FTS5 trigram tokenizer \(no such module: fts5\); search scans/)
    await checkSearch(s, ids)
    await s.transaction((tx) => tx.updatePost(ids.hall, 'venue', { city: 'Shelbyville' }))
    assert.equal((await s.listLinked('venue', venues('shelby'))).total, 1)
    await s.close()
  })
})

pgDescribe('postgres search index', () => {
  it('migrating a version-4 schema (no index) indexes the records already there', async () => {
    const a = await schemaStorage()
    const ids = await a.transaction(fill)
    await admin!.query(
      `DROP INDEX ${a.schema}.posts_search_trgm; UPDATE ${a.schema}.posts SET search_text = NULL WHERE type <> 'event';
       DELETE FROM ${a.schema}.calendar_migrations WHERE version >= 5`,
    )
    const b = await schemaStorage(a.schema)
    await checkSearch(b, ids)
    const { rows } = await admin!.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'posts_search_trgm'`, [
      a.schema,
    ])
    // The operator class is qualified by the schema pg_trgm lives in: public on a fresh server,
    // another one on a shared server (CALENDAR_TEST_DATABASE_URL) where a kept schema created it.
    assert.match(rows[0]?.indexdef ?? '', /USING gin \(search_text ("?\w+"?\.)?gin_trgm_ops\)/)
    await b.close()
    await a.close()
  })

  /** A database of its own on the test server, so that pg_trgm is not installed yet. */
  async function database(owner?: string) {
    const name = `search_${process.pid}_${++n}`
    await admin!.query(`CREATE DATABASE ${name}${owner ? ` OWNER ${owner}` : ''}`)
    const at = (user?: string) => {
      const u = new URL(url)
      u.pathname = `/${name}`
      if (user) u.username = user
      return u.toString()
    }
    return { name, at, drop: () => admin!.query(`DROP DATABASE ${name}`) }
  }

  it('creates pg_trgm and the GIN index, which serves the search', async () => {
    const db = await database()
    const pool = new pg.Pool({ connectionString: db.at(), max: 2 })
    const lines: string[] = []
    const { driver, seen } = recording(pgDriver(pool))
    const s = createSqlStorage({ driver, log: (line) => lines.push(line) })
    const ids = await s.transaction(fill)
    assert.deepEqual(lines, [])
    await checkSearch(s, ids)
    const searched = seen.find((x) => /search_text LIKE/.test(x.sql) && /ORDER BY/.test(x.sql))
    assert.ok(searched)
    const client = await pool.connect()
    try {
      // Three rows are cheaper to scan: take that choice away to see that the index serves the
      // storage's predicate, with the pattern it sent.
      await client.query('SET enable_seqscan = off')
      const pattern = searched.params.find((p) => typeof p === 'string' && p.startsWith('%'))
      assert.equal(pattern, '%zephyr%')
      const plan = (await client.query(`EXPLAIN SELECT count(*) FROM posts p WHERE p.search_text LIKE $1 ESCAPE '\\'`, [pattern])).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n')
      assert.match(plan, /Bitmap Index Scan on posts_search_trgm/)
    } finally {
      client.release()
    }
    await s.close()
    await db.drop()
  })

  it('a role that may not create pg_trgm gets one log line, and search scans', async () => {
    const role = `limited_${process.pid}_${++n}`
    await admin!.query(`CREATE ROLE ${role} LOGIN`)
    const db = await database()
    // Trusted extensions need CREATE on the database: this role has none.
    await admin!.query(`REVOKE CREATE ON DATABASE ${db.name} FROM PUBLIC`)
    const setup = new pg.Client({ connectionString: db.at() })
    await setup.connect()
    await setup.query(`CREATE SCHEMA cal AUTHORIZATION ${role}`)
    await setup.end()
    const pool = new pg.Pool({ connectionString: db.at(role), max: 2, options: '-c search_path=cal' })
    const lines: string[] = []
    const s = createSqlStorage({ driver: pgDriver(pool), log: (line) => lines.push(line) })
    const ids = await s.transaction(fill)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /the pg_trgm extension is not available \(permission denied to create extension "pg_trgm"\); search scans/)
    await checkSearch(s, ids)
    await s.close()
    await db.drop()
    await admin!.query(`DROP ROLE ${role}`)
  })
})
