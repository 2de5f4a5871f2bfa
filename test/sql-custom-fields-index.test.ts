/**
 * The custom_fields[key]=value filter on the SQL storages reads event_custom_values' index
 * (field_key, field_value, event_id) both ways (src/storage/sql/custom-values.ts):
 * - a rare value drives the page: its event ids from the index, each post by primary key,
 *   never the date window of every event;
 * - a common value (more rows than DRIVING_MATCHES) is probed per row of the list's own range
 *   through the same index, all three columns bound (PostgreSQL may take the primary key, by
 *   event id, instead: one lookup either way), so a page stops after `limit` matches.
 * These tests fail when a change to the statements or the schema makes either engine scan.
 *
 * As in test/sql-geo-index.test.ts, the default run is small (a few thousand events) with exact
 * statistics on PostgreSQL and sequential scans priced out: it asks whether the index can serve
 * these exact statements. CUSTOM_FIELDS_ROWS=1000000 copies events in bulk up to that many
 * (PostgreSQL, set-based) and checks the planner's own choice at that scale, with timings; that
 * run is the 1M measurement docs/custom-fields.md reports. SQLite plans without statistics (the
 * storage never runs ANALYZE), so its plans do not depend on the row count.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlParam, type SqlStorage } from '../src/storage/sql/index.js'
import type { EventListQuery, StorageTx } from '../src/storage/types.js'
import { DRIVING_MATCHES } from '../src/storage/sql/custom-values.js'
import { newEvent } from '../src/testing/index.js'
import { admin, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-custom-fields-index-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())

const SEEDED = 3000
const COMMON = DRIVING_MATCHES + 500
const ROWS = Number(process.env.CUSTOM_FIELDS_ROWS ?? 0)

/** 3,000 events over 2027: 2,500 of genre "common", 5 of genre "rare", the rest with none. */
async function fill(tx: StorageTx): Promise<number[]> {
  const events = Array.from({ length: SEEDED }, (_, i) => {
    const day = `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`
    const genre = i < COMMON ? 'common' : i % 100 === 7 ? 'rare' : null
    return newEvent({
      slug: `e-${i}`,
      startDate: `${day} 10:00:00`,
      endDate: `${day} 12:00:00`,
      customFields: genre ? { genre, capacity: i % 50 } : {},
    })
  })
  // The SQL storage writes a series this way; every SQL storage has it.
  const stored = await tx.insertEvents!(events)
  return stored.flatMap((e, i) => (e && i >= COMMON && i % 100 === 7 ? [e.id] : []))
}

const list = (genre: string): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  startGte: '2026-12-01 00:00:00',
  endLte: '2028-12-31 23:59:59',
  orderBy: 'start',
  offset: 0,
  limit: 10,
  customFields: [{ key: 'genre', values: [genre] }],
})

type Stmt = { sql: string; params: readonly SqlParam[] }

/** Runs both lists, checks what they answer, and returns the page statement each one sent. */
async function run(s: SqlStorage, seen: Stmt[], rare: number[], common: number) {
  const timed = async (q: EventListQuery) => {
    seen.length = 0
    const t = performance.now()
    const page = await s.listEvents(q)
    return { page, ms: performance.now() - t, stmts: [...seen] }
  }
  const pageOf = (stmts: Stmt[]) => {
    const found = stmts.filter((x) => /ORDER BY/.test(x.sql) && /LIMIT/.test(x.sql))
    assert.equal(found.length, 1, 'one page statement')
    return found[0]!
  }
  await s.listEvents(list('rare')) // warm the record cache and the connection
  const r = await timed(list('rare'))
  assert.equal(r.page.total, rare.length)
  assert.deepEqual(new Set(r.page.items.map((e) => e.id)), new Set(rare.slice(0, 10)))
  const c = await timed(list('common'))
  assert.equal(c.page.total, common)
  assert.equal(c.page.items.length, 10)
  for (const e of c.page.items) assert.equal(e.customFields.genre, 'common')
  return { rare: pageOf(r.stmts), common: pageOf(c.stmts), ms: { rare: r.ms, common: c.ms } }
}

const bindSqlite = (v: SqlParam) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

