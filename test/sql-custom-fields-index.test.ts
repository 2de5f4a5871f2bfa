/**
 * The custom_fields[key]=value filter on the SQL storages, read from indexes both ways:
 * - a rare value (DRIVING_MATCHES rows or fewer in event_custom_values) drives the page: its
 *   event ids from event_custom_values_key, each post by primary key, never the date window of
 *   every event (src/storage/sql/custom-values.ts);
 * - a common value is a range of event_filters (its rows of kind `custom:<key>=<value>`, migration
 *   24; src/storage/sql/event-filters.ts): one status pages that range in list order and stops
 *   after `limit` rows, and the total of whole days sums event_filter_day_counts, O(days) rows
 *   whatever the matches (anonymous callers: publish; editors: several statuses).
 * These tests fail when a change to the statements or the schema makes either engine scan, or
 * count the common value's matches one by one; every list is also compared with the memory
 * backend, after writes that move each copied field and after migration 24 rebuilt the rows.
 *
 * As in test/sql-geo-index.test.ts, the default run is small (a few thousand events) with exact
 * statistics on PostgreSQL and sequential scans priced out: it asks whether the indexes can serve
 * these exact statements. CUSTOM_FIELDS_ROWS=1000000 copies events in bulk up to that many (set
 * based, on both engines), checks the planner's own choice at that scale and prints each list's
 * page + total time (not asserted); that run is the 1M measurement docs/custom-fields.md reports.
 * SQLite plans without statistics (the storage never runs ANALYZE), so its plans do not depend
 * on the row count.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlParam, type SqlStorage } from '../src/storage/sql/index.js'
import type { EventListQuery, Storage, StorageTx } from '../src/storage/types.js'
import { DRIVING_MATCHES } from '../src/storage/sql/custom-values.js'
import { CUSTOM_FILTERS_BACKFILL } from '../src/storage/sql/event-filters.js'
import { newEvent } from '../src/testing/index.js'
import { admin, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-custom-fields-index-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())

const SEEDED = 3000
const COMMON = DRIVING_MATCHES + 500
const ROWS = Number(process.env.CUSTOM_FIELDS_ROWS ?? 0)
const AT_SCALE = ROWS > SEEDED

/**
 * 3,000 events over 2027: 2,500 of genre "common" (every 10th a draft), 5 of genre "rare", the
 * rest with none. `insertPost` one by one when the storage has no bulk insert (memory): the
 * same ids either way.
 */
async function fill(tx: StorageTx): Promise<number[]> {
  const events = Array.from({ length: SEEDED }, (_, i) => {
    const day = `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`
    const genre = i < COMMON ? 'common' : i % 100 === 7 ? 'rare' : null
    return newEvent({
      slug: `e-${i}`,
      status: i < COMMON && i % 10 === 4 ? 'draft' : 'publish',
      startDate: `${day} 10:00:00`,
      endDate: `${day} 12:00:00`,
      customFields: genre ? { genre, capacity: i % 50 } : {},
    })
  })
  const stored = tx.insertEvents ? await tx.insertEvents(events) : []
  if (!tx.insertEvents) for (const e of events) stored.push(await tx.insertPost(e))
  return stored.flatMap((e, i) => (e && i >= COMMON && i % 100 === 7 ? [e.id] : []))
}

/** Writes that move every field event_filters copies, on events with custom values. */
async function move(tx: StorageTx, ids: number[]): Promise<void> {
  const [a, b, c, d, e, f, g] = ids
  await tx.updatePost(a!, 'event', { status: 'draft' })
  await tx.updatePost(b!, 'event', { startDate: '2027-03-03 00:00:00', endDate: '2027-03-04 23:59:59' })
  await tx.updatePost(c!, 'event', { hideFromListings: true })
  await tx.updatePost(d!, 'event', { language: 'ja' })
  await tx.updatePost(e!, 'event', { customFields: { genre: 'rare' } })
  await tx.updatePost(f!, 'event', { customFields: {} })
  await tx.deletePost(g!)
}

const EDITOR: EventListQuery['statuses'] = ['publish', 'future', 'draft', 'pending', 'private']
const WHOLE = { startGte: '2026-12-01 00:00:00', endLte: '2028-12-31 23:59:59' }
const SPRING = { startGte: '2027-03-01 00:00:00', endLte: '2027-06-30 23:59:59' }

