/** The HTTP suites under TEC's names on SQLite files (see http-tec-names.test.ts). */
// First: switches the harness to TEC's names before the suite modules read it.
import './http/tec-names-wire.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { httpSuites } from './http/all.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-http-tec-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

httpSuites('sqlite, TEC names', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `http-${++n}.sqlite`)) }))
