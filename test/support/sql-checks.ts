/** Helpers shared by the SQL storage tests (SQLite and PostgreSQL run the same checks). */
import assert from 'node:assert/strict'
import { SlugConflictError, type EventListQuery, type Storage, type StorageTx } from '../../src/storage/types.js'
import { newEvent } from '../../src/testing/index.js'
import type { SqlDriver, SqlParam } from '../../src/storage/sql/index.js'

/** Events for the migration-3 test: languages, statuses (one moved to trash), hidden ones, boundary dates. */
export async function dayCountEvents(tx: StorageTx): Promise<void> {
  await tx.insertPost(newEvent({ slug: 'a' }))
  await tx.insertPost(newEvent({ slug: 'b', startDate: '2027-01-11 00:00:00', endDate: '2027-01-12 23:59:59' }))
  await tx.insertPost(newEvent({ slug: 'c', status: 'draft', startDate: '2027-01-11 10:00:00', endDate: '2027-01-11 12:00:00' }))
  await tx.insertPost(newEvent({ slug: 'd', hideFromListings: true, startDate: '2027-01-11 10:00:00', endDate: '2027-01-11 12:00:00' }))
  await tx.insertPost(newEvent({ slug: 'e', language: 'ja', startDate: '2027-01-11 10:00:00', endDate: '2027-01-11 12:00:00' }))
  const f = await tx.insertPost(newEvent({ slug: 'f' }))
  await tx.updatePost(f.id, 'event', { status: 'trash' })
  await tx.insertPost(newEvent({ slug: 'g', startDate: '2027-02-01 10:00:00', endDate: '2027-03-01 10:00:00' }))
  const h = await tx.insertPost(newEvent({ slug: 'h', status: 'draft', hideFromListings: true }))
  await tx.updatePost(h.id, 'event', {
    status: 'publish',
    hideFromListings: false,
    startDate: '2027-01-20 00:00:00',
    endDate: '2027-01-20 23:59:59',
  })
}

/** Whole-day list totals (counted from event_day_counts) against known values and the row count. */
export async function checkDayCounts(s: Storage): Promise<void> {
  const cases: Array<[Partial<EventListQuery>, number]> = [
    [{}, 4],
    [{ startGte: '2027-01-11 00:00:00', endLte: '2027-01-12 23:59:59' }, 1],
    [{ startGte: '2027-01-11 00:00:00' }, 3],
    [{ endLte: '2027-01-10 23:59:59' }, 1],
    [{ statuses: ['publish', 'draft'], startGte: '2027-01-11 00:00:00' }, 4],
    [{ language: 'ja', startGte: '2027-01-01 00:00:00', endLte: '2027-12-31 23:59:59' }, 1],
    [{ statuses: ['trash'], startGte: '2027-01-01 00:00:00' }, 1],
    [{ startGte: '2027-01-20 00:00:00', endLte: '2027-01-20 23:59:59' }, 1],
  ]
  for (const [q, want] of cases) {
    const query: EventListQuery = { language: 'en', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 1, ...q }
    assert.equal((await s.listEvents(query)).total, want, JSON.stringify(q))
    // startGt '' filters nothing here but is not a whole-day shape: the rows are counted.
    assert.equal((await s.listEvents({ ...query, startGt: '' })).total, want, `${JSON.stringify(q)} (row count)`)
  }
}

export const slugRace = (s: Storage, base: string) =>
  s.transaction(async (tx) => {
    for (let i = 1; ; i++) {
      const slug = i === 1 ? base : `${base}-${i}`
      if ((await tx.slugsLike('event', 'en', base)).includes(slug)) continue
      try {
        return await tx.insertPost(newEvent({ slug }))
      } catch (e) {
        if (!(e instanceof SlugConflictError)) throw e
      }
    }
  })

/** A driver that records the read statements the storage sends (to ask the engine how it runs them). */
export function recording(inner: SqlDriver) {
  const seen: { sql: string; params: readonly SqlParam[] }[] = []
  const driver: SqlDriver = {
    ...inner,
    read: (fn) =>
      inner.read((conn) =>
        fn({
          query: (sql, params = []) => (seen.push({ sql, params }), conn.query(sql, params)),
          run: (sql, params) => conn.run(sql, params),
        }),
      ),
  }
  return { driver, seen }
}
