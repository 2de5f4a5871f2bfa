/**
 * Migration 7 (the iCalendar sequence column) on SQLite, which has no ADD COLUMN IF NOT EXISTS:
 * an older database gets the column with 0 for its events, and a run interrupted after the
 * column was added (version not yet recorded) completes when run again.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { newEvent } from '../src/testing/index.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-seq-migration-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('iCalendar sequence migration (sqlite)', () => {
  it('adds the column to an older database, and completes a run interrupted after adding it', async () => {
    const file = join(dir, 'old.sqlite')
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    const e = await a.transaction((tx) => tx.insertPost(newEvent({ slug: 'old' })))
    await a.transaction((tx) => tx.updatePost(e.id, 'event', { title: 'Changed' }))
    await a.close()

    // Back to a database from before version 7.
    const raw = new Database(file)
    raw.exec('ALTER TABLE posts DROP COLUMN ical_sequence; DELETE FROM calendar_migrations WHERE version >= 7')
    raw.close()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    const migrated = await b.getPost(e.id)
    assert.equal(migrated?.type === 'event' && migrated.sequence, 0)
    await b.transaction((tx) => tx.updatePost(e.id, 'event', { title: 'Again' }))
    await b.close()

    // Interrupted: the column is there, the version is not recorded.
    const raw2 = new Database(file)
    raw2.exec('DELETE FROM calendar_migrations WHERE version = 7')
    raw2.close()
    const c = createSqlStorage({ driver: await openSqliteFile(file) })
    const kept = await c.getPost(e.id)
    assert.equal(kept?.type === 'event' && kept.sequence, 1)
    await c.close()
    const check = new Database(file)
    assert.deepEqual(check.prepare('SELECT version FROM calendar_migrations WHERE version = 7').all(), [{ version: 7 }])
    check.close()
  })
})