const list = (genre: string | string[], more: Partial<EventListQuery> = {}): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  ...WHOLE,
  orderBy: 'start',
  offset: 0,
  limit: 10,
  customFields: [{ key: 'genre', values: typeof genre === 'string' ? [genre] : genre }],
  ...more,
})

/** The lists timed at scale: a common value's page + total as anonymous callers and editors ask, whole window and a season. */
const CASES: Record<string, EventListQuery> = {
  'rare, publish': list('rare'),
  'common, publish': list('common'),
  'common, publish, Mar-Jun': list('common', SPRING),
  'common, 5 statuses': list('common', { statuses: EDITOR }),
  'common, 5 statuses, Mar-Jun': list('common', { statuses: EDITOR, ...SPRING }),
}

/** Lists only the small run compares with memory: several values, two keys, pages further in, a time-of-day bound. */
const EXTRA: EventListQuery[] = [
  list(['common', 'rare']),
  list('common', {
    customFields: [
      { key: 'genre', values: ['common'] },
      { key: 'capacity', values: ['3', '4'] },
    ],
  }),
  list('common', { offset: 40, limit: 7, ...SPRING }),
  list('common', { startGte: '2027-03-01 11:00:00' }),
  list('common', { statuses: ['draft'] }),
  list('common', { language: 'ja' }),
  list('rare', { statuses: EDITOR }),
  list('common', { statuses: EDITOR, offset: 35, limit: 9, ...SPRING }),
  list(['common', 'rare'], { statuses: ['publish', 'draft'], offset: 3 }),
]

type Stmt = { sql: string; params: readonly SqlParam[] }

/** The same slugs and totals as the memory backend for every list. */
async function sameAsMemory(s: Storage, memory: Storage) {
  for (const q of [...Object.values(CASES), ...EXTRA]) {
    const [a, b] = await Promise.all([s.listEvents(q), memory.listEvents(q)])
    assert.deepEqual(
      { slugs: a.items.map((e) => e.slug), total: a.total },
      { slugs: b.items.map((e) => e.slug), total: b.total },
      JSON.stringify(q),
    )
  }
}

/**
 * Runs every case (warm: the second run is timed), checks the rare one's items, and returns each
 * case's page statement (ORDER BY ... LIMIT) and count statement.
 */
