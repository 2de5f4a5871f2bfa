/**
 * Event lists filtered by venue, organizer, category or tag on the SQL storages, answered from
 * event_filters and its day counters (src/storage/sql/event-filters.ts): the same pages and
 * totals as the memory backend after creates and updates that move every copied field, after
 * migrating a database that had neither table, and through one index range without a sort.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, it } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile, type SqlDriver, type SqlParam } from '../src/storage/sql/index.js'
import type { EventListQuery, Storage, StorageTx } from '../src/storage/types.js'
import { newEvent, newTerm, newVenue } from '../src/testing/index.js'
import { admin, schemaStorage, url, pgDescribe } from './support/pg-schema.js'
import { recording } from './support/sql-checks.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-filters-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())
let n = 0
const freshFile = () => join(dir, `db-${++n}.sqlite`)

/** A deterministic mix: several links per kind, ids listed twice, hidden, drafts, another language, updates. */
async function fill(tx: StorageTx) {
  const v = [] as number[]
  for (let i = 0; i < 3; i++) v.push((await tx.insertPost(newVenue({ slug: `v${i}`, title: `Venue ${i}` }))).id)
  const o = (await tx.insertPost({ ...newVenue({ slug: 'o' }), type: 'organizer', phone: '', website: '', email: '' } as never)).id
  const c = [] as number[]
  for (let i = 0; i < 3; i++) c.push((await tx.insertTerm(newTerm({ slug: `c${i}`, name: `C${i}` }))).id)
  const t = (await tx.insertTerm(newTerm({ taxonomy: 'tag', slug: 't', name: 'T' }))).id
  const ids: number[] = []
  for (let i = 0; i < 40; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    const month = i % 3 === 0 ? '01' : '02'
    const allDay = i % 5 === 0
    const e = await tx.insertPost(
      newEvent({
        slug: `e${i}`,
        language: i % 11 === 0 ? 'ja' : 'en',
        status: i % 7 === 0 ? 'draft' : 'publish',
        hideFromListings: i % 13 === 0,
        startDate: `2027-${month}-${day} ${allDay ? '00:00:00' : '10:00:00'}`,
        endDate: `2027-${month}-${day} ${allDay ? '23:59:59' : '12:00:00'}`,
        venueIds: [v[i % 3]!],
        organizerIds: i % 2 ? [o] : [],
        categoryIds: i % 4 === 0 ? [c[0]!, c[0]!, c[1]!] : [c[i % 3]!],
        tagIds: i % 3 === 1 ? [t] : [],
      }),
    )
    ids.push(e.id)
  }
  // Updates that move each copied field: links, status, language, dates, visibility.
  await tx.updatePost(ids[1]!, 'event', { venueIds: [v[2]!], categoryIds: [c[2]!, c[0]!] })
  await tx.updatePost(ids[2]!, 'event', { status: 'draft' })
  await tx.updatePost(ids[3]!, 'event', { language: 'ja' })
  await tx.updatePost(ids[4]!, 'event', { startDate: '2027-03-01 00:00:00', endDate: '2027-03-01 23:59:59' })
  await tx.updatePost(ids[5]!, 'event', { hideFromListings: true })
  await tx.updatePost(ids[13]!, 'event', { hideFromListings: false })
  await tx.updatePost(ids[6]!, 'event', { status: 'trash' })
  await tx.updatePost(ids[8]!, 'event', { tagIds: [t, t] })
  // A venue trashed (unlinked from its events) and a deleted term leave every list they filtered.
  const gone = (await tx.insertPost(newVenue({ slug: 'gone' }))).id
  const term = (await tx.insertTerm(newTerm({ slug: 'gone', name: 'Gone' }))).id
  await tx.updatePost(ids[9]!, 'event', { venueIds: [gone], categoryIds: [term, c[1]!] })
  await tx.unlinkPost(gone)
  await tx.deleteTerm(term)
  // Permanent deletes (DELETE ?force=true) leave every list too, counters included.
  const doomed = (await tx.insertPost(newVenue({ slug: 'doomed' }))).id
  await tx.updatePost(ids[10]!, 'event', { venueIds: [doomed] })
  await tx.deletePost(doomed)
  await tx.deletePost(ids[12]!)
  return { v, o, c, t, gone, term, doomed }
}

type Refs = Awaited<ReturnType<typeof fill>>

