/**
 * The change journal on PostgreSQL under concurrency: transactions that commit in another order
 * than they wrote never let a reader skip an entry; four routers on one database with contended
 * writes (one term, one venue) all succeed and `onChange` reports each change exactly once; a
 * transaction the storage runs again after a serialization failure is reported once.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import { afterAll, it } from 'vitest'
import { createCalendarRouter } from '../src/router.js'
import { createSqlStorage, pgDriver, type SqlDriver } from '../src/storage/sql/index.js'
import type { Change } from '../src/cache/observed.js'
import { readAll as readJournal } from '../src/testing/contract-journal.js'
import type { Storage } from '../src/storage/types.js'
import { newEvent, newTerm } from '../src/testing/fixtures.js'
import { authenticate, NOW } from './http/harness.js'
import { admin, pgDescribe, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

/** A storage on an existing schema with its own pool and driver options. */
function storageOn(schema: string, driver: (pool: pg.Pool) => SqlDriver = (pool) => pgDriver(pool)) {
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` })
  return createSqlStorage({ driver: driver(pool) })
}

const readAll = (s: Storage, from: string) => readJournal(s, from, 100)

const API = 'http://127.0.0.1/wp-json/calendar/events/v1'
const post = (router: ReturnType<typeof createCalendarRouter>, path: string, body: unknown, method = 'POST') =>
  router.fetch(
    new Request(`${API}${path}`, {
      method,
      headers: { authorization: 'Bearer administrator', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )

pgDescribe('change journal on PostgreSQL', () => {
  it('a reader never skips an entry of a transaction that wrote first and committed last', async () => {
    const reader = await schemaStorage()
    await reader.migrate()
    // Two plain connections (READ COMMITTED: no serialization failure can re-run either), so
    // that the order is exactly the one written here.
    const connect = async () => {
      const c = new pg.Client({ connectionString: url, options: `-c search_path=${reader.schema}` })
      await c.connect()
      return c
    }
    const [c1, c2] = [await connect(), await connect()]
    const term = (slug: string) =>
      `INSERT INTO terms (taxonomy, language, translation_group, name, name_lower, slug, description, parent)
       VALUES ('tag', 'en', 0, '${slug}', '${slug}', '${slug}', '', 0) RETURNING id`
    const start = await reader.journalHead()
    try {
      // T1 writes first: its identity value (position) and transaction id come first.
      await c1.query('BEGIN')
      const first = Number((await c1.query(term('first'))).rows[0].id)
      // T2 writes after it and commits before it.
      await c2.query('BEGIN')
      const second = Number((await c2.query(term('second'))).rows[0].id)
      await c2.query('COMMIT')
      // T2's entry is committed, yet not readable while T1 (older) runs: a reader that took it
      // would pass T1's lower position and never see it.
      const during = await readAll(reader, start)
      assert.deepEqual(during.entries, [])
      await c1.query('COMMIT')
      const after = await readAll(reader, during.next)
      assert.deepEqual(
        after.entries.map((e) => e.id),
        [first, second],
      )
      // Read again from where that ended: nothing more, nothing twice.
      assert.deepEqual((await readAll(reader, after.next)).entries, [])
    } finally {
      await c1.query('ROLLBACK').catch(() => undefined)
      await Promise.all([c1.end(), c2.end()])
      await reader.close()
    }
  })

  it('four routers on one database: 240 contended writes all succeed, and onChange reports each change once', async () => {
    const base = await schemaStorage()
    await base.migrate()
    const term = await base.transaction((tx) => tx.insertTerm(newTerm({ slug: 'hot', name: 'Hot' })))
    const storages = Array.from({ length: 4 }, () => storageOn(base.schema))
    const seen: Change[] = []
    const routers = storages.map((s) =>
      createCalendarRouter(s, { authenticate, now: () => new Date(NOW), onChange: (c) => void seen.push(c) }),
    )
    const venue = (await (await post(routers[0]!, '/venues', { venue: 'Hot hall' })).json()) as { id: number }
    const start = await base.journalHead()
    const results = await Promise.all(
      Array.from({ length: 240 }, (_, i) => {
        const router = routers[i % 4]!
        if (i % 8 === 7) return post(router, `/venues/${venue.id}`, { city: `City ${i}` }, 'PATCH')
        return post(router, '/events', {
          title: `Hot ${i}`,
          start_date: '2026-12-01 10:00',
          end_date: '2026-12-01 11:00',
          status: 'publish',
          categories: [term.id],
          venue: venue.id,
        })
      }),
    )
    const statuses = results.map((r) => r.status)
    assert.deepEqual(
      statuses.filter((s) => s !== 200 && s !== 201),
      [],
    )
    await new Promise((r) => setTimeout(r, 20))
    const created = seen.filter((c) => c.type === 'event' && c.action === 'create')
    assert.equal(created.length, 210)
    assert.equal(new Set(created.map((c) => c.id)).size, 210)
    // Every reported id exists, and every committed change was reported exactly once.
    const ids = created.map((c) => c.id)
    assert.equal((await base.getPosts(ids)).length, 210)
    const journal = (await readAll(base, start)).entries
    const journaled = journal.filter((e) => e.kind === 'event' && e.action === 'create').map((e) => e.id)
    assert.deepEqual(
      [...journaled].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    )
    assert.equal(seen.filter((c) => c.type === 'venue' && c.action === 'update').length, 30)
    assert.equal((await base.getTerm(term.id))?.count, 210)
    await Promise.all(storages.map((s) => s.close()))
    await base.close()
  })

  it('a transaction run again after a serialization failure is reported once, with what its last run wrote', async () => {
    const base = await schemaStorage()
    await base.migrate()
    let attempts = 0
    // Every first attempt writes everything, then fails as a serialization failure would.
    const flaky = (pool: pg.Pool): SqlDriver => {
      const inner = pgDriver(pool)
      return {
        ...inner,
        transaction: (fn) =>
          inner.transaction(async (conn) => {
            const result = await fn(conn)
            if (++attempts % 2 === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' })
            return result
          }),
      }
    }
    const storage = storageOn(base.schema, flaky)
    const seen: Change[] = []
    const router = createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), onChange: (c) => void seen.push(c) })
    const made = await post(router, '/events', {
      title: 'Retried',
      start_date: '2026-12-01',
      end_date: '2026-12-01',
      categories: ['New'],
      venue: { venue: 'V' },
    })
    assert.equal(made.status, 201)
    const event = (await made.json()) as { id: number; venue: { id: number }; categories: Array<{ id: number }> }
    assert.equal((await post(router, `/events/${event.id}`, { title: 'Again' }, 'PATCH')).status, 200)
    await new Promise((r) => setTimeout(r, 20))
    assert.ok(attempts >= 4, `attempts ${attempts}`)
    // One report per record and transaction, in commit order (each at its record's last entry).
    const said = seen.map((c) => `${c.type}:${c.id}:${c.action}`)
    assert.deepEqual(
      said.slice(0, 3).sort(),
      [`category:${event.categories[0]!.id}:create`, `venue:${event.venue.id}:create`, `event:${event.id}:create`].sort(),
    )
    assert.deepEqual(said.slice(3), [`event:${event.id}:update`])
    await storage.close()
    await base.close()
  })
})
