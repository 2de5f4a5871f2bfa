import assert from 'node:assert/strict'
import { afterAll, describe, it } from 'vitest'
import { admin, reason, schemaStorage, url, pgDescribe } from './support/pg-schema.js'
import { MIGRATIONS, createSqlStorage, openPostgres } from '../src/storage/sql/index.js'
import { StorageUnavailableError } from '../src/storage/types.js'
import { newEvent, newTerm, storageContract } from '../src/testing/index.js'
import { findPostgresBin, startPostgres } from './support/postgres-server.js'
import { inCi } from './support/postgres-setup.js'
import { checkDayCounts, dayCountEvents, slugRace } from './support/sql-checks.js'

if (!url) console.warn(`[storage-postgres] skipped: ${reason}`)

afterAll(() => admin?.end())

storageContract({ describe: pgDescribe, it }, 'postgres', () => schemaStorage())

pgDescribe('postgres storage', () => {
  it('runs migrations once, also when two instances migrate at the same time', async () => {
    const a = await schemaStorage()
    const b = await schemaStorage(a.schema)
    await Promise.all([a.migrate(), b.migrate()])
    await a.migrate()
    const { rows } = await admin!.query(`SELECT version FROM ${a.schema}.calendar_migrations ORDER BY version`)
    assert.deepEqual(
      rows,
      MIGRATIONS.map((m) => ({ version: String(m.version) })),
    )
    await b.close()
    await a.close()
  })

  it('fills the term counts when it migrates a version-1 database (no term_counts yet)', async () => {
    const a = await schemaStorage()
    const t = await a.transaction(async (tx) => {
      const t = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
      await tx.insertPost(newEvent({ slug: 'a', categoryIds: [t.id, t.id] }))
      await tx.insertPost(newEvent({ slug: 'b', categoryIds: [t.id], status: 'draft' }))
      await tx.insertPost(newEvent({ slug: 'c', tagIds: [t.id], language: 'ja' }))
      return t
    })
    await admin!.query(`DROP TABLE ${a.schema}.term_counts; DELETE FROM ${a.schema}.calendar_migrations WHERE version >= 2`)
    const b = await schemaStorage(a.schema)
    assert.equal((await b.getTerm(t.id))?.count, 2)
    await b.close()
    await a.close()
  })

  it('fills the event day counters when it migrates a version-2 database (no event_day_counts yet)', async () => {
    const a = await schemaStorage()
    await a.transaction((tx) => dayCountEvents(tx))
    await admin!.query(`DROP TABLE ${a.schema}.event_day_counts; DELETE FROM ${a.schema}.calendar_migrations WHERE version >= 3`)
    const b = await schemaStorage(a.schema)
    await checkDayCounts(b)
    const { rows } = await admin!.query(`SELECT sum(n)::int AS n FROM ${a.schema}.event_day_counts`)
    assert.deepEqual(rows, [{ n: 7 }]) // every event not hidden
    await b.close()
    await a.close()
  })

  it('keeps a term count exact when two storages create events with it at the same time', async () => {
    const a = await schemaStorage()
    const b = await schemaStorage(a.schema)
    const t = await a.transaction((tx) => tx.insertTerm(newTerm({ slug: 'hot', name: 'Hot' })))
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).transaction((tx) => tx.insertPost(newEvent({ slug: `hot-${i}`, categoryIds: [t.id] }))),
      ),
    )
    assert.equal((await a.getTerm(t.id))?.count, 12)
    await b.close()
    await a.close()
  })

  it('gives distinct slugs to concurrent creates from two storages on one database', async () => {
    const a = await schemaStorage()
    await a.migrate()
    const b = await schemaStorage(a.schema)
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => slugRace(i % 2 ? a : b, 'same')))
    assert.equal(new Set(made.map((e) => e.slug)).size, 12)
    assert.equal(new Set(made.map((e) => e.id)).size, 12)
    assert.equal((await a.slugsLike('event', 'en', 'same')).length, 12)
    await b.close()
    await a.close()
  })

  it('keeps counters right under concurrent read-modify-write from two storages (serializable retries)', async () => {
    const a = await schemaStorage()
    const b = await schemaStorage(a.schema)
    const counter = await a.transaction((tx) => tx.insertPost(newEvent({ slug: 'counter', cost: [] })))
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).transaction(async (tx) => {
          const cur = await tx.getPost(counter.id)
          assert.ok(cur && cur.type === 'event')
          await tx.updatePost(counter.id, 'event', { cost: [...cur.cost, 'x'] })
        }),
      ),
    )
    const final = await a.getPost(counter.id)
    assert.equal(final && final.type === 'event' ? final.cost.length : -1, 8)
    await b.close()
    await a.close()
  })
})

// Stops and restarts a private server (never the shared one other test files use).
const bin = findPostgresBin()
const restartDescribe = bin ? describe : describe.skip
if (!bin) console.warn('[storage-postgres] server restart test skipped: no PostgreSQL binaries (apt-get install -y postgresql)')
if (!bin && inCi()) throw new Error('PostgreSQL binaries are required in CI (apt-get install -y postgresql)')

restartDescribe('postgres outage', () => {
  it('rejects with StorageUnavailableError while the server is down and recovers when it is back', async () => {
    const server = await startPostgres(bin!)
    const s = createSqlStorage({ driver: await openPostgres(server.url, { max: 3, connectionTimeoutMillis: 2000 }) })
    try {
      const e = await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'before' })))

      // A transaction in flight when the server goes away.
      let release!: () => void
      const gate = new Promise<void>((r) => (release = r))
      let inside = false
      const inFlight = s.transaction(async (tx) => {
        await tx.insertPost(newEvent({ slug: 'in-flight' }))
        inside = true
        await gate
        await tx.insertPost(newEvent({ slug: 'in-flight-2' }))
      })
      while (!inside) await new Promise((r) => setTimeout(r, 2))
      await server.stop()
      release()
      await assert.rejects(inFlight, StorageUnavailableError)

      await assert.rejects(s.getPost(e.id), StorageUnavailableError)
      await assert.rejects(
        s.transaction((tx) => tx.insertPost(newEvent({ slug: 'while-down' }))),
        StorageUnavailableError,
      )

      await server.start()
      assert.equal((await s.getPost(e.id))?.slug, 'before')
      const after = await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'after' })))
      assert.equal((await s.findPostBySlug('event', 'en', 'after'))?.id, after.id)
      assert.equal(await s.findPostBySlug('event', 'en', 'in-flight'), null)
    } finally {
      await s.close().catch(() => undefined)
      await server.destroy()
    }
  })

  it('migrates on first use once a server that was down at startup comes up', async () => {
    const server = await startPostgres(bin!)
    await server.stop()
    const s = createSqlStorage({ driver: await openPostgres(server.url, { max: 2, connectionTimeoutMillis: 2000 }) })
    try {
      await assert.rejects(
        s.listEvents({ language: 'en', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 10 }),
        StorageUnavailableError,
      )
      await server.start()
      assert.deepEqual(await s.listEvents({ language: 'en', statuses: ['publish'], orderBy: 'start', offset: 0, limit: 10 }), {
        items: [],
        total: 0,
      })
    } finally {
      await s.close().catch(() => undefined)
      await server.destroy()
    }
  })
})
