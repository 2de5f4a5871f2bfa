/**
 * The router behind the Node adapter, as users deploy it. BENCH_STORAGE=memory|sqlite (a temp
 * file) and BENCH_CACHE=on|off (the response cache of anonymous GETs, on in `npm start`).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toNodeHandler } from '../../adapters/node/index.js'
import { createMemoryStorage } from '../../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../../src/storage/sql/index.js'
import { seed, serve } from '../seed.js'

const storage =
  process.env.BENCH_STORAGE === 'sqlite'
    ? createSqlStorage({ driver: await openSqliteFile(join(mkdtempSync(join(tmpdir(), 'calendar-bench-')), 'bench.db')) })
    : createMemoryStorage()
const seeded = await seed({ cache: process.env.BENCH_CACHE === 'on' ? { ttlMs: 60_000 } : false }, storage)
await serve(toNodeHandler(seeded.router), seeded)
