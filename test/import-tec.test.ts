/** The TEC-site importer against the stub TEC site on memory, SQLite and PostgreSQL (test/import/tec.suite.ts). */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { tecSuite } from './import/tec.suite.js'
import { admin, reason, schemaStorage, url } from './support/pg-schema.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-import-tec-'))
let n = 0
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await admin?.end()
})

tecSuite('memory', () => createMemoryStorage())
tecSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `tec-${++n}.sqlite`)) }))
// Without a server (outside CI only: globalSetup fails CI runs) there is nothing to test.
if (url) tecSuite('postgres', () => schemaStorage())
// Skip reason: no PostgreSQL server here (outside CI only; in CI the globalSetup fails instead), named in the title.
else describe.skip(`TEC-site importer on PostgreSQL: ${reason}`, () => {})
