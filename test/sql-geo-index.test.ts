/**
 * The geofence filters on the SQL storages read from indexes (src/storage/sql/read.ts): the
 * venues of a circle's bounding box come from posts_venue_geo, and an event list near a point
 * reads the events of the few venues found there through their link rows, never by walking the
 * date window of every event; with more venues than that and one category, the category's range
 * is read and each row's venue link checked by primary key. These tests fail when a change to the statements (or the schema)
 * makes either engine fall back to a scan. What the filters answer is covered over HTTP on every
 * engine (src/testing/http/geo.suite.ts, geo-combinations.suite.ts).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlParam, type SqlStorage } from '../src/storage/sql/index.js'
import type { EventListQuery, LinkedListQuery, StorageTx } from '../src/storage/types.js'
import type { GeoCircle } from '../src/storage/geo.js'
import { newEvent, newTerm, newVenue } from '../src/testing/index.js'
import { admin, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-geo-index-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())

// Points the queries aim at; everything else in the fill lies far from them.
const LONE = { lat: 44.5, lng: -100.3 } // one venue
const TWIN = { lat: 35.2, lng: -80.8 } // two venues about 3 km apart
const DATELINE = { lat: -17.0, lng: 179.95 } // a box that crosses the antimeridian
const CROWD = { lat: 60.0, lng: 25.0 } // 210 venues: more than drive an event list (read.ts)

/**
 * Venues spread over a continent (a 12 x 12 grid, some without coordinates, one trashed), each
 * with events through 2027, plus the venues at the points above and events without a venue.
 */
async function fill(tx: StorageTx) {
  const events = async (venueId: number, slug: string, n: number) => {
    const ids: number[] = []
    for (let k = 0; k < n; k++) {
      const day = `2027-${String(1 + (k % 12)).padStart(2, '0')}-${String(1 + ((k * 7) % 28)).padStart(2, '0')}`
      const e = await tx.insertPost(
        newEvent({ slug: `${slug}-${k}`, venueIds: [venueId], startDate: `${day} 10:00:00`, endDate: `${day} 12:00:00` }),
      )
      ids.push(e.id)
    }
    return ids
  }
  for (let i = 0; i < 144; i++) {
    const lat = 28 + Math.floor(i / 12) * 1.7
    const lng = -122 + (i % 12) * 4.1
    const located = i % 9 !== 0
    const v = await tx.insertPost(
      newVenue({ slug: `grid-${i}`, geoLat: located ? lat : null, geoLng: located ? lng : null, status: i === 5 ? 'trash' : 'publish' }),
    )
    await events(v.id, `grid-${i}`, 3)
  }
  for (let k = 0; k < 40; k++) await tx.insertPost(newEvent({ slug: `nowhere-${k}` }))
  const lone = (await tx.insertPost(newVenue({ slug: 'lone', geoLat: LONE.lat, geoLng: LONE.lng }))).id
  const twinA = (await tx.insertPost(newVenue({ slug: 'twin-a', geoLat: TWIN.lat, geoLng: TWIN.lng }))).id
  const twinB = (await tx.insertPost(newVenue({ slug: 'twin-b', geoLat: TWIN.lat + 0.02, geoLng: TWIN.lng + 0.02 }))).id
  const fiji = (await tx.insertPost(newVenue({ slug: 'fiji', geoLat: DATELINE.lat, geoLng: -179.98 }))).id
  // A crowd of venues, with events at two: one in the category, one not; the category also on
  // an event without a venue.
  const crowd: number[] = []
  for (let i = 0; i < 210; i++) {
    const v = await tx.insertPost(
      newVenue({ slug: `crowd-${i}`, geoLat: CROWD.lat + ((i % 15) - 7) * 0.01, geoLng: CROWD.lng + (Math.floor(i / 15) - 7) * 0.02 }),
    )
    crowd.push(v.id)
  }
  const folk = (await tx.insertTerm(newTerm({ slug: 'folk', name: 'Folk' }))).id
  const crowdFolk = await tx.insertPost(newEvent({ slug: 'crowd-folk', venueIds: [crowd[100]!], categoryIds: [folk] }))
  await tx.insertPost(newEvent({ slug: 'crowd-plain', venueIds: [crowd[101]!] }))
  await tx.insertPost(newEvent({ slug: 'nowhere-folk', categoryIds: [folk] }))
  return {
    lone,
    twinA,
    twinB,
    fiji,
    folk,
    crowdFolk: crowdFolk.id,
    loneEvents: await events(lone, 'lone', 6),
    twinEvents: [...(await events(twinA, 'twin-a', 4)), ...(await events(twinB, 'twin-b', 4))],
  }
}