describe('custom field index (sqlite)', () => {
  it('a rare value drives the page from event_custom_values; a common one is probed per row of the window', async () => {
    const file = join(dir, 'custom.sqlite')
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    const rare = await s.transaction(fill)
    const stmts = await run(s, seen, rare, COMMON)
    const db = new Database(file, { readonly: true })
    const plan = (x: Stmt) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${x.sql}`).all(...x.params.map(bindSqlite)) as { detail: string }[]).map((r) => r.detail).join('\n')
    const rarePlan = plan(stmts.rare)
    assert.match(rarePlan, /SEARCH x USING (COVERING )?INDEX event_custom_values_key \(field_key=\? AND field_value=\?\)/, rarePlan)
    assert.match(rarePlan, /SEARCH p USING INTEGER PRIMARY KEY/, rarePlan)
    assert.doesNotMatch(rarePlan, /posts_event_start|SCAN [px]\b/, rarePlan)
    const commonPlan = plan(stmts.common)
    assert.match(commonPlan, /(SEARCH|SCAN) p USING (COVERING )?INDEX posts_event_start/, commonPlan)
    assert.match(
      commonPlan,
      /SEARCH x USING (COVERING )?INDEX event_custom_values_key \(field_key=\? AND field_value=\? AND event_id=\?\)/,
      commonPlan,
    )
    assert.doesNotMatch(commonPlan, /SCAN x\b|TEMP B-TREE/, commonPlan)
    db.close()
    await s.close()
  })
})

/** PostgreSQL: copies the seeded events in one statement per table until `rows` events exist (about 30% "common"). */
async function bulk(client: pg.PoolClient, rows: number) {
  const cols = (
    await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'posts'
       AND column_name NOT IN ('id', 'slug', 'start_date', 'end_date', 'start_date_utc', 'end_date_utc', 'translation_group')`,
    )
  ).rows.map((r) => r.column_name)
  const day = `to_char(DATE '2027-01-01' + (g.i % 700), 'YYYY-MM-DD')`
  await client.query(
    `INSERT INTO posts (${cols.join(', ')}, slug, start_date, end_date, start_date_utc, end_date_utc, translation_group)
     SELECT ${cols.map((c) => `t.${c}`).join(', ')}, 'bulk-' || g.i, ${day} || ' 10:00:00', ${day} || ' 12:00:00',
       ${day} || ' 10:00:00', ${day} || ' 12:00:00', 0
     FROM generate_series(1, $1::int) g(i) CROSS JOIN (SELECT * FROM posts WHERE type = 'event' AND custom_fields = '{}' LIMIT 1) t`,
    [rows - SEEDED],
  )
  await client.query(
    `INSERT INTO event_custom_values (event_id, field_key, field_value)
     SELECT id, 'genre', 'common' FROM posts WHERE slug LIKE 'bulk-%' AND id % 10 < 3`,
  )
}

pgDescribe('custom field index (postgres)', () => {
  it(
    'a rare value drives the page from event_custom_values; a common one is probed per row of the window',
    async () => {
      const schema = `cf_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
      await admin!.query(`CREATE SCHEMA ${schema}`)
      const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` })
      const { driver, seen } = recording(pgDriver(pool))
      const s = createSqlStorage({ driver })
      const client = await pool.connect()
      try {
        const rare = await s.transaction(fill)
        let common = COMMON
        if (ROWS > SEEDED) {
          const t = performance.now()
          await bulk(client, ROWS)
          common = Number((await client.query(`SELECT count(*) AS n FROM event_custom_values WHERE field_value = 'common'`)).rows[0].n)
          // One statement each: VACUUM refuses to run in the implicit transaction of a multi-statement query.
          await client.query('VACUUM ANALYZE posts')
          await client.query('VACUUM ANALYZE event_custom_values')
          console.log(`custom field index: ${ROWS} events seeded in ${Math.round(performance.now() - t)} ms, ${common} common`)
        } else await client.query('ANALYZE posts; ANALYZE event_custom_values')
        const stmts = await run(s, seen, rare, common)
        // At scale the planner decides alone; the small run only asks whether the index can serve.
        await client.query('BEGIN')
        if (ROWS <= SEEDED) await client.query('SET LOCAL enable_seqscan = off')
        const plan = async (x: Stmt) =>
          (await client.query(`EXPLAIN ${x.sql}`, x.params as unknown[])).rows
            .map((r: Record<string, string>) => r['QUERY PLAN'])
            .join('\n')
        const rarePlan = await plan(stmts.rare)
        assert.match(rarePlan, /(Index (Only )?Scan using|Bitmap Index Scan on) event_custom_values_key\b/, rarePlan)
        assert.match(rarePlan, /Index Scan using posts_pkey/, rarePlan)
        assert.doesNotMatch(rarePlan, /Seq Scan/, rarePlan)
        // The probe per row: either index of event_custom_values (by value, or the primary key
        // by event id), each one key lookup.
        const commonPlan = await plan(stmts.common)
        assert.match(commonPlan, /Index (Only )?Scan using event_custom_values_(key|pkey)\b/, commonPlan)
        assert.doesNotMatch(commonPlan, /Seq Scan/, commonPlan)
        await client.query('ROLLBACK')
        if (ROWS > SEEDED) {
          // Timings at scale, after a warm-up run each: the page and its total.
          const again = await run(s, seen, rare, common)
          console.log(`custom field index at ${ROWS}: rare ${again.ms.rare.toFixed(1)} ms, common ${again.ms.common.toFixed(1)} ms`)
          console.log(`rare plan:\n${rarePlan}\ncommon plan:\n${commonPlan}`)
        }
      } finally {
        client.release()
        await s.close()
        await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
      }
    },
    ROWS > SEEDED ? 30 * 60_000 : 60_000,
  )
})
