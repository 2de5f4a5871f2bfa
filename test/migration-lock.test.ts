/**
 * Migrations under a lock (src/storage/sql/migrations.ts): two storages starting together on one
 * fresh database must not both run a migration. The second waits for the first one's run and
 * then finds every version applied, so each migration's `run` hook and `data` statements happen
 * exactly once. Each side has its own driver (its own connections), as two processes would.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { dialectFor } from '../src/storage/sql/dialect.js'
import type { SqlDriver } from '../src/storage/sql/driver.js'
import { openSqliteFile, pgDriver } from '../src/storage/sql/index.js'
import { runMigrations, type Migration } from '../src/storage/sql/migrations.js'
import { admin, pgDescribe, url } from './support/pg-schema.js'

/**
 * Two migrations whose every step leaves a row behind (none of them idempotent on purpose). The
 * `run` hook yields to the event loop a few times, so the other side gets every chance to start
 * the same migration while this one is under way.
 */
function probeMigrations(): Migration[] {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5))
  const step =
    (name: string): Migration['run'] =>
    async (driver) => {
      for (let i = 0; i < 4; i++) await pause()
      await driver.transaction((c) => c.run(`INSERT INTO probe (step) VALUES ('${name}')`))
    }
  return [
    {
      version: 1,
      name: 'probe table',
      statements: [`CREATE TABLE IF NOT EXISTS probe (step {text} NOT NULL)`],
      run: step('run 1'),
      data: [`INSERT INTO probe (step) VALUES ('data 1')`],
    },
    { version: 2, name: 'probe rows', statements: [], run: step('run 2'), data: [`INSERT INTO probe (step) VALUES ('data 2')`] },
  ]
}

const quiet = () => undefined

async function migrateTogether(a: SqlDriver, b: SqlDriver): Promise<void> {
  const migrations = probeMigrations()
  const dialect = dialectFor(a.dialect)
  const applied = await Promise.all([a, b].map((driver) => runMigrations(driver, dialect, migrations, quiet)))
  // One side applied both versions, the other found them applied.
  assert.deepEqual(applied.map((versions) => versions.join(',')).sort(), ['', '1,2'])
  const rows = await a.read((c) =>
    c.query<{ step: string; n: unknown }>('SELECT step, count(*) AS n FROM probe GROUP BY step ORDER BY step'),
  )
  assert.deepEqual(
    rows.map((r) => `${r.step}: ${Number(r.n)}`),
    ['data 1: 1', 'data 2: 1', 'run 1: 1', 'run 2: 1'],
  )
  const versions = await b.read((c) => c.query<{ version: unknown }>('SELECT version FROM calendar_migrations ORDER BY version'))
  assert.deepEqual(
    versions.map((r) => Number(r.version)),
    [1, 2],
  )
}

describe('migrations under a lock: SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-migration-lock-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('two connections migrating one fresh file at once run each step once', async () => {
    const file = join(dir, 'fresh.sqlite')
    const [a, b] = await Promise.all([openSqliteFile(file), openSqliteFile(file)])
    try {
      await migrateTogether(a, b)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})

pgDescribe('migrations under a lock: PostgreSQL', () => {
  it('two pools migrating one fresh schema at once run each step once', async () => {
    const schema = `lock_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    await admin!.query(`CREATE SCHEMA ${schema}`)
    const pool = () => new pg.Pool({ connectionString: url, max: 3, options: `-c search_path=${schema}` })
    const [a, b] = [pgDriver(pool()), pgDriver(pool())]
    try {
      await migrateTogether(a, b)
    } finally {
      await Promise.all([a.close(), b.close()])
      await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
    }
  })
})