type Refs = Awaited<ReturnType<typeof fill>>
const circle = (p: { lat: number; lng: number }, radiusKm = 20): GeoCircle => ({ ...p, radiusKm })
const venuesNear = (near: GeoCircle): LinkedListQuery => ({ language: 'en', statuses: ['publish'], offset: 0, limit: 10, geo: { near } })
const eventsNear = (near: GeoCircle): EventListQuery => ({
  language: 'en',
  statuses: ['publish'],
  // The default window of GET /events: whole days, so totals come from the day counters.
  startGte: '2026-12-01 00:00:00',
  endLte: '2028-12-31 23:59:59',
  orderBy: 'start',
  offset: 0,
  limit: 10,
  venueGeo: { near, unpublishedVenues: 'none' },
})

/** Runs the lists, checks what they answer, and returns the statements each one sent. */
async function run(s: SqlStorage, seen: { sql: string; params: readonly SqlParam[] }[], refs: Refs) {
  const sent = async (fn: () => Promise<unknown>) => {
    seen.length = 0
    await fn()
    return [...seen]
  }
  const box = (stmts: typeof seen) => {
    const found = stmts.filter((x) => /FROM posts g WHERE/.test(x.sql))
    assert.equal(found.length, 1, 'one bounding-box statement')
    return found[0]!
  }
  assert.deepEqual(
    (await s.listLinked('venue', venuesNear(circle(LONE)))).items.map((v) => v.id),
    [refs.lone],
  )
  const venueList = box(await sent(() => s.listLinked('venue', venuesNear(circle(LONE)))))
  assert.deepEqual(
    (await s.listLinked('venue', venuesNear(circle(DATELINE, 30)))).items.map((v) => v.id),
    [refs.fiji],
  )
  const dateline = box(await sent(() => s.listLinked('venue', venuesNear(circle(DATELINE, 30)))))

  const lone = await s.listEvents(eventsNear(circle(LONE)))
  assert.deepEqual(
    lone.items.map((e) => e.id),
    refs.loneEvents.slice().sort((a, b) => a - b),
  )
  assert.equal(lone.total, 6)
  const loneStmts = await sent(() => s.listEvents(eventsNear(circle(LONE))))
  const twin = await s.listEvents(eventsNear(circle(TWIN)))
  assert.equal(twin.total, 8)
  assert.deepEqual(new Set(twin.items.map((e) => e.id)), new Set(refs.twinEvents))
  const twinStmts = await sent(() => s.listEvents(eventsNear(circle(TWIN))))
  // More venues in the fence than drive a list, and one category: the category's range, each
  // row probed for a venue in the fence.
  const crowd = await s.listEvents({ ...eventsNear(circle(CROWD, 30)), categoryIds: [refs.folk] })
  assert.deepEqual({ ids: crowd.items.map((e) => e.id), total: crowd.total }, { ids: [refs.crowdFolk], total: 1 })
  const crowdStmts = await sent(() => s.listEvents({ ...eventsNear(circle(CROWD, 30)), categoryIds: [refs.folk] }))
  // The page: the statement that selects whole posts and pages them.
  const pageOf = (stmts: typeof seen) => {
    const found = stmts.filter((x) => /ORDER BY/.test(x.sql) && /LIMIT/.test(x.sql))
    assert.equal(found.length, 1, 'one page statement')
    return found[0]!
  }
  return {
    venueList,
    dateline,
    loneBox: box(loneStmts),
    lonePage: pageOf(loneStmts),
    twinPage: pageOf(twinStmts),
    crowdPage: pageOf(crowdStmts),
  }
}

const bindSqlite = (v: SqlParam) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)

