/**
 * WAL soak: 32 concurrent clients writing (creates, every fourth an update of an earlier event)
 * to the SQLite example server over loopback for 10 minutes. Every 30 s it prints the `-wal`
 * file's size (now and the largest sample of the interval), the database's size, the server's RSS
 * and the write latency p50/p99 of the interval; at the end the server gets SIGTERM and the bench
 * checks it exited cleanly, left no write-ahead log behind and kept every acknowledged create.
 * The target: the log stays bounded (docs/storage.md §2.9) however long it runs.
 *
 *   node --import tsx bench/wal-soak.bench.ts        (npm run bench:wal)
 *
 * Settings (environment):
 *   WAL_SOAK_SECONDS=600      how long to write
 *   WAL_SOAK_WRITES=n         stop after n writes instead (WAL_SOAK_WRITES=3000 WAL_SOAK_UPDATE_EVERY=0:
 *                             the 3,000 creates of issue 29)
 *   WAL_SOAK_WRITERS=32       concurrent clients
 *   WAL_SOAK_SERVERS=1        server processes on the one database file
 *   WAL_SOAK_UPDATE_EVERY=4   every n-th write of a client is an update; 0 for creates only
 *   WAL_SOAK_REPORT=30        seconds between lines
 */
import { MiB, walSoak } from './wal-soak.js'

const env = process.env
const seconds = Number(env.WAL_SOAK_SECONDS ?? 600)
const writes = env.WAL_SOAK_WRITES ? Number(env.WAL_SOAK_WRITES) : undefined
const writers = Number(env.WAL_SOAK_WRITERS ?? 32)
const servers = Number(env.WAL_SOAK_SERVERS ?? 1)
const updateEvery = Number(env.WAL_SOAK_UPDATE_EVERY ?? 4)

console.log(
  `wal-soak: ${writers} writers, ${servers} server process${servers === 1 ? '' : 'es'} on one SQLite file, ` +
    (writes ? `${writes} writes` : `${seconds} s`) +
    (updateEvery > 0 ? `, every ${updateEvery}th write an update` : ', creates only') +
    ` (node ${process.version}, ${new Date().toISOString()})`,
)
const pad = (s: string | number, n: number) => String(s).padStart(n)
const r = await walSoak({
  seconds,
  writes,
  writers,
  servers,
  updateEvery,
  reportEvery: Number(env.WAL_SOAK_REPORT ?? 30),
  onReport: (x) =>
    console.log(
      `t=${pad(x.seconds, 4)} s  writes ${pad(x.writes, 7)} (${pad(Math.round(x.intervalWrites / Number(env.WAL_SOAK_REPORT ?? 30)), 4)}/s)` +
        `  wal ${pad(MiB(x.wal), 7)} MiB (interval max ${pad(MiB(x.walMax), 7)})  db ${pad(MiB(x.db), 7)} MiB` +
        `  rss ${x.rss.map((m) => pad(m.toFixed(0), 4)).join('/')} MiB  p50 ${pad(x.p50.toFixed(2), 6)} p99 ${pad(x.p99.toFixed(2), 7)} ms` +
        `  errors ${x.errors}`,
    ),
})
console.log(
  `wal-soak: ${r.writes} writes in ${r.seconds.toFixed(0)} s (${Math.round(r.writes / r.seconds)}/s), ${r.errors} errors; ` +
    `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`,
)
console.log(`wal: largest ${MiB(r.walMax)} MiB, at the end ${MiB(r.walEnd)} MiB; db ${MiB(r.dbEnd)} MiB`)
console.log(
  `after SIGTERM: exit ${r.exitCodes.join('/')}, -wal ${r.walAfterExit === null ? 'removed' : `${MiB(r.walAfterExit)} MiB left`}, ` +
    `${r.eventsAfterExit} events in the file for ${r.created} acknowledged creates`,
)
process.exitCode = r.errors === 0 && r.exitCodes.every((c) => c === 0) && !r.walAfterExit && r.eventsAfterExit === r.created ? 0 : 1
