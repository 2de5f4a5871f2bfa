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
import type { EventListQuery, PostStatus, Storage, StorageTx } from '../src/storage/types.js'
import { newEvent } from '../src/testing/index.js'
import { prng } from '../bench/prng.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-event-search-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const freshFile = () => join(dir, `db-${++n}.sqlite`)

const WORDS = ['zephyr', 'vintage', 'jazz', 'brunch', 'quartet', 'market', 'night']
const STATUSES: PostStatus[] = ['publish', 'publish', 'publish', 'draft', 'pending', 'private']
const pad = (x: number) => String(x).padStart(2, '0')
/** 2027-01-01 plus `day` days, at `minutes` past midnight. */
const at = (day: number, minutes: number) => {
  const d = new Date(Date.UTC(2027, 0, 1 + day, 0, minutes))
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:00`
}

/** The same events in each storage: 40 days, short and multi-day, some at midnight or ending at 23:59. */
async function fill(tx: StorageTx, seed: number, count: number): Promise<number[]> {
  const rnd = prng(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const day = Math.floor(rnd() * 40)
    const start = pick([0, 0, 600, 1439, Math.floor(rnd() * 1440)])
    const length = pick([0, 60, 120, 1439 - start, 1440 * 2, 1440 * 9, Math.floor(rnd() * 1440 * 4)])
    const title = `${pick(WORDS)} ${pick(WORDS)}`
    const e = await tx.insertPost(
      newEvent({
        slug: `e${seed}-${i}`,
        title,
        description: rnd() < 0.3 ? `<p>${pick(WORDS)} &amp; more</p>` : '',
        language: rnd() < 0.85 ? 'en' : 'ja',
        status: pick(STATUSES),
        author: rnd() < 0.5 ? 3 : 1,
        hideFromListings: rnd() < 0.1,
        startDate: at(day, start),
        endDate: at(day, start + Math.max(0, length)),
      }),
    )
    ids.push(e.id)
  }
  // A quiet stretch after those: the only events near the bounds of the last windows below.
  for (const [slug, startDate, endDate] of [
    ['edge-a', '2027-03-10 10:00:00', '2027-03-10 18:00:00'],
    ['edge-b', '2027-03-12 09:00:00', '2027-03-12 10:00:00'],
  ])
    await tx.insertPost(newEvent({ slug: `${slug}-${seed}`, title: 'zephyr at the edge', startDate, endDate }))
  return ids
}

/** Windows of every shape the fast count meets, and searches it does or does not take. */
function queries(): EventListQuery[] {
  const windows: Array<Pick<EventListQuery, 'startGte' | 'endLte'>> = [
    { startGte: '2027-01-05 00:00:00', endLte: '2027-01-20 23:59:59' },
    { startGte: '2027-01-01 00:00:00', endLte: '2027-02-28 23:59:59' },
    { startGte: '2027-01-10 10:00:00', endLte: '2027-01-25 23:59:59' },
    { startGte: '2027-01-10 00:00:00', endLte: '2027-01-25 12:00:00' },
    { startGte: '2027-01-10 23:59:00', endLte: '2027-01-11 00:30:00' },
    { startGte: '2027-01-12 00:00:00', endLte: '2027-01-12 23:59:59' },
    { startGte: '2027-01-15 00:00:00', endLte: '2027-01-14 23:59:59' },
    { startGte: '2026-12-01 00:00:00', endLte: '2027-01-03 08:00:00' },
    { startGte: '2027-03-01 00:00:00', endLte: '2027-03-10 12:00:00' },
    { startGte: '2027-03-01 00:00:00', endLte: '2027-03-10 18:00:00' },
    { startGte: '2027-03-10 11:00:00', endLte: '2027-03-20 23:59:59' },
    { startGte: '2027-03-10 10:00:00', endLte: '2027-03-12 09:30:00' },
  ]
  const searches = ['zephyr', 'jazz', 'vintage jazz', 'ARKET', 'amp;', 'ze', 'jazz ni', '"jazz', 'p>']
  const statuses: PostStatus[][] = [['publish'], ['publish', 'draft', 'pending', 'private'], ['draft']]
  const out: EventListQuery[] = []
  let i = 0
  for (const w of windows)
    for (const search of searches) {
      const s = statuses[i++ % statuses.length]!
      out.push({ language: 'en', statuses: s, orderBy: 'start', offset: 0, limit: 5, search, ...w })
    }
  out.push({ language: 'ja', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 5, search: 'jazz', ...windows[1] })
  out.push({ language: 'en', statuses: ['publish'], orderBy: 'date', offset: 3, limit: 5, search: 'night', ...windows[1] })
  return out
}

async function same(sql: Storage, memory: Storage, label: string) {
  for (const q of queries()) {
    const [a, b] = [await sql.listEvents(q), await memory.listEvents(q)]
    const what = `${label} ${JSON.stringify(q)}`
    assert.equal(a.total, b.total, what)
    assert.deepEqual(
      a.items.map((e) => e.slug),
      b.items.map((e) => e.slug),
      what,
    )
  }
}

/** Writes that move an event's class or start day, or take it out of the index. */
async function shuffle(tx: StorageTx, ids: number[]) {
  await tx.updatePost(ids[0]!, 'event', { status: 'draft' })
  await tx.updatePost(ids[1]!, 'event', { hideFromListings: true })
  await tx.updatePost(ids[2]!, 'event', { startDate: '2027-01-12 09:00:00', endDate: '2027-01-30 09:00:00' })
  await tx.updatePost(ids[3]!, 'event', { title: 'zephyr zephyr' })
  await tx.updatePost(ids[4]!, 'event', { language: 'ja' })
  await tx.deletePost(ids[5]!)
  await tx.updatePost(ids[6]!, 'event', { startDate: '2027-01-12 23:00:00' })
}

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
