/**
 * Soak: 60 s (SOAK_SECONDS) of mixed reads and writes against the SQLite server on loopback.
 * Prints requests, errors and the server's RSS over time; the target is no error and RSS after
 * warm-up stable within 10%.
 *
 *   node --import tsx bench/soak.bench.ts
 */
import { soak } from './soak.js'

const seconds = Number(process.env.SOAK_SECONDS ?? 60)
const warmupSeconds = Number(process.env.SOAK_WARMUP ?? 15)
const r = await soak({ seconds, warmupSeconds, workers: Number(process.env.SOAK_WORKERS ?? 8) })
const growth = r.rssEnd / r.rssAfterWarmup
console.log(`soak: ${r.seconds} s, ${r.requests} requests (${Math.round(r.requests / r.seconds)}/s), ${r.errors} errors`)
console.log(
  `by kind: ${Object.entries(r.byKind)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
)
console.log(`RSS MiB per second: ${r.rss.map((x) => x.toFixed(0)).join(' ')}`)
console.log(
  `RSS after ${warmupSeconds} s warm-up ${r.rssAfterWarmup.toFixed(1)} MiB, at end ${r.rssEnd.toFixed(1)} MiB: ${((growth - 1) * 100).toFixed(1)}% (target within 10%)`,
)
process.exitCode = r.errors === 0 && growth <= 1.1 ? 0 : 1