describe('geofence indexes (sqlite)', () => {
  it('reads the bounding box from posts_venue_geo and a venue’s events through its link rows', async () => {
    const file = join(dir, 'geo.sqlite')
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    const refs = await s.transaction(fill)
    const stmts = await run(s, seen, refs)
    // No ANALYZE, as in production (the storage never runs it): these are the plans users get.
    const db = new Database(file, { readonly: true })
    const plan = (x: { sql: string; params: readonly SqlParam[] }) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${x.sql}`).all(...x.params.map(bindSqlite)) as { detail: string }[]).map((r) => r.detail).join('\n')

    for (const x of [stmts.venueList, stmts.loneBox, stmts.dateline]) {
      const p = plan(x)
      assert.match(p, /SEARCH g USING (COVERING )?INDEX posts_venue_geo \(type=\? AND geo_lat>\? AND geo_lat<\?\)/, p)
      assert.doesNotMatch(p, /SCAN g\b/, p)
    }
    // One venue in the fence: its range of event_filters, in list order, each post by key.
    const lone = plan(stmts.lonePage)
    assert.match(lone, /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\?/, lone)
    assert.match(lone, /SEARCH p USING INTEGER PRIMARY KEY/, lone)
    assert.doesNotMatch(lone, /posts_event_start|SCAN [fp]\b|TEMP B-TREE/, lone)
    // Two venues: their event ids from event_links (by linked id), then each post by key; the
    // handful of rows is sorted, the date window of all events is never walked.
    const twin = plan(stmts.twinPage)
    assert.match(twin, /SEARCH x USING (COVERING )?INDEX event_links_linked \(linked_id=\? AND kind=\?\)/, twin)
    assert.match(twin, /SEARCH p USING INTEGER PRIMARY KEY/, twin)
    assert.doesNotMatch(twin, /posts_event_start|SCAN p\b/, twin)
    // A crowd of venues and one category: the category's range, each post by key, and the
    // event's own venue link (primary key) looked up in the crowd's list.
    const crowd = plan(stmts.crowdPage)
    assert.match(crowd, /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\?/, crowd)
    assert.match(crowd, /SEARCH x USING (COVERING )?INDEX sqlite_autoindex_event_links_1 \(event_id=\? AND kind=\?\)/, crowd)
    assert.doesNotMatch(crowd, /posts_event_start|SCAN [fpx]\b|TEMP B-TREE/, crowd)
    db.close()
    await s.close()
  })
})

pgDescribe('geofence indexes (postgres)', () => {
  it('reads the bounding box from posts_venue_geo and a venue’s events through its link rows', async () => {
    const schema = `geo_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    await admin!.query(`CREATE SCHEMA ${schema}`)
    const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` })
    const { driver, seen } = recording(pgDriver(pool))
    const s = createSqlStorage({ driver })
    const client = await pool.connect()
    try {
      const refs = await s.transaction(fill)
      const stmts = await run(s, seen, refs)
      // A few hundred rows fit in a handful of pages, where a sequential scan really is the
      // cheapest plan, and whether the planner thinks so depends on when autovacuum last
      // analyzed the tables. The question here is whether the indexes can serve these exact
      // statements (a predicate that no longer matches posts_venue_geo's partial WHERE, or a
      // join order that walks posts first, would not), so: exact statistics (ANALYZE reads
      // every row of tables this small, so they are the same on every run), and sequential
      // scans priced out for this transaction only (SET LOCAL; nothing outlives the test).
      // Seeding the hundred thousand rows at which the planner picks these indexes on its own
      // would cost this test more than a minute; the scale bench measures that case.
      await client.query('ANALYZE posts; ANALYZE event_links; ANALYZE event_filters; ANALYZE event_filter_day_counts')
      await client.query('BEGIN')
      await client.query('SET LOCAL enable_seqscan = off')
      const plan = async (x: { sql: string; params: readonly SqlParam[] }) =>
        (await client.query(`EXPLAIN ${x.sql}`, x.params as unknown[])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')

      for (const x of [stmts.venueList, stmts.loneBox, stmts.dateline]) {
        const p = await plan(x)
        assert.match(p, /(Index (Only )?Scan using|Bitmap Index Scan on) posts_venue_geo\b/, p)
        assert.doesNotMatch(p, /Seq Scan/, p)
      }
      const lone = await plan(stmts.lonePage)
      assert.match(lone, /(Index (Only )?Scan using|Bitmap Index Scan on) event_filters_pkey\b/, lone)
      assert.doesNotMatch(lone, /posts_event_start|Seq Scan/, lone)
      const twin = await plan(stmts.twinPage)
      assert.match(twin, /(Index (Only )?Scan using|Bitmap Index Scan on) event_links_linked\b/, twin)
      assert.doesNotMatch(twin, /posts_event_start|Seq Scan/, twin)
      const crowd = await plan(stmts.crowdPage)
      assert.match(crowd, /(Index (Only )?Scan using|Bitmap Index Scan on) event_filters_pkey\b/, crowd)
      assert.match(crowd, /(Index (Only )?Scan using|Bitmap Index Scan on) event_links_pkey\b/, crowd)
      assert.doesNotMatch(crowd, /posts_event_start|Seq Scan/, crowd)
      await client.query('ROLLBACK')
    } finally {
      client.release()
      await s.close()
      await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
    }
  })
})
