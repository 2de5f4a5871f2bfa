import { describe, expect, it } from 'vitest'
import { checkEngine, engineProblem } from '../../../src/storage/sql/engine.js'
import { createSqlStorage } from '../../../src/storage/sql/index.js'
import type { SqlDriver } from '../../../src/storage/sql/driver.js'

/** A driver answering `SELECT version()` as `version` would, and failing anything else. */
function claims(version: string, num: string): SqlDriver & { statements: string[] } {
  const statements: string[] = []
  const conn = {
    async query<R>(sql: string): Promise<R[]> {
      statements.push(sql)
      if (/version\(\)/.test(sql)) return [{ v: version, n: num }] as R[]
      throw new Error(`unexpected statement: ${sql}`)
    },
    async run(sql: string) {
      statements.push(sql)
      throw new Error(`unexpected statement: ${sql}`)
    },
  }
  return {
    dialect: 'postgres',
    statements,
    read: (fn) => fn(conn),
    transaction: (fn) => fn(conn),
    execute: async (sql) => void statements.push(sql),
    close: async () => undefined,
  }
}

describe('database engine check', () => {
  it.each([
    ['CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.10)', '130000', /CockroachDB is not supported/],
    ['PostgreSQL 11.2-YB-2.18.0.0-b0 on x86_64-pc-linux-gnu', '110002', /YugabyteDB is not supported/],
    [
      'PostgreSQL 12.17 on x86_64-pc-linux-gnu, compiled by gcc',
      '120017',
      /PostgreSQL 13 or newer is needed \(the server says PostgreSQL 12.17\)/,
    ],
  ])('refuses %s before any migration, with a sentence naming it', async (version, num, message) => {
    const driver = claims(version, num)
    const storage = createSqlStorage({ driver })
    await expect(storage.migrate()).rejects.toThrow(message)
    expect(driver.statements).toHaveLength(1)
  })

  it('refuses it at the first use too when migrations run elsewhere (migrate: false), before any other statement', async () => {
    const driver = claims('CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu)', '130000')
    const storage = createSqlStorage({ driver, migrate: false })
    await expect(storage.getPost(1)).rejects.toThrow(/Unsupported database engine: CockroachDB is not supported/)
    await expect(storage.transaction(async () => undefined)).rejects.toThrow(/CockroachDB is not supported/)
    expect(driver.statements.every((sql) => /version\(\)/.test(sql))).toBe(true)
  })

  it('accepts PostgreSQL 13 and newer', async () => {
    expect(engineProblem('PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu', 150018)).toBeNull()
    expect(engineProblem('PostgreSQL 13.0 on x86_64-pc-linux-gnu', 130000)).toBeNull()
    await expect(checkEngine(claims('PostgreSQL 16.2', '160002'))).resolves.toBeUndefined()
  })
})
