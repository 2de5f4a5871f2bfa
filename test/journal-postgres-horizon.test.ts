/**
 * The PostgreSQL journal's readable horizon is the oldest transaction still running that could
 * have written this database's journal. Transaction ids are the server's, shared by all its
 * databases: a writing transaction left open in another database of the same server (an app's
 * own, a migration, a stuck job) must not hold back the sync readers of this one. One still open
 * in this database must (its entries could still appear below the horizon).
 */
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { SqlStorage } from '../src/storage/sql/index.js'
import { newEvent } from '../src/testing/fixtures.js'
import { admin, pgDescribe, schemaStorage, url } from './support/pg-schema.js'

pgDescribe('journal horizon on a server shared by several databases [postgres]', () => {
  const other = `other_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  let storage: SqlStorage & { schema: string }
  let otherClient: pg.Client
  let made = 0

  beforeAll(async () => {
    await admin!.query(`CREATE DATABASE ${other}`)
    const u = new URL(url)
    u.pathname = `/${other}`
    otherClient = new pg.Client({ connectionString: u.toString() })
    await otherClient.connect()
    await otherClient.query('CREATE TABLE busy (n int)')
    storage = await schemaStorage()
  })

  afterAll(async () => {
    await otherClient?.end()
    await storage?.close()
    await admin!.query(`DROP DATABASE IF EXISTS ${other}`)
  })

  const created = async (title: string) => {
    const at = await storage.journalHead()
    const event = await storage.transaction((tx) => tx.insertPost(newEvent({ title, slug: `e-${++made}` })))
    return { at, id: event.id }
  }

  it('a write transaction left open in another database does not hold back this one', async () => {
    await otherClient.query('BEGIN')
    await otherClient.query('INSERT INTO busy VALUES (1)')
    try {
      const { at, id } = await created('Seen while another database writes')
      const page = await storage.readJournal(at, 100)
      expect(page.entries.map((e) => [e.kind, e.id, e.action])).toContainEqual(['event', id, 'create'])
      // The head moved past the write: a client starting now does not read it again.
      expect(await storage.journalHead()).not.toBe(at)
    } finally {
      await otherClient.query('ROLLBACK')
    }
  })

  it('a write transaction left open in this database holds back entries committed after it began', async () => {
    const u = new URL(url)
    const same = new pg.Client({ connectionString: u.toString(), options: `-c search_path=${storage.schema}` })
    await same.connect()
    try {
      await same.query('BEGIN')
      await same.query('CREATE TEMP TABLE held (n int)')
      await same.query('INSERT INTO held VALUES (1)')
      const { at, id } = await created('Held back behind an older writer')
      expect((await storage.readJournal(at, 100)).entries.map((e) => e.id)).not.toContain(id)
      await same.query('ROLLBACK')
      expect((await storage.readJournal(at, 100)).entries.map((e) => e.id)).toContain(id)
    } finally {
      await same.end()
    }
  })
})
