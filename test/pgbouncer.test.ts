/**
 * The PostgreSQL storage behind PgBouncer in transaction pooling mode (Debian's pgbouncer, two
 * server connections): three example servers (`npm start`, separate processes) started together
 * on one database through it, then writing concurrently. Nothing may depend on a session: not
 * the writers' lock, not named prepared statements, not the migrations.
 */
import { afterAll, expect, it, onTestFinished } from 'vitest'
import { inCi } from './support/postgres-setup.js'
import { admin, pgDescribe, url } from './support/pg-schema.js'
import { PGBOUNCER, startBouncer } from './support/pgbouncer.js'
import { startExample } from './support/example-server.js'

afterAll(() => admin?.end())

// In CI .ci/run installs pgbouncer: a missing one fails there instead of skipping.
const describeBouncer =
  PGBOUNCER || inCi()
    ? pgDescribe
    : // Skip reason: pgbouncer is not installed on this machine (outside CI only), named in the title.
      (name: string, fn: () => void) => pgDescribe(`${name} (pgbouncer not installed)`, () => it.skip('needs pgbouncer', fn))

describeBouncer('PostgreSQL behind PgBouncer (transaction pooling)', () => {
  it('three servers start together and write concurrently through a pool of two connections', { timeout: 120_000 }, async () => {
    const database = `bouncer_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    await admin!.query(`CREATE DATABASE ${database}`)
    const bouncer = await startBouncer(url, database, 2)
    onTestFinished(async () => {
      await bouncer.stop()
      await admin!.query(`DROP DATABASE ${database} WITH (FORCE)`)
    })
    const env = { CALENDAR_DATABASE_URL: bouncer.url, CALENDAR_API_TOKENS: 'admintoken:administrator', CALENDAR_DEMO: 'off' }
    const servers = await Promise.all([startExample(env), startExample(env), startExample(env)])

    const create = async (root: string, n: number) => {
      const res = await fetch(`${root}/events`, {
        method: 'POST',
        headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Event ${n}`,
          start_date: `2027-03-${String(1 + (n % 28)).padStart(2, '0')} 19:00`,
          end_date: `2027-03-${String(1 + (n % 28)).padStart(2, '0')} 21:00`,
          // Hot rows: every event counts in the same category and tag.
          categories: ['Music'],
          tags: ['Live'],
          status: 'publish',
        }),
      })
      return { status: res.status, body: (await res.json()) as { id: number; message?: string } }
    }
    const results = await Promise.all(servers.flatMap((s, i) => Array.from({ length: 12 }, (_, k) => create(s.root, i * 12 + k))))
    expect(results.filter((r) => r.status !== 201)).toEqual([])
    expect(new Set(results.map((r) => r.body.id)).size).toBe(36)

    for (const s of servers) {
      const list = (await (await fetch(`${s.root}/events?start_date=2027-03-01&end_date=2027-03-31&per_page=50`)).json()) as any
      expect(list.total).toBe(36)
      const category = (await (await fetch(`${s.root}/categories`)).json()) as any
      expect(category.categories.map((c: any) => [c.name, c.count])).toEqual([['Music', 36]])
    }
  })
})