async function run(s: SqlStorage, seen: Stmt[], rare: number[]) {
  const out: Record<string, { page: Stmt; count: Stmt | undefined; ms: number; total: number }> = {}
  for (const [name, q] of Object.entries(CASES)) {
    await s.listEvents(q) // warm the record cache and the connection
    seen.length = 0
    const t = performance.now()
    const page = await s.listEvents(q)
    const ms = performance.now() - t
    const pages = seen.filter((x) => /ORDER BY/.test(x.sql) && /LIMIT/.test(x.sql))
    assert.equal(pages.length, 1, `${name}: one page statement`)
    // Not customFieldRefs' bounded count of each key's index entries.
    const count = seen.find((x) => /count\(\*\)|SUM\(/.test(x.sql) && !x.sql.includes(`LIMIT ${DRIVING_MATCHES + 1}`))
    out[name] = { page: pages[0]!, count, ms, total: page.total }
    if (name.startsWith('rare')) {
      assert.equal(page.total, rare.length)
      assert.deepEqual(new Set(page.items.map((e) => e.id)), new Set(rare.slice(0, 10)))
    } else {
      assert.equal(page.items.length, 10)
      for (const e of page.items) assert.equal(e.customFields.genre, 'common')
    }
  }
  return out
}

const report = (engine: string, r: Awaited<ReturnType<typeof run>>) =>
  console.log(
    `custom field index (${engine}) at ${ROWS}:\n` +
      Object.entries(r)
        .map(([name, x]) => `  ${name}: total ${x.total}, page + total ${x.ms.toFixed(1)} ms`)
        .join('\n'),
  )

/** Bulk events (at scale): every 10th of 10 "common" out of 3 (30%), every 20th a draft, over 700 days from 2027-01-01. */
const BULK_GENRE = `CASE WHEN g.i % 10 < 3 THEN '{"genre":"common"}' ELSE '{}' END`
const BULK_STATUS = `CASE WHEN g.i % 20 = 1 THEN 'draft' ELSE 'publish' END`
const BULK_EXCLUDED = [
  'id',
  'slug',
  'status',
  'custom_fields',
  'start_date',
  'end_date',
  'start_date_utc',
  'end_date_utc',
  'translation_group',
]

/** The custom rows of the bulk events, then migration 24's rebuild of event_filters' custom rows and counters. */
async function bulkValues(exec: (sql: string) => Promise<unknown>) {
  await exec(`INSERT INTO event_custom_values (event_id, field_key, field_value)
    SELECT id, 'genre', 'common' FROM posts WHERE slug LIKE 'bulk-%' AND custom_fields <> '{}'`)
  for (const sql of CUSTOM_FILTERS_BACKFILL) await exec(sql)
}

/** The totals at scale, counted the plain way (each matching post). */
async function plainTotal(query: (sql: string, params: SqlParam[]) => Promise<number>, q: EventListQuery) {
  const statuses = q.statuses.map((x) => `'${x}'`).join(', ')
  return query(
    `SELECT count(*) AS n FROM posts p WHERE p.type = 'event' AND p.hide_from_listings = FALSE AND p.language = 'en'
     AND p.status IN (${statuses}) AND p.start_date >= ? AND p.end_date <= ?
     AND EXISTS (SELECT 1 FROM event_custom_values x WHERE x.event_id = p.id AND x.field_key = 'genre' AND x.field_value = 'common')`,
    [q.startGte!, q.endLte!],
  )
}

/** Plans every engine must show for the common value (EXPLAIN text, engine-specific patterns). */
function checkCommon(
  r: Awaited<ReturnType<typeof run>>,
  plan: (x: Stmt) => Promise<string> | string,
  want: { range: RegExp; head: RegExp; counters: RegExp; scan: RegExp },
) {
  return (async () => {
    for (const [name, x] of Object.entries(r)) {
      if (name.startsWith('rare')) continue
      // Every total of whole days: the value's day counters, never its matches one by one.
      assert.ok(x.count, `${name}: a count statement`)
      assert.match(x.count.sql, /FROM event_filter_day_counts c/, `${name}: ${x.count.sql}`)
      const countPlan = await plan(x.count)
      assert.match(countPlan, want.counters, `${name}:\n${countPlan}`)
      assert.doesNotMatch(countPlan, want.scan, `${name}:\n${countPlan}`)
      const pagePlan = await plan(x.page)
      assert.doesNotMatch(pagePlan, want.scan, `${name}:\n${pagePlan}`)
      // One status: the value's range of event_filters in list order, stopped after the page.
      if (!name.includes('statuses')) assert.match(pagePlan, want.range, `${name}:\n${pagePlan}`)
      // Five: the first rows of each status's range, merged (never the posts of the window).
      else {
        const heads = pagePlan.match(new RegExp(want.head.source, 'g')) ?? []
        assert.equal(heads.length, EDITOR.length, `${name}: one range per status\n${pagePlan}`)
        assert.doesNotMatch(pagePlan, /posts_event_start|event_custom_values/, `${name}:\n${pagePlan}`)
      }
    }
  })()
}

/** `?` placeholders as PostgreSQL's `$n`. */
const dollars = (sql: string) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const bindSqlite = (v: SqlParam) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

describe('custom field index (sqlite)', () => {
  it(
    'a rare value drives the page from event_custom_values; a common one reads its event_filters range and day counters',
    async () => {
      const file = join(dir, 'custom.sqlite')
      const { driver, seen } = recording(await openSqliteFile(file))
      let s = createSqlStorage({ driver })
      const rare = await s.transaction(fill)
      if (!AT_SCALE) {
        const memory = createMemoryStorage()
        await memory.transaction(fill)
        await sameAsMemory(s, memory)
      } else {
        const t = performance.now()
        const raw = new Database(file)
        const cols = (raw.prepare(`SELECT name FROM pragma_table_info('posts')`).all() as { name: string }[])
          .map((r) => r.name)
          .filter((c) => !BULK_EXCLUDED.includes(c))
        const day = `strftime('%Y-%m-%d', '2027-01-01', '+' || (g.i % 700) || ' days')`
        raw
          .prepare(
            `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?)
             INSERT INTO posts (${cols.join(', ')}, slug, status, custom_fields, start_date, end_date, start_date_utc, end_date_utc, translation_group)
             SELECT ${cols.map((c) => `t.${c}`).join(', ')}, 'bulk-' || g.i, ${BULK_STATUS}, ${BULK_GENRE}, ${day} || ' 10:00:00', ${day} || ' 12:00:00',
               ${day} || ' 10:00:00', ${day} || ' 12:00:00', 0
             FROM g CROSS JOIN (SELECT * FROM posts WHERE type = 'event' AND custom_fields = '{}' LIMIT 1) t`,
          )
          .run(ROWS - SEEDED)
        await bulkValues(async (sql) => raw.exec(sql))
        raw.close()
        console.log(`custom field index (sqlite): ${ROWS} events seeded in ${Math.round(performance.now() - t)} ms`)
      }
      const r = await run(s, seen, rare)
      const db = new Database(file, { readonly: true })
      const plan = (x: Stmt) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${x.sql}`).all(...x.params.map(bindSqlite)) as { detail: string }[]).map((r) => r.detail).join('\n')
      if (AT_SCALE) {
        report('sqlite', r)
        for (const [name, q] of Object.entries(CASES))
          if (!name.startsWith('rare'))
            assert.equal(r[name]!.total, await plainTotal(async (sql, p) => (db.prepare(sql).get(...p) as { n: number }).n, q), name)
        for (const [name, x] of Object.entries(r)) console.log(`${name} page plan:\n${plan(x.page)}`)
      }
      const rarePlan = plan(r['rare, publish']!.page)
      assert.match(rarePlan, /SEARCH x USING (COVERING )?INDEX event_custom_values_key \(field_key=\? AND field_value=\?\)/, rarePlan)
      assert.match(rarePlan, /SEARCH p USING INTEGER PRIMARY KEY/, rarePlan)
      assert.doesNotMatch(rarePlan, /posts_event_start|SCAN [px]\b/, rarePlan)
      await checkCommon(r, plan, {
        range:
          /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_date>\?\)[^]*SEARCH p USING INTEGER PRIMARY KEY/,
        head: /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_date>\?\)/,
        counters: /SEARCH c USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_day>\?\)/,
        // (`SCAN f` alone is the merged heads of an editor's list: a few rows per status)
        scan: /SCAN [pcx]\b|SCAN f USING|SCAN event_filters/,
      })
      for (const [name, x] of Object.entries(r))
        if (!name.startsWith('rare') && !name.includes('statuses')) assert.doesNotMatch(plan(x.page), /TEMP B-TREE|SCAN f\b/, name)
      db.close()
      if (!AT_SCALE) {
        // Writes keep the rows in step; migration 24 rebuilds them the same from event_custom_values.
        const ids = (await s.listEvents(list('common', { limit: 7 }))).items.map((e) => e.id)
        const memory = createMemoryStorage()
        await memory.transaction(fill)
        await s.transaction((tx) => move(tx, ids))
        await memory.transaction((tx) => move(tx, ids))
        await sameAsMemory(s, memory)
        await s.close()
        const raw = new Database(file)
        raw.exec(`DELETE FROM event_filters WHERE kind LIKE 'custom:%'; DELETE FROM event_filter_day_counts WHERE kind LIKE 'custom:%';
          DELETE FROM calendar_migrations WHERE version = 24`)
        raw.close()
        s = createSqlStorage({ driver: await openSqliteFile(file) })
        await sameAsMemory(s, memory)
      }
      await s.close()
    },
    AT_SCALE ? 30 * 60_000 : 60_000,
  )
})

/** PostgreSQL: copies the seeded events in one statement per table until `rows` events exist. */
async function bulk(client: pg.PoolClient, rows: number) {
  const cols = (
    await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'posts'`,
    )
  ).rows
    .map((r) => r.column_name)
    .filter((c) => !BULK_EXCLUDED.includes(c))
  const day = `to_char(DATE '2027-01-01' + (g.i % 700), 'YYYY-MM-DD')`
  await client.query(
    `INSERT INTO posts (${cols.join(', ')}, slug, status, custom_fields, start_date, end_date, start_date_utc, end_date_utc, translation_group)
     SELECT ${cols.map((c) => `t.${c}`).join(', ')}, 'bulk-' || g.i, ${BULK_STATUS}, ${BULK_GENRE}, ${day} || ' 10:00:00', ${day} || ' 12:00:00',
       ${day} || ' 10:00:00', ${day} || ' 12:00:00', 0
     FROM generate_series(1, $1::int) g(i) CROSS JOIN (SELECT * FROM posts WHERE type = 'event' AND custom_fields = '{}' LIMIT 1) t`,
    [rows - SEEDED],
  )
  await bulkValues((sql) => client.query(sql))
}

pgDescribe('custom field index (postgres)', () => {
  it(
    'a rare value drives the page from event_custom_values; a common one reads its event_filters range and day counters',
    async () => {
      const schema = `cf_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
      await admin!.query(`CREATE SCHEMA ${schema}`)
      const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` })
      const { driver, seen } = recording(pgDriver(pool))
      const s = createSqlStorage({ driver })
      const client = await pool.connect()
      const tables = ['posts', 'event_custom_values', 'event_filters', 'event_filter_day_counts']
      try {
        const rare = await s.transaction(fill)
        if (AT_SCALE) {
          const t = performance.now()
          await bulk(client, ROWS)
          // One statement each: VACUUM refuses to run in the implicit transaction of a multi-statement query.
          for (const table of tables) await client.query(`VACUUM ANALYZE ${table}`)
          console.log(`custom field index (postgres): ${ROWS} events seeded in ${Math.round(performance.now() - t)} ms`)
        } else {
          for (const table of tables) await client.query(`ANALYZE ${table}`)
        }
        const r = await run(s, seen, rare)
        if (AT_SCALE) report('postgres', r)
        // At scale the planner decides alone; the small run only asks whether the indexes can serve.
        await client.query('BEGIN')
        if (!AT_SCALE) await client.query('SET LOCAL enable_seqscan = off')
        const plan = async (x: Stmt) =>
          (await client.query(`EXPLAIN ${x.sql}`, x.params as unknown[])).rows
            .map((r: Record<string, string>) => r['QUERY PLAN'])
            .join('\n')
        const rarePlan = await plan(r['rare, publish']!.page)
        assert.match(rarePlan, /(Index (Only )?Scan using|Bitmap Index Scan on) event_custom_values_key\b/, rarePlan)
        assert.match(rarePlan, /Index Scan using posts_pkey/, rarePlan)
        assert.doesNotMatch(rarePlan, /Seq Scan/, rarePlan)
        await checkCommon(r, plan, {
          range: /Index (Only )?Scan using event_filters_pkey on event_filters f[^]*Index Scan using posts_pkey/,
          head: /Index (Only )?Scan using event_filters_pkey on event_filters f/,
          counters: /(Index (Only )?Scan using|Bitmap Index Scan on) event_filter_day_counts_pkey\b/,
          scan: /Seq Scan/,
        })
        const plans: string[] = []
        for (const [name, x] of Object.entries(r)) plans.push(`${name} page plan:\n${await plan(x.page)}`)
        await client.query('ROLLBACK')
        if (AT_SCALE) {
          for (const [name, q] of Object.entries(CASES))
            if (!name.startsWith('rare'))
              assert.equal(
                r[name]!.total,
                await plainTotal(async (sql, p) => Number((await client.query(dollars(sql), p)).rows[0].n), q),
                name,
              )
          console.log(plans.join('\n'))
        } else {
          const memory = createMemoryStorage()
          await memory.transaction(fill)
          await sameAsMemory(s, memory)
          const ids = (await s.listEvents(list('common', { limit: 7 }))).items.map((e) => e.id)
          await s.transaction((tx) => move(tx, ids))
          await memory.transaction((tx) => move(tx, ids))
          await sameAsMemory(s, memory)
          // Migration 24's rebuild gives the same rows (its statements, as the runner sends them).
          await client.query(`DELETE FROM event_filters WHERE kind LIKE 'custom:%'`)
          await bulkValues((sql) => client.query(sql))
          await sameAsMemory(s, memory)
        }
      } finally {
        client.release()
        await s.close()
        await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
      }
    },
    AT_SCALE ? 30 * 60_000 : 60_000,
  )
})
