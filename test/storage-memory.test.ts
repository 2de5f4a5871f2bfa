import assert from 'node:assert/strict'
import { describe, it } from 'vitest'
import { storageContract } from '../src/testing/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { JournalPositionError } from '../src/storage/journal.js'
import { newEvent } from '../src/testing/fixtures.js'

storageContract({ describe, it }, 'memory', () => createMemoryStorage())

describe('memory journal bound', () => {
  it('keeps at most journalLimit entries, expiring positions before them', async () => {
    const s = createMemoryStorage({ journalLimit: 3 })
    const start = await s.journalHead()
    for (let i = 0; i < 5; i++) await s.transaction((tx) => tx.insertPost(newEvent({ slug: `e${i}` })))
    await assert.rejects(s.readJournal(start, 10), (e: unknown) => e instanceof JournalPositionError && e.reason === 'expired')
    const head = await s.journalHead()
    await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'last' })))
    assert.equal((await s.readJournal(head, 10)).entries.length, 1)
  })
})
