/**
 * N router processes against one PostgreSQL primary and one streaming replica (issue 36, part 5).
 *
 * A throwaway primary (`synchronous_commit = on`, as in production) and a replica of it on
 * loopback (test/support/postgres-server.ts), 200 events, then for 1, 2 and 4 example servers
 * (`examples/node-server/server.ts`, each a process of its own, response cache off so every read
 * reaches a database, CALENDAR_DATABASE_REPLICA_URLS naming the replica) two mixes, each
 * REPLICA_PROCS_SECONDS long with REPLICA_PROCS_CLIENTS closed-loop clients spread over the
 * servers:
 *
 * - read-heavy: 95% reads (`GET /events?per_page=10&page=k`, `GET /events/{id}`), 5% updates;
 * - write-heavy: 50% reads, 50% updates.
 *
 * Every client keeps the bookmark of its latest write and sends it with all its reads, and reads
 * the record it just updated right after, from another server: a title other than the one it
 * wrote counts as a read-your-writes violation. Reported: requests per second, p50 and p99 in
 * ms, violations, and where the statements went (`pg_stat_database.xact_commit` on each server:
 * every statement outside a transaction counts one; the primary's also count the writes' own
 * transactions and the replica polls).
 *
 *   node --import tsx bench/replicas-processes.bench.ts
 *
 * Settings: REPLICA_PROCS_COUNTS=1,2,4  REPLICA_PROCS_SECONDS=8  REPLICA_PROCS_CLIENTS=16
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { findPostgresBin, startPostgres, startReplica } from '../test/support/postgres-server.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const COUNTS = (process.env.REPLICA_PROCS_COUNTS ?? '1,2,4').split(',').map(Number)
const SECONDS = Number(process.env.REPLICA_PROCS_SECONDS ?? 8)
const CLIENTS = Number(process.env.REPLICA_PROCS_CLIENTS ?? 16)
const TOKEN = 'benchtoken'

function startServer(env: Record<string, string>): Promise<{ root: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CALENDAR_DEMO: 'off', CALENDAR_CACHE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/\S+?)\/?\n/.exec(out)
      if (m) resolve({ root: m[1]!, child })
    })
    child.once('exit', (code) => reject(new Error(`example server exited with ${code}: ${err}`)))
  })
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

async function commits(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query(`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`)
    return Number(rows[0].n)
  } finally {
    await client.end()
  }
}

interface Cell {
  requests: number
  latencies: number[]
  violations: number
  errors: number
}

async function runMix(roots: string[], ids: number[], writeShare: number): Promise<Cell> {
  const cell: Cell = { requests: 0, latencies: [], violations: 0, errors: 0 }
  const until = performance.now() + SECONDS * 1000
  const timed = async (url: string, init: RequestInit = {}) => {
    const t = performance.now()
    const res = await fetch(url, init)
    const body = (await res.json()) as any
    cell.latencies.push(performance.now() - t)
    cell.requests++
    if (res.status >= 500) cell.errors++
    return { res, body }
  }
  const client = async (c: number) => {
    let bookmark: string | null = null
    for (let k = 0; performance.now() < until; k++) {
      const root = roots[(c + k) % roots.length]!
      const headers: Record<string, string> = bookmark ? { 'x-calendar-bookmark': bookmark } : {}
      if (Math.random() < writeShare) {
        // Each client writes records of its own: another client's write in between is no violation.
        const id = ids[c + CLIENTS * (k % Math.floor(ids.length / CLIENTS))]!
        const title = `c${c} k${k}`
        const { res } = await timed(`${root}/events/${id}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title }),
        })
        bookmark = res.headers.get('x-calendar-bookmark') ?? bookmark
        const other = roots[(c + k + 1) % roots.length]!
        const { body } = await timed(`${other}/events/${id}`, { headers: bookmark ? { 'x-calendar-bookmark': bookmark } : {} })
        if (body.title !== title) cell.violations++
      } else if (k % 2) await timed(`${root}/events/${ids[(c + k) % ids.length]}`, { headers })
      else await timed(`${root}/events?per_page=10&page=${1 + ((c + k) % 20)}`, { headers })
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
  return cell
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

async function main() {
  const bin = findPostgresBin()
  if (!bin) throw new Error('no PostgreSQL binaries (apt-get install postgresql)')
  const primary = await startPostgres(bin, ['-c synchronous_commit=on'])
  const replica = await startReplica(bin, primary, 0)
  const env = {
    CALENDAR_DATABASE_URL: primary.url,
    CALENDAR_DATABASE_REPLICA_URLS: replica.url,
    CALENDAR_API_TOKENS: `${TOKEN}:administrator`,
  }
  const rows: string[] = []
  try {
    const seeder = await startServer(env)
    const ids: number[] = []
    for (let k = 0; k < 200; k++) {
      const day = String(1 + (k % 28)).padStart(2, '0')
      const res = await fetch(`${seeder.root}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Bench ${k}`,
          start_date: `2027-06-${day} 10:00`,
          end_date: `2027-06-${day} 12:00`,
          status: 'publish',
        }),
      })
      ids.push(((await res.json()) as { id: number }).id)
    }
    await stop(seeder.child)
    for (const n of COUNTS) {
      const servers = await Promise.all(Array.from({ length: n }, () => startServer(env)))
      const roots = servers.map((s) => s.root)
      try {
        // Warm-up: modules compiled, pools open, each server's replica poll running.
        await runMix(roots, ids, 0.05)
        for (const [name, share] of [
          ['read-heavy 95/5', 0.05],
          ['write-heavy 50/50', 0.5],
        ] as const) {
          const [p0, r0] = await Promise.all([commits(primary.url), commits(replica.url)])
          const cell = await runMix(roots, ids, share)
          const [p1, r1] = await Promise.all([commits(primary.url), commits(replica.url)])
          const sorted = cell.latencies.sort((a, b) => a - b)
          const onReplica = r1 - r0
          const onPrimary = p1 - p0
          rows.push(
            `| ${n} | ${name} | ${(cell.requests / SECONDS).toFixed(0)} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} | ` +
              `${cell.violations} | ${cell.errors} | ${onReplica} / ${onPrimary} (${((100 * onReplica) / (onReplica + onPrimary)).toFixed(0)}% replica) |`,
          )
          console.log(rows.at(-1))
        }
      } finally {
        await Promise.all(servers.map((s) => stop(s.child)))
      }
    }
  } finally {
    await replica.destroy()
    await primary.destroy()
  }
  console.log(`\n${CLIENTS} clients, ${SECONDS} s a cell, response cache off\n`)
  console.log('| processes | mix | req/s | p50 ms | p99 ms | RYW violations | 5xx | statements replica / primary |')
  console.log('|---:|---|---:|---:|---:|---:|---:|---|')
  for (const row of rows) console.log(row)
}

await main()
