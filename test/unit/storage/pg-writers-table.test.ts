/**
 * The writers' lock table of the PostgreSQL driver (storage/sql/pg-driver.ts) is created with
 * `CREATE TABLE IF NOT EXISTS` by whichever process writes or migrates first. Two processes doing
 * so at the same moment can still collide in the catalog; each way the server reports that
 * collision means the table is there, and the write or migration goes on. Over a fake pool: the
 * collision cannot be timed on a real server.
 */
import { describe, expect, it } from 'vitest'
import { pgDriver } from '../../../src/storage/sql/pg-driver.js'
import { fakePool } from '../../support/fake-pg.js'

/** A pool of one client whose CREATE of the writers' table fails with `code`; records what ran. */
function collidingPool(code: string, message: string) {
  const ran: string[] = []
  const pool = fakePool((sql) => {
    ran.push(sql)
    if (/^CREATE TABLE IF NOT EXISTS calendar_writer/.test(sql)) return Promise.reject(Object.assign(new Error(message), { code }))
    return Promise.resolve({ rows: [], rowCount: 0 })
  })
  return { pool, ran }
}

describe('the writers lock table created by two processes at once', () => {
  for (const [code, message] of [
    ['42P07', 'relation "calendar_writer" already exists'],
    ['23505', 'duplicate key value violates unique constraint "pg_type_typname_nsp_index"'],
    ['42710', 'type "calendar_writer" already exists'],
  ] as const) {
    it(`a migration goes on when the server answers ${code} (${message})`, async () => {
      const { pool, ran } = collidingPool(code, message)
      await expect(pgDriver(pool).migrationLock!(() => Promise.resolve('migrated'))).resolves.toBe('migrated')
      expect(ran.filter((sql) => /^(BEGIN|COMMIT)/.test(sql))).toEqual(['BEGIN', 'COMMIT'])
    })
  }

  it('any other failure of the CREATE stops the migration with that error', async () => {
    const { pool } = collidingPool('42501', 'permission denied for schema public')
    await expect(pgDriver(pool).migrationLock!(() => Promise.resolve('migrated'))).rejects.toThrow('permission denied')
  })
})
