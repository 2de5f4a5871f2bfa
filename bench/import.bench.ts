/**
 * Issue 27's import targets: 10,000 events from one iCalendar file into SQLite (≤ 30 s, peak RSS
 * reported), the same file again with nothing changed (≤ 5 s), a 1,000-event TEC site over HTTP
 * (the stub site of the tests, test/support/tec-stub.ts) into SQLite (≤ 20 s). Results in
 * bench/results/issue-27-import.txt. `npm run bench:import`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importCalendar } from '../src/import/index.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { defaultContent, startTecStub } from '../test/support/tec-stub.js'

const N = Number(process.env.BENCH_EVENTS ?? 10_000)
const dir = mkdtempSync(join(tmpdir(), 'bench-import-'))
const ics = join(dir, 'big.ics')

const pad = (n: number) => String(n).padStart(2, '0')
const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN', 'X-WR-TIMEZONE:Europe/Berlin']
for (let i = 0; i < N; i++) {
  const day = new Date(Date.UTC(2027, 0, 1) + Math.floor(i / 10) * 86_400_000)
  const d = `${day.getUTCFullYear()}${pad(day.getUTCMonth() + 1)}${pad(day.getUTCDate())}`
  const h = 8 + (i % 10)
  lines.push(
    'BEGIN:VEVENT',
    `UID:bench-${i}@example.org`,
    `DTSTART;TZID=Europe/Berlin:${d}T${pad(h)}0000`,
    `DTEND;TZID=Europe/Berlin:${d}T${pad(h + 1)}0000`,
    `SUMMARY:Event ${i}\\, a benchmark`,
    `DESCRIPTION:Line one of event ${i}.\\nLine two with some more words to make it realistic.`,
    `LOCATION:Venue ${i % 50}\\, Street ${i % 50}\\, Berlin`,
    `CATEGORIES:Cat ${i % 7}`,
    'END:VEVENT',
  )
}
lines.push('END:VCALENDAR')
writeFileSync(ics, lines.join('\r\n') + '\r\n')

let peak = process.memoryUsage().rss
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'bench.sqlite')) })
const target = { storage, options: { cache: false as const } }

const cpu0 = process.cpuUsage()
const t0 = performance.now()
const first = await importCalendar(target, { format: 'ics', location: ics, name: 'bench' })
const firstS = (performance.now() - t0) / 1000
// CPU time beside wall time: on a shared machine the wall time of the commits varies 2-3x with
// the other processes' disk load, the CPU time much less.
const firstCpu = process.cpuUsage(cpu0)
const peakFirst = peak
const t1 = performance.now()
const second = await importCalendar(target, { format: 'ics', location: ics, name: 'bench' })
const secondS = (performance.now() - t1) / 1000
await storage.close()

// A TEC site of 1,000 events (plus its venues, organizers and terms) over HTTP on localhost.
const TEC_N = Number(process.env.BENCH_TEC_EVENTS ?? 1000)
const site = await startTecStub(defaultContent(TEC_N))
const tecStorage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'tec.sqlite')) })
const t2 = performance.now()
const tec = await importCalendar({ storage: tecStorage, options: { cache: false as const } }, { format: 'tec', location: site.url })
const tecS = (performance.now() - t2) / 1000
const tecRequests = site.requests.length
await site.close()
await tecStorage.close()
clearInterval(timer)
rmSync(dir, { recursive: true, force: true })

const mib = (b: number) => (b / 1024 / 1024).toFixed(0)
const report = [
  `issue 27 import bench (${new Date().toISOString()}, node ${process.version}, shared 2-core machine)`,
  `${N} events from one .ics into SQLite: ${firstS.toFixed(1)} s (${((firstS * 1000) / N).toFixed(2)} ms/event), created ${first.created}, failed ${first.failed.length}; CPU ${((firstCpu.user + firstCpu.system) / 1e6).toFixed(1)} s; peak RSS ${mib(peakFirst)} MiB (target ≤ 30 s)`,
  `re-run, nothing changed: ${secondS.toFixed(2)} s, unchanged ${second.unchanged}, created ${second.created}, updated ${second.updated} (target ≤ 5 s)`,
  `${TEC_N}-event TEC site over HTTP into SQLite: ${tecS.toFixed(1)} s, ${tecRequests} requests, created ${tec.created}, failed ${tec.failed.length} (target ≤ 20 s)`,
  `peak RSS over all runs: ${mib(peak)} MiB`,
]
console.log(report.join('\n'))
if (!process.env.BENCH_EVENTS) writeFileSync('bench/results/issue-27-import.txt', report.join('\n') + '\n')
