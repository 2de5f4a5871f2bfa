/**
 * A transaction of the PostgreSQL driver (storage/sql/pg-driver.ts) holds one client. Statements
 * the storage sends together there (a list's page and its count) must reach that client one at a
 * time: a pg client handed a query while one is running queues it itself, which pg deprecates
 * ("Calling client.query() when the client is already executing a query") and pg 9 refuses.
 * Over a fake pool whose client records how many of its queries run at once.
 */
import { describe, expect, it } from 'vitest'
import { pgDriver } from '../../../src/storage/sql/pg-driver.js'
import { fakePool } from '../../support/fake-pg.js'

function watchedPool() {
  let running = 0
  let most = 0
  const ran: string[] = []
  const pool = fakePool(async (sql) => {
    running++
    most = Math.max(most, running)
    ran.push(sql)
    await new Promise((resolve) => setTimeout(resolve, 5))
    running--
    if (sql === 'SELECT fail') throw Object.assign(new Error('boom'), { code: '22012' })
    return { rows: [{ sql }], rowCount: 1 }
  })
  return { pool, ran, most: () => most }
}

describe('one client, one statement at a time', () => {
  it('statements sent together inside a transaction run one after another, in order, each with its own answer', async () => {
    const { pool, ran, most } = watchedPool()
    const driver = pgDriver(pool, { serializeWriters: false })
    const answers = await driver.transaction((conn) =>
      Promise.all([
        conn.query<{ sql: string }>('SELECT 1'),
        conn.query<{ sql: string }>('SELECT 2'),
        conn.query<{ sql: string }>('SELECT 3'),
      ]),
    )
    expect(answers.map((rows) => rows[0]!.sql)).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3'])
    expect(most()).toBe(1)
    expect(ran.filter((sql) => /^SELECT \d/.test(sql))).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3'])
  })

  it('a failed statement gives its error to its caller, and the next one still runs', async () => {
    const { pool, ran } = watchedPool()
    const driver = pgDriver(pool, { serializeWriters: false })
    const outcomes = await driver.transaction(async (conn) =>
      Promise.allSettled([conn.query('SELECT fail'), conn.query<{ sql: string }>('SELECT 2')]),
    )
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { message: 'boom' } })
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: [{ sql: 'SELECT 2' }] })
    expect(ran).toContain('SELECT 2')
  })
})
