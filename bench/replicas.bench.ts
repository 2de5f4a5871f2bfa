/**
 * Read replicas (issue 36): where reads go and what routing them costs, in one process.
 *
 * A throwaway primary and a streaming replica of it (test/support/postgres-server.ts: pg_basebackup
 * -R on loopback, no apply delay unless REPLICA_BENCH_DELAY_MS), a router over a storage with the
 * replica, no response cache (every read reaches the database), 200 events.
 *
 * 1. Read-only phase: REPLICA_BENCH_READS requests alternating `GET /events/{id}` and
 *    `GET /events?per_page=10`: the share the replica served (the driver's counts), and the
 *    process CPU per request (a cold read: no cache).
 * 2. Write then read with the bookmark: REPLICA_BENCH_WRITES updates, each followed at once by a
 *    read of the record carrying the write's bookmark: how many the replica could serve, how
 *    many went to the primary, and how many were stale (must be 0).
 * 3. The routing itself: `replicaReads.reading()` plus the replica choice, with and without a
 *    bookmark, in a tight loop: CPU per request, and as a share of phase 1's CPU per read.
 * 4. The replica poll, a cost per second rather than per request: the process's CPU over 10 s
 *    with the poll running and no request, less the same once the poll has stopped, and what
 *    that is per request at phase 1's rate.
 *
 *   node --import tsx bench/replicas.bench.ts
 */
import { cpuUsage } from 'node:process'
import { createCalendarRouter } from '../src/router.js'
import { createSqlStorage, openPostgres } from '../src/storage/sql/index.js'
import type { Principal } from '../src/auth/principal.js'
import { parseLsn } from '../src/storage/sql/replicas.js'
import { findPostgresBin, startPostgres, startReplica } from '../test/support/postgres-server.js'

const READS = Number(process.env.REPLICA_BENCH_READS ?? 2000)
const WRITES = Number(process.env.REPLICA_BENCH_WRITES ?? 200)
const DELAY = Number(process.env.REPLICA_BENCH_DELAY_MS ?? 0)
const API = 'http://127.0.0.1/wp-json/calendar/events/v1'
const admin: Principal = { id: 1, role: 'administrator' }

const cpuMs = () => {
  const u = cpuUsage()
  return (u.user + u.system) / 1000
}