function queries(r: Refs): Array<Partial<EventListQuery>> {
  const jan = { startGte: '2027-01-01 00:00:00', endLte: '2027-01-31 23:59:59' }
  return [
    { venueIds: [r.v[0]!] },
    { venueIds: [r.gone] },
    { venueIds: [r.doomed] },
    { venueIds: [r.v[0]!], ...{ startGte: '2027-01-01 00:00:00', endLte: '2027-01-31 23:59:59' } },
    { categoryIds: [r.term] },
    { categoryIds: [r.term], startGte: '2027-01-01 00:00:00' },
    { venueIds: [r.v[2]!], ...jan },
    { venueIds: [r.v[1]!], statuses: ['publish', 'draft'] },
    { organizerIds: [r.o] },
    { categoryIds: [r.c[0]!] },
    { categoryIds: [r.c[0]!], ...jan },
    { categoryIds: [r.c[0]!], startGte: '2027-02-10 10:00:00' },
    { categoryIds: [r.c[0]!, r.c[1]!] },
    { categoryIds: [r.c[0]!], statuses: ['draft'] },
    { categoryIds: [r.c[0]!], statuses: ['publish', 'trash'], ...jan },
    { categoryIds: [r.c[2]!], language: 'ja' },
    { tagIds: [r.t] },
    { venueIds: [r.v[0]!], categoryIds: [r.c[0]!], ...jan },
    { venueIds: [r.v[0]!, r.v[1]!], categoryIds: [r.c[0]!] },
    // The second filter is read from the driving row's links: a venue unlinked and a term deleted
    // must have left the links of their former events.
    { venueIds: [r.gone, r.v[1]!], categoryIds: [r.c[1]!] },
    { organizerIds: [r.o], categoryIds: [r.term, r.c[0]!] },
    { venueIds: [r.v[2]!], tagIds: [r.t], organizerIds: [r.o] },
    { categoryIds: [r.c[1]!], featured: false },
    { categoryIds: [r.c[1]!], search: 'event' },
    { venueIds: [r.v[1]!], unpublishedAuthor: 1, statuses: ['publish', 'draft'] },
    { categoryIds: [r.c[0]!], orderBy: 'date' },
    { venueIds: [r.v[0]!], endGt: '2027-01-15 11:00:00', startLt: '2027-02-20 00:00:00' },
  ]
}

/** Every query at a few page positions, on the SQL storage and on memory: same ids, same totals. */
async function sameAsMemory(sql: Storage, refs: Refs) {
  const memory = createMemoryStorage()
  const memRefs = await memory.transaction(fill)
  assert.deepEqual(memRefs, refs, 'both storages assign the same ids')
  for (const q of queries(refs)) {
    for (const [offset, limit] of [
      [0, 3],
      [2, 4],
      [0, 100],
    ] as const) {
      const query: EventListQuery = { language: 'en', statuses: ['publish'], orderBy: 'start', offset, limit, ...q }
      const [a, b] = await Promise.all([sql.listEvents(query), memory.listEvents(query)])
      assert.deepEqual(
        { ids: a.items.map((e) => e.id), total: a.total },
        { ids: b.items.map((e) => e.id), total: b.total },
        JSON.stringify(query),
      )
    }
  }
}

describe('event filter ranges (sqlite)', () => {
  it('answers filtered lists like the memory backend, also after migrating a database without the tables', async () => {
    const file = freshFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const refs = await a.transaction(fill)
    await sameAsMemory(a, refs)
    await a.close()
    const raw = new Database(file)
    raw.exec('DROP TABLE event_filters; DROP TABLE event_filter_day_counts; DELETE FROM calendar_migrations WHERE version >= 6')
    raw.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    await sameAsMemory(b, refs)
    await b.close()
  })

  it('pages through one index range without a sort, and counts from the counters or the index alone', async () => {
    const file = freshFile()
    const { driver, seen } = recording(await openSqliteFile(file))
    const s = createSqlStorage({ driver })
    const refs = await s.transaction(fill)
    const db = new Database(file)
    const plans = async (q: Partial<EventListQuery>) => {
      seen.length = 0
      await s.listEvents({ language: 'en', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 10, ...q })
      const [pageSql, countSql] = seen.filter((x) => /event_filter/.test(x.sql))
      const plan = (x: typeof pageSql) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${x!.sql}`).all(...x!.params) as { detail: string }[]).map((r) => r.detail).join('\n')
      return { page: plan(pageSql), count: plan(countSql), countSql: countSql!.sql }
    }
    const window = { startGte: '2027-01-01 00:00:00', endLte: '2027-12-31 23:59:59' }
    const category = await plans({ categoryIds: [refs.c[0]!], ...window })
    assert.match(category.page, /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_date>\?\)/)
    assert.match(category.page, /SEARCH p USING INTEGER PRIMARY KEY/)
    assert.doesNotMatch(category.page, /TEMP B-TREE|SCAN [fp]\b/)
    assert.match(category.countSql, /FROM event_filter_day_counts c/)
    assert.match(category.count, /SEARCH c USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_day>\?\)/)
    const both = await plans({ venueIds: [refs.v[0]!], categoryIds: [refs.c[0]!], ...window })
    assert.doesNotMatch(both.page, /TEMP B-TREE|SCAN [fp]\b/)
    assert.match(both.countSql, /count\(\*\) AS n FROM event_filters f WHERE/)
    assert.match(both.count, /SEARCH f USING PRIMARY KEY \(kind=\? AND ref_id=\? AND language=\? AND status=\? AND start_date>\?\)/)
    assert.doesNotMatch(both.count, /SEARCH p\b|SCAN [fp]\b/)
    // The category is read from the venue rows' links: no probe of the category's rows.
    assert.doesNotMatch(both.count + both.page, /\bg\b/)
    db.close()
    await s.close()
  })
})

pgDescribe('event filter ranges (postgres)', () => {
  it('answers filtered lists like the memory backend, also after migrating a schema without the tables', async () => {
    const a = await schemaStorage()
    const refs = await a.transaction(fill)
    await sameAsMemory(a, refs)
    await admin!.query(
      `DROP TABLE ${a.schema}.event_filters; DROP TABLE ${a.schema}.event_filter_day_counts; DELETE FROM ${a.schema}.calendar_migrations WHERE version >= 6`,
    )
    const b = await schemaStorage(a.schema)
    await sameAsMemory(b, refs)
    await b.close()
    await a.close()
  })
})
