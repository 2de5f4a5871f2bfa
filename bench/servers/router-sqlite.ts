// Subject (7): the router on SQLite (a temp file) behind the Node adapter, without the read cache.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toNodeHandler } from '../../adapters/node/index.js'
import { createSqlStorage, openSqliteFile } from '../../src/storage/sql/index.js'
import { seed, serve } from '../seed.js'

const file = join(mkdtempSync(join(tmpdir(), 'calendar-bench-')), 'bench.db')
const storage = createSqlStorage({ driver: await openSqliteFile(file) })
const { router, paths } = await seed({}, storage)
await serve(toNodeHandler(router), paths)
