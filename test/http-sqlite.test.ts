import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { httpSuites } from './http/all.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-http-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

httpSuites('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `http-${++n}.sqlite`)) }))
