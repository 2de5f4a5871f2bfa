/**
 * Soak: mixed reads and writes against the SQLite server on loopback, 120 s of warm-up
 * (SOAK_WARMUP) then 60 s measured (SOAK_SECONDS is the total, 180). Prints requests, errors and
 * the server's RSS over time; the target is no error and RSS stable within 10% after warm-up,
 * once the caches are full: the response, fragment and record caches and SQLite's page cache are
 * bounded by bytes (32 + 16 + 16 + 64 MiB by default), and the database grows all along (a tenth
 * of the requests create events). At 1,700 requests/s they were still filling after 15 s (+11%
 * over the next 45 s) and 60 s (+14% over the next 60 s); from 90 to 150 s, +4%.
 *
 *   node --import tsx bench/soak.bench.ts
 */
import { soak } from './soak.js'

const seconds = Number(process.env.SOAK_SECONDS ?? 180)
const warmupSeconds = Number(process.env.SOAK_WARMUP ?? 120)
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
