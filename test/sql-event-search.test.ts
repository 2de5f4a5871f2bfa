/**
 * SQLite's event search index (src/storage/sql/event-search.ts): event_fts, whose rowid orders
 * the matches by (language, status, hidden) and start day, and the count that reads only rowid
 * ranges of it. Its totals and pages must be the memory backend's over every kind of window
 * (whole days or not, events crossing either bound, several statuses, hidden and multi-day
 * events), before and after writes that move an event's key; an older database migrates into it.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, it } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile, type SqlStorage } from '../src/storage/sql/index.js'
import { SQLITE_SEARCH_BACKFILL, SQLITE_SEARCH_DDL } from '../src/storage/sql/search-index.js'
import type { EventListQuery, Storage } from '../src/storage/types.js'
import { newEvent } from '../src/testing/index.js'
import { recording } from './support/sql-checks.js'
import { at, fill, same, shuffle } from './support/event-search-cases.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-event-search-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const freshFile = () => join(dir, `db-${++n}.sqlite`)

describe('sqlite event search index', () => {
  it('totals and pages equal the memory backend over every kind of window, before and after writes', async () => {
    const { driver, seen } = recording(await openSqliteFile(freshFile()))
    const sql = createSqlStorage({ driver })
    const memory = createMemoryStorage()
    const ids = await sql.transaction((tx) => fill(tx, 7, 400))
    await memory.transaction((tx) => fill(tx, 7, 400))
    await same(sql, memory, 'fresh')
    // The fast count answered some of them (and the lookups of the window's edges).
    assert.ok(seen.some((x) => /rowid BETWEEN/.test(x.sql) && !/event_keys/.test(x.sql)))
    assert.ok(seen.some((x) => /rowid BETWEEN/.test(x.sql) && /FROM event_keys k/.test(x.sql)))
    await sql.transaction((tx) => shuffle(tx, ids))
    await memory.transaction((tx) => shuffle(tx, ids))
    await same(sql, memory, 'after writes')
    await sql.close()
  })

  it('optimize() merges the FTS5 segments that commits leave, and changes no answer', async () => {
    const file = freshFile()
    const sql = createSqlStorage({ driver: await openSqliteFile(file) })
    const memory = createMemoryStorage()
    // One commit per 20 events: each writes a segment, and automerge leaves up to 16 a level.
    for (let seed = 0; seed < 15; seed++) for (const s of [sql, memory] as Storage[]) await s.transaction((tx) => fill(tx, 100 + seed, 20))
    const check = new Database(file, { readonly: true })
    const rows = () => (check.prepare('SELECT count(*) AS n FROM event_fts_data').get() as { n: number }).n
    const before = rows()
    await sql.optimize()
    // One segment holds the same postings in fewer pages than many (each had its own).
    assert.ok(rows() < before, `${rows()} < ${before}`)
    check.close()
    await same(sql, memory, 'optimized')
    await sql.close()
  })

  it('a plain windowed search counts a rowid range of event_fts and looks nothing up', async () => {
    const file = freshFile()
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    await s.transaction(async (tx) => {
      for (let i = 0; i < 30; i++)
        await tx.insertPost(
          newEvent({ slug: `z${i}`, title: i % 3 ? 'Zephyr night' : 'Brunch', startDate: at(i, 600), endDate: at(i, 660) }),
        )
    })
    const q: EventListQuery = {
      language: 'en',
      statuses: ['publish'],
      orderBy: 'start',
      offset: 0,
      limit: 5,
      search: 'zephyr',
      startGte: '2027-01-05 00:00:00',
      endLte: '2027-01-24 23:59:59',
    }
    const page = await s.listEvents(q)
    // Days 4..23 hold 20 events, of which those with i % 3 != 0 match.
    const want = Array.from({ length: 20 }, (_, k) => k + 4).filter((i) => i % 3).length
    assert.equal(page.total, want)
    const counted = seen.filter((x) => /count\(\*\)/.test(x.sql) && /event_fts/.test(x.sql))
    assert.equal(counted.length, 1, 'one count statement')
    assert.match(counted[0]!.sql, /rowid BETWEEN/)
    const check = new Database(file, { readonly: true })
    const plan = (check.prepare(`EXPLAIN QUERY PLAN ${counted[0]!.sql}`).all(...counted[0]!.params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n')
    check.close()
    // FTS5's plan string: M (MATCH) with the rowid bounds (> and <) handed to the table.
    assert.match(plan, /SCAN event_fts VIRTUAL TABLE INDEX \d+:M\d*[<>=]/)
    assert.match(plan, /[<>].*[<>]/)
    assert.doesNotMatch(plan, /event_keys|posts/)
    await s.close()
  })

  it('an event stored ending before it starts keeps the totals exact', async () => {
    const sql = createSqlStorage({ driver: await openSqliteFile(freshFile()) })
    const memory = createMemoryStorage()
    // The storage contract stores dates as given: one ending months before its start.
    const odd = { slug: 'odd', title: 'zephyr jazz', startDate: '2027-06-10 10:00:00', endDate: '2027-01-07 10:00:00' }
    for (const s of [sql, memory])
      await s.transaction(async (tx) => {
        await fill(tx, 3, 120)
        await tx.insertPost(newEvent(odd))
      })
    await same(sql, memory, 'inverted')
    await sql.close()
  })

  it('migrating a version-11 database moves its events from post_fts to event_fts', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const memory = createMemoryStorage()
    await a.transaction((tx) => fill(tx, 11, 150))
    await memory.transaction((tx) => fill(tx, 11, 150))
    await a.close()
    // Back to the schema before migration 12: events indexed in post_fts by its first triggers.
    const raw = new Database(file)
    raw.exec(`DROP TRIGGER posts_event_fts_insert; DROP TRIGGER posts_event_fts_delete; DROP TRIGGER posts_event_fts_update;
              DROP TRIGGER posts_event_class_insert; DROP TRIGGER posts_event_class_update;
              DROP TABLE event_fts; DROP TABLE event_search_classes;
              DROP TRIGGER posts_fts_insert; DROP TRIGGER posts_fts_delete; DROP TRIGGER posts_fts_update;
              DELETE FROM calendar_migrations WHERE version >= 12`)
    for (const statement of SQLITE_SEARCH_DDL) raw.exec(statement)
    raw.exec(SQLITE_SEARCH_BACKFILL)
    assert.ok((raw.prepare(`SELECT count(*) AS n FROM post_fts WHERE post_fts MATCH '"jazz"'`).get() as { n: number }).n > 0)
    raw.close()
    const b: SqlStorage = createSqlStorage({ driver: await openSqliteFile(file) })
    await same(b, memory, 'migrated')
    const check = new Database(file, { readonly: true })
    const count = (table: string) =>
      (check.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH '"jazz"'`).get() as { n: number }).n
    assert.equal(count('post_fts'), 0, 'no event left in post_fts')
    const events = check.prepare(`SELECT count(*) AS n FROM posts WHERE type = 'event' AND instr(search_text, 'jazz') > 0`).get() as {
      n: number
    }
    assert.equal(count('event_fts'), events.n)
    // Segments merge 16 at a time (a series writes rowids days apart; see event-search.ts).
    assert.deepEqual(check.prepare(`SELECT v FROM event_fts_config WHERE k = 'automerge'`).all(), [{ v: 16 }])
    check.close()
    // And writes after the migration keep it.
    const extra = { slug: 'late', title: 'Late jazz', startDate: '2027-01-08 10:00:00', endDate: '2027-01-08 11:00:00' }
    await b.transaction((tx) => tx.insertPost(newEvent(extra)))
    await memory.transaction((tx) => tx.insertPost(newEvent(extra)))
    await same(b, memory, 'migrated, then written')
    await b.close()
  })
})
