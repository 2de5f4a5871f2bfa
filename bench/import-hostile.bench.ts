/**
 * Issue 39's hostile-source targets: a concurrent reader's latency on the example server while
 * a feed whose parsing never ends is imported in the same process (p99 under 100 ms), how long
 * each hostile fixture takes to end (within its budget), and the process's peak RSS. Reads go
 * over HTTP, one after the other, as fast as they are answered. Results in
 * bench/results/issue-39-hostile.txt. `node --import tsx bench/import-hostile.bench.ts`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../examples/node-server/server.js'
import { importCalendar } from '../src/import/index.js'

const FIXTURES = 'test/fixtures/import/hostile'
const dir = mkdtempSync(join(tmpdir(), 'bench-hostile-'))
let peak = process.memoryUsage().rss
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)

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

const out: string[] = []
await probe(null, 500) // warm-up
out.push(line('idle server', await probe(null)))
for (const file of readdirSync(FIXTURES).sort()) {
  const t0 = performance.now()
  const running = importCalendar(
    started.router,
    { format: 'ics', location: join(FIXTURES, file), name: `bench:${file}`, budget: { eventMs: 2000, sourceMs: 6000 } },
    { batchSize: 100 },
  )
  const reads = await probe(running)
  const s = await running
  const secs = ((performance.now() - t0) / 1000).toFixed(1)
  const end = s.failed.find((f) => f.ref === 'source')?.reason ?? `created ${s.created}, failed ${s.failed.length}`
  out.push(line(`during ${file} (${secs} s)`, reads), `  ${end}`)
}
clearInterval(sampler)
out.push(`peak RSS ${(peak / 1024 / 1024).toFixed(0)} MiB (the parse worker's heap is capped at budget.memoryMb, default 512 MB)`)
console.log(out.join('\n'))
await new Promise<void>((r) => started.server.close(() => r()))
rmSync(dir, { recursive: true, force: true })
