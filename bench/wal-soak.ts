/**
 * Sustained concurrent writes against the SQLite example server (one or more processes on one
 * database file) over loopback, watching the write-ahead log: the `-wal` file's size is sampled
 * every 250 ms (and after every write), with the database's size and each server's RSS, and write latencies are kept per
 * reporting interval. At the end the servers get SIGTERM, and what they leave on disk is checked:
 * exit codes, the `-wal` file, and the events in the database. Used by bench/wal-soak.bench.ts
 * (10 minutes) and, shortened, by test/sqlite-wal.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export interface WalSoakOptions {
  /** Stop after this long (seconds)... */
  seconds?: number
  /** ...or after this many writes, whichever comes first. */
  writes?: number
  /** Concurrent clients, each with one request in flight (default 32). */
  writers?: number
  /** Server processes on the one file (default 1); client w talks to server w % servers. */
  servers?: number
  /** Every n-th write of a client updates one of its earlier events; 0: creates only (default 4). */
  updateEvery?: number
  /** Milliseconds between samples of the `-wal` file's size (default 250). */
  sampleMs?: number
  /** Seconds between the reports handed to onReport (default 30). */
  reportEvery?: number
  onReport?: (report: WalSoakReport) => void
  /** Extra environment for the servers. */
  env?: NodeJS.ProcessEnv
}

export interface WalSoakReport {
  /** Seconds since the writes started. */
  seconds: number
  /** Writes acknowledged so far, and in this interval. */
  writes: number
  intervalWrites: number
  errors: number
  /** Bytes now, and the largest `-wal` sample of the interval. */
  wal: number
  walMax: number
  db: number
  /** MiB, one per server. */
  rss: number[]
  /** Write latency over the interval, ms. */
  p50: number
  p99: number
}

export interface WalSoakResult {
  seconds: number
  writes: number
  errors: number
  /** The largest `-wal` size seen at any sample, and at the end (before SIGTERM). */
  walMax: number
  walEnd: number
  dbEnd: number
  reports: WalSoakReport[]
  /** Write latency over the whole run, ms. */
  p50: number
  p99: number
  /** After SIGTERM: each server's exit code (null: killed by the signal), what is left of the log. */
  exitCodes: Array<number | null>
  walAfterExit: number | null
  /** Events in the database file after the servers exited, and how many creates were acknowledged. */
  eventsAfterExit: number
  created: number
}

const fileSize = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

const rssOf = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : NaN
  } catch {
    return NaN
  }
}

export const MiB = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number
}

async function startServer(file: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; root: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
    env: { ...process.env, ...env, PORT: '0', CALENDAR_DB: file, CALENDAR_API_TOKENS: 'w:administrator' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const root = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /listening on (http:\/\/\S+?)\/?\s/.exec(out)
      if (m) resolve(m[1] as string)
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${out}`)))
  })
  // Keep draining stdout so the server never blocks on a full pipe.
  child.stdout!.resume()
  return { child, root }
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  return exited
}

export async function walSoak(options: WalSoakOptions): Promise<WalSoakResult> {
  const writers = options.writers ?? 32
  const serverCount = options.servers ?? 1
  const updateEvery = options.updateEvery ?? 4
  const reportEvery = (options.reportEvery ?? 30) * 1000
  const maxWrites = options.writes ?? Infinity
  const dir = mkdtempSync(join(tmpdir(), 'calendar-wal-soak-'))
  const file = join(dir, 'soak.db')
  const walFile = `${file}-wal`
  const servers: Array<{ child: ChildProcess; root: string }> = []
  try {
    // One at a time: the first migrates the new file, the others find it migrated.
    for (let i = 0; i < serverCount; i++) servers.push(await startServer(file, options.env ?? {}))
    const headers = { authorization: 'Bearer w', 'content-type': 'application/json' }
    const started = performance.now()
    const deadline = Date.now() + (options.seconds ?? Infinity) * 1000
    let writes = 0
    let issued = 0
    let created = 0
    let errors = 0
    let interval: number[] = []
    const all: number[] = []
    const reports: WalSoakReport[] = []
    let walMax = 0
    let intervalWalMax = 0
    let intervalStartWrites = 0
    const sample = () => {
      const wal = fileSize(walFile)
      walMax = Math.max(walMax, wal)
      intervalWalMax = Math.max(intervalWalMax, wal)
      return wal
    }
    const report = () => {
      const wal = sample()
      const sorted = interval.sort((a, b) => a - b)
      const r: WalSoakReport = {
        seconds: Math.round((performance.now() - started) / 1000),
        writes,
        intervalWrites: writes - intervalStartWrites,
        errors,
        wal,
        walMax: intervalWalMax,
        db: fileSize(file),
        rss: servers.map((s) => rssOf(s.child.pid as number)),
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
      }
      reports.push(r)
      options.onReport?.(r)
      interval = []
      intervalWalMax = 0
      intervalStartWrites = writes
    }
    const sampler = setInterval(sample, options.sampleMs ?? 250)
    const reporter = setInterval(report, reportEvery)
    const client = async (w: number) => {
      const { root } = servers[w % servers.length]!
      const mine: number[] = []
      for (let i = 0; Date.now() < deadline && issued < maxWrites; i++) {
        issued++
        const update = updateEvery > 0 && i % updateEvery === updateEvery - 1 && mine.length > 0
        const t0 = performance.now()
        let res: Response
        if (update) {
          const id = mine[(i * 7) % mine.length]
          res = await fetch(`${root}/events/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ title: `Updated ${w}-${i}` }) })
        } else {
          const day = 1 + (i % 27)
          res = await fetch(`${root}/events`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              title: `WAL soak ${w}-${i}`,
              description: `Written by client ${w}, request ${i}, to keep the log busy.`,
              start_date: `2027-03-${day} 10:00`,
              end_date: `2027-03-${day} 12:00`,
              categories: [`cat ${i % 5}`],
              venue: { venue: `Hall ${i % 3}` },
            }),
          })
        }
        const body = await res.text()
        const ms = performance.now() - t0
        if (res.status === 201 && !update) {
          mine.push((JSON.parse(body) as { id: number }).id)
          created++
        }
        if (res.status !== (update ? 200 : 201)) {
          errors++
          if (errors <= 5) console.error(`wal-soak: ${update ? 'PATCH' : 'POST'} ${res.status} ${body.slice(0, 200)}`)
          continue
        }
        writes++
        sample()
        interval.push(ms)
        all.push(ms)
      }
    }
    await Promise.all(Array.from({ length: writers }, (_, w) => client(w)))
    clearInterval(sampler)
    clearInterval(reporter)
    const seconds = (performance.now() - started) / 1000
    const walEnd = sample()
    const dbEnd = fileSize(file)
    if (interval.length > 0) report()
    const exitCodes = await Promise.all(servers.map((s) => stop(s.child)))
    const walAfterExit = existsSync(walFile) ? fileSize(walFile) : null
    const db = new Database(file, { readonly: true })
    const eventsAfterExit = (db.prepare(`SELECT count(*) AS n FROM posts WHERE type = 'event'`).get() as { n: number }).n
    db.close()
    all.sort((a, b) => a - b)
    return {
      seconds,
      writes,
      errors,
      walMax,
      walEnd,
      dbEnd,
      reports,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      exitCodes,
      walAfterExit,
      eventsAfterExit,
      created,
    }
  } finally {
    await Promise.all(servers.map((s) => stop(s.child)))
    rmSync(dir, { recursive: true, force: true })
  }
}