async function main() {
  const bin = findPostgresBin()
  if (!bin) throw new Error('no PostgreSQL binaries (apt-get install postgresql)')
  // Commits flushed (and so streamed) before COMMIT returns, as in production; the test servers' default is off.
  const primary = await startPostgres(bin, ['-c synchronous_commit=on'])
  const replica = await startReplica(bin, primary, DELAY)
  const driver = await openPostgres(primary.url, { replicas: [replica.url] })
  const storage = createSqlStorage({ driver })
  const router = createCalendarRouter(storage, { authenticate: (r) => (r.headers.get('authorization') ? admin : null) })
  const call = async (method: string, path: string, body?: unknown, bookmark?: string | null) => {
    const headers: Record<string, string> = { authorization: 'Bearer x', 'content-type': 'application/json' }
    if (bookmark) headers['x-calendar-bookmark'] = bookmark
    const res = await router.fetch(
      new Request(`${API}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) }),
    )
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }
  }
  try {
    const ids: number[] = []
    for (let k = 0; k < 200; k++) {
      const day = String(1 + (k % 28)).padStart(2, '0')
      const res = await call('POST', '/events', {
        title: `Bench ${k}`,
        start_date: `2027-06-${day} 10:00`,
        end_date: `2027-06-${day} 12:00`,
        status: 'publish',
      })
      ids.push(res.body.id)
    }
    // Wait for the replica to have all of it, and for the poll to know.
    for (let k = 0; k < 200 && driver.replicas!.counts().replicas[0] === 0; k++) {
      await call('GET', '/events?per_page=1')
      await new Promise((r) => setTimeout(r, 20))
    }

    const before = driver.replicas!.counts()
    const cpu0 = cpuMs()
    const t0 = performance.now()
    for (let k = 0; k < READS; k++) await call('GET', k % 2 ? `/events/${ids[k % ids.length]}` : `/events?per_page=10&page=${1 + (k % 20)}`)
    const readCpu = (cpuMs() - cpu0) / READS
    const wall = (performance.now() - t0) / READS
    const after = driver.replicas!.counts()
    const byReplica = after.replicas[0]! - before.replicas[0]!
    const byPrimary = after.primary - before.primary
    console.log(`read-only phase: ${READS} requests, ${byReplica + byPrimary} storage reads`)
    console.log(
      `  served by the replica: ${((100 * byReplica) / (byReplica + byPrimary)).toFixed(1)}% (${byReplica} replica, ${byPrimary} primary)`,
    )
    console.log(`  process CPU per request ${readCpu.toFixed(3)} ms, wall ${wall.toFixed(3)} ms`)

    const w0 = driver.replicas!.counts()
    let stale = 0
    for (let k = 0; k < WRITES; k++) {
      const id = ids[k % ids.length]!
      const res = await call('POST', `/events/${id}`, { title: `Edited ${k}` })
      const read = await call('GET', `/events/${id}`, undefined, res.headers.get('x-calendar-bookmark'))
      if (read.body.title !== `Edited ${k}`) stale++
    }
    const w1 = driver.replicas!.counts()
    console.log(`write then read with the bookmark (replica apply delay ${DELAY} ms): ${WRITES} pairs, ${stale} stale`)
    console.log(
      `  reads after a write: ${w1.replicas[0]! - w0.replicas[0]!} replica, ${w1.primary - w0.primary} primary (storage reads, write requests' own excluded)`,
    )

    const replicas = storage.replicaReads!
    const bookmark = replicas.bookmark()!
    for (const [name, mark] of [
      ['without a bookmark', null],
      ['with a bookmark', bookmark],
    ] as const) {
      const n = 200_000
      const atLeast = mark === null ? null : parseLsn(mark)
      const c0 = cpuMs()
      // What a read request adds: its view (the bookmark parsed) and the replica chosen at its
      // first read, by the request's bookmark.
      for (let k = 0; k < n; k++) {
        replicas.reading(storage, { bookmark: mark, cached: false })
        driver.replicas!.choose(atLeast)
      }
      const per = ((cpuMs() - c0) / n) * 1000
      console.log(
        `routing ${name}: ${per.toFixed(2)} µs per request = ${((100 * per) / (readCpu * 1000)).toFixed(2)}% of a cold read's CPU`,
      )
    }

    // The poll: a fixed cost per second while reads come in (one statement to the primary and
    // one to each replica every pollMs), whatever their number. Measured with no request at all:
    // the process's CPU over a window where a replica choice every 100 ms keeps the poll running,
    // less its CPU over a window once the poll has stopped (50 polls without a choice), each
    // after a pause for the garbage of the phases above to be collected.
    const idleCpu = async (ms: number, keepPolling: boolean) => {
      const c0 = cpuMs()
      for (const end = performance.now() + ms; performance.now() < end; await new Promise((r) => setTimeout(r, 100)))
        if (keepPolling) driver.replicas!.choose(null)
      return ((cpuMs() - c0) / ms) * 1000
    }
    await idleCpu(2000, true)
    const polling = await idleCpu(10_000, true)
    await idleCpu(11_000, false)
    const stopped = await idleCpu(10_000, false)
    const pollPerSecond = Math.max(0, polling - stopped)
    const rate = 1000 / wall
    console.log(
      `replica poll: ${polling.toFixed(2)} ms CPU per second with the poll running, ${stopped.toFixed(2)} without: ` +
        `${pollPerSecond.toFixed(2)} ms per second while reads come in; at the read-only phase's ${rate.toFixed(0)} requests/s ` +
        `${((100 * pollPerSecond) / rate / readCpu).toFixed(2)}% of a cold read's CPU per request; under 5% from ` +
        `${Math.ceil(pollPerSecond / (0.05 * readCpu))} requests/s up`,
    )
  } finally {
    await storage.close()
    await replica.destroy()
    await primary.destroy()
  }
}

await main()
