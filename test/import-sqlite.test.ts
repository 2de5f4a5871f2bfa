import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { corpusSuite } from './import/corpus.suite.js'
import { fidelitySuite } from './import/fidelity.suite.js'
import { hostileSuite } from './import/hostile.suite.js'
import { importSuite } from './import/import.suite.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-import-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

importSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `import-${++n}.sqlite`)) }))
hostileSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `hostile-${++n}.sqlite`)) }))
fidelitySuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `fidelity-${++n}.sqlite`)) }))
corpusSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `corpus-${++n}.sqlite`)) }))
