/**
 * Issue 39's hostile-source targets: a concurrent reader's latency on the example server while
 * a hostile source is imported in the same process (p99 under 100 ms): files whose parsing never
 * ends, then sites served by another process (bench/servers/hostile-sites.ts: listings without
 * end, a page that never answers, a redirect loop, gigabyte answers, a slow trickle); how long
 * each takes to end (within its budget), and the process's peak RSS. Reads go
 * over HTTP, one after the other, as fast as they are answered. Results in
 * bench/results/issue-39-hostile.txt. `node --import tsx bench/import-hostile.bench.ts`
 * (`CASES=TEC` runs only the cases whose name matches).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../examples/node-server/server.js'
import { importCalendar, type ImportSource } from '../src/import/index.js'

const FIXTURES = 'test/fixtures/import/hostile'
const dir = mkdtempSync(join(tmpdir(), 'bench-hostile-'))
let peak = process.memoryUsage().rss
// The peak of the case being run (reset before each).
let casePeak = 0
const sampler = setInterval(() => {
  const rss = process.memoryUsage().rss
  peak = Math.max(peak, rss)
  casePeak = Math.max(casePeak, rss)
}, 50)

const started = await startServer({
  PORT: '0',
  HOST: '127.0.0.1',
  CALENDAR_DEMO: 'on',
  CALENDAR_STORAGE: 'memory',
  CALENDAR_API_TOKENS: 'admintoken:administrator',
})
const url = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1/events?per_page=20`

/** Reads one after the other until `busy` settles; each read's latency in ms. */
async function probe(busy: Promise<unknown> | null, ms = 3000): Promise<number[]> {
  const out: number[] = []
  let going = true
  if (busy) void busy.finally(() => (going = false))
  else setTimeout(() => (going = false), ms)
  while (going) {
    const t = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`read answered ${res.status}`)
    out.push(performance.now() - t)
  }
  return out
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN
}
const line = (name: string, xs: number[]) =>
  `${name.padEnd(44)} reads ${String(xs.length).padStart(5)}  p50 ${pct(xs, 50).toFixed(1).padStart(6)} ms  p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms  max ${Math.max(
    ...xs,
  )
    .toFixed(1)
    .padStart(6)} ms`

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`
const BUDGET = { eventMs: 2000, sourceMs: 6000 }

/** Imports `source` while reads go on; one line of latencies and one of how the import ended. */
async function during(name: string, source: ImportSource): Promise<string[]> {
  // CASES=regex runs only the cases whose name matches (the idle line always runs).
  if (process.env.CASES && !new RegExp(process.env.CASES).test(name)) return []
  casePeak = process.memoryUsage().rss
  const t0 = performance.now()
  const running = importCalendar(started.router, { ...source, budget: { ...BUDGET, ...source.budget } }, { batchSize: 100 })
  const reads = await probe(running)
  const s = await running
  const secs = ((performance.now() - t0) / 1000).toFixed(1)
  const end = s.failed.find((f) => f.ref === 'source' || f.ref.startsWith('events') || f.ref.startsWith('terms'))?.reason
  return [
    line(`during ${name} (${secs} s)`, reads),
    `  ${end ?? `created ${s.created}, failed ${s.failed.length}`}; peak RSS ${mib(casePeak)}`,
  ]
}

/** Each result is printed as it comes (a case that never ends shows where it stopped). */
const out = {
  push(...lines: string[]) {
    for (const l of lines) console.log(l)
  },
}
await probe(null, 500) // warm-up
out.push(line('idle server', await probe(null)))
for (const file of readdirSync(FIXTURES).sort())
  out.push(...(await during(file, { format: 'ics', location: join(FIXTURES, file), name: `bench:${file}` })))

// Network sources from a process of their own (bench/servers/hostile-sites.ts).
const sites = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/hostile-sites.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
const port = await new Promise<string>((resolve) => sites.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())))
const remote = `http://127.0.0.1:${port}`
const network: Array<[string, ImportSource]> = [
  ['TEC events listing without end', { format: 'tec', location: `${remote}/endless-events` }],
  ['TEC categories listing without end', { format: 'tec', location: `${remote}/endless-terms` }],
  ['TEC page that never answers', { format: 'tec', location: `${remote}/hanging` }],
  ['redirect loop', { format: 'ics', location: `${remote}/loop/cal.ics` }],
  ['1 GiB answer, Content-Length', { format: 'ics', location: `${remote}/gigabyte-declared.ics` }],
  ['1 GiB answer, chunked', { format: 'ics', location: `${remote}/gigabyte-chunked.ics` }],
  ['trickle of 1 byte / 100 ms', { format: 'ics', location: `${remote}/trickle.ics` }],
]
for (const [name, source] of network) out.push(...(await during(name, { ...source, name: `bench:${name}` })))
sites.kill()

clearInterval(sampler)
out.push(`peak RSS ${mib(peak)} over the whole run (the parse worker's heap is capped at budget.memoryMb, default 512 MB)`)
await new Promise<void>((r) => started.server.close(() => r()))
rmSync(dir, { recursive: true, force: true })
