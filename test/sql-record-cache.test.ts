/**
 * The SQL storage's record cache (record-cache.ts): two storages on one database, each with its
 * own cache, must always read what the other committed, through every change of a post row or
 * its links, and a rolled-back transaction must leave nothing behind that a later commit of the
 * same revision could be mistaken for. The reference is a third storage without the cache.
 */
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlStorage } from '../src/storage/sql/index.js'
import { RecordCache } from '../src/storage/sql/record-cache.js'
import type { EventRecord } from '../src/storage/types.js'
import { eventQuery, newEvent, newOrganizer, newTerm, newVenue } from '../src/testing/index.js'
import pg from 'pg'
import { admin, pgDescribe, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

interface World {
  a: SqlStorage
  b: SqlStorage
  plain: SqlStorage
  close(): Promise<void>
}

function recordCacheSuite(name: string, open: () => Promise<World>, describeIt: (name: string, fn: () => void) => void) {
  describeIt(`record cache [${name}]`, () => {
    it("a second storage's cached records follow every committed write of the first", async () => {
      const { a, b, plain, close } = await open()
      try {
        const { event, venue, organizer, music, loud } = await a.transaction(async (tx) => {
          const venue = await tx.insertPost(newVenue({ slug: 'hall', title: 'Hall' }))
          const organizer = await tx.insertPost(newOrganizer({ slug: 'acme', title: 'Acme' }))
          const music = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
          const loud = await tx.insertTerm(newTerm({ slug: 'loud', name: 'Loud', taxonomy: 'tag' }))
          await tx.insertTerm(newTerm({ slug: 'jazz', name: 'Jazz', parent: music.id }))
          const event = await tx.insertPost(
            newEvent({
              slug: 'gig',
              title: 'Gig',
              venueIds: [venue.id],
              organizerIds: [organizer.id],
              categoryIds: [music.id],
              tagIds: [loud.id],
            }),
          )
          return { event, venue, organizer, music, loud }
        })
        const q = eventQuery({ statuses: ['publish', 'draft'] })
        /** b (through its cache, read twice) answers every read as the cache-less storage does. */
        const same = async (label: string) => {
          for (let pass = 0; pass < 2; pass++) {
            assert.deepEqual(await b.getPost(event.id), await plain.getPost(event.id), `${label}: getPost`)
            assert.deepEqual(
              await b.getPosts([venue.id, event.id, organizer.id]),
              await plain.getPosts([venue.id, event.id, organizer.id]),
              `${label}: getPosts`,
            )
            assert.deepEqual(await b.listEvents(q), await plain.listEvents(q), `${label}: listEvents`)
            assert.deepEqual(
              await b.findPostBySlug('event', 'en', 'gig'),
              await plain.findPostBySlug('event', 'en', 'gig'),
              `${label}: by slug`,
            )
            assert.deepEqual(await b.seriesMembers(event.id), await plain.seriesMembers(event.id), `${label}: series`)
            // Terms by id (names, parents and counts), the deleted ones left out.
            const termIds = [music.id, loud.id, music.id + 2]
            assert.deepEqual(await b.getTerms(termIds), await plain.getTerms(termIds), `${label}: getTerms`)
          }
        }
        await same('created')
        const steps: Array<[string, () => Promise<unknown>]> = [
          ['title', () => a.transaction((tx) => tx.updatePost(event.id, 'event', { title: 'Gig, moved' }))],
          [
            'links only',
            () => a.transaction((tx) => tx.updatePost(event.id, 'event', { organizerIds: [], categoryIds: [music.id, music.id] })),
          ],
          ['to draft', () => a.transaction((tx) => tx.updatePost(event.id, 'event', { status: 'draft' }))],
          ['venue renamed', () => a.transaction((tx) => tx.updatePost(venue.id, 'venue', { title: 'Great Hall' }))],
          [
            'category renamed',
            () => a.transaction((tx) => tx.updateTerm(music.id, { name: 'Music!', slug: 'music-2', description: 'Loud and soft' })),
          ],
          ['tag renamed', () => a.transaction((tx) => tx.updateTerm(loud.id, { name: 'Very loud' }))],
          ['back to publish', () => a.transaction((tx) => tx.updatePost(event.id, 'event', { status: 'publish' }))],
          ['tag deleted', () => a.transaction((tx) => tx.deleteTerm(loud.id))],
          ['category deleted', () => a.transaction((tx) => tx.deleteTerm(music.id))],
          ['venue unlinked', () => a.transaction((tx) => tx.unlinkPost(venue.id))],
          ['venue deleted', () => a.transaction((tx) => tx.deletePost(venue.id))],
        ]
        for (const [label, step] of steps) {
          await step()
          await same(label)
        }
        const e = (await b.getPost(event.id)) as EventRecord
        assert.deepEqual(
          [e.title, e.status, e.venueIds, e.organizerIds, e.categoryIds, e.tagIds],
          ['Gig, moved', 'publish', [], [], [], []],
        )
        // The child category moved up to the deleted parent's parent (the top), seen by b.
        assert.deepEqual(
          (await b.getTerms([music.id + 2])).map((t) => [t.name, t.parent]),
          [['Jazz', 0]],
        )
      } finally {
        await close()
      }
    })

    it('a rolled-back transaction leaves nothing a later commit of the same revision could be taken for', async () => {
      const { a, b, plain, close } = await open()
      try {
        const event = await a.transaction((tx) => tx.insertPost(newEvent({ slug: 'gig', title: 'Before' })))
        assert.equal((await b.getPost(event.id))?.title, 'Before')
        // From here b reads nothing until the rollback: what the transaction read is not masked.
        await assert.rejects(
          b.transaction(async (tx) => {
            await tx.updatePost(event.id, 'event', { title: 'Rolled back' })
            assert.equal((await tx.getPost(event.id))?.title, 'Rolled back')
            await tx.listEvents(eventQuery())
            throw new Error('abort')
          }),
          /abort/,
        )
        assert.equal((await plain.getPost(event.id))?.title, 'Before')
        // The same revision number, committed by the other storage with other contents.
        await a.transaction((tx) => tx.updatePost(event.id, 'event', { title: 'Committed' }))
        assert.equal((await plain.getPost(event.id))?.revision, event.revision + 1)
        assert.equal((await b.getPost(event.id))?.title, 'Committed')
        assert.deepEqual((await b.listEvents(eventQuery())).items, (await plain.listEvents(eventQuery())).items)

        // The same for a term.
        const term = await a.transaction((tx) => tx.insertTerm(newTerm({ slug: 'music', name: 'Before' })))
        assert.equal((await b.getTerms([term.id]))[0]?.name, 'Before')
        await assert.rejects(
          b.transaction(async (tx) => {
            await tx.updateTerm(term.id, { name: 'Rolled back' })
            assert.equal((await tx.getTerms([term.id]))[0]?.name, 'Rolled back')
            throw new Error('abort')
          }),
          /abort/,
        )
        await a.transaction((tx) => tx.updateTerm(term.id, { name: 'Committed' }))
        assert.equal((await b.getTerms([term.id]))[0]?.name, 'Committed')
      } finally {
        await close()
      }
    })

    it('hands out frozen records: a caller cannot change what the next read gets', async () => {
      const { b, close } = await open()
      try {
        const event = await b.transaction((tx) => tx.insertPost(newEvent({ slug: 'gig', title: 'Gig', tagIds: [5] })))
        await b.getPost(event.id)
        // A hit, this time: the held record itself, which refuses changes to the last array.
        const first = (await b.getPost(event.id)) as EventRecord
        assert.throws(() => {
          first.title = 'changed'
        }, TypeError)
        assert.throws(() => first.tagIds.push(6), TypeError)
        const second = (await b.getPost(event.id)) as EventRecord
        assert.equal(second.title, 'Gig')
        assert.deepEqual(second.tagIds, [5])
      } finally {
        await close()
      }
    })
  })
}

const sqliteFile = () => join(mkdtempSync(join(tmpdir(), 'calendar-records-')), 'db.sqlite')
recordCacheSuite(
  'sqlite',
  async () => {
    const file = sqliteFile()
    const a = createSqlStorage({ driver: await openSqliteFile(file) })
    await a.migrate()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    const plain = createSqlStorage({ driver: await openSqliteFile(file), recordCache: false })
    return { a, b, plain, close: async () => void (await Promise.all([b.close(), plain.close()]), await a.close()) }
  },
  describe,
)

recordCacheSuite(
  'postgres',
  async () => {
    const a = await schemaStorage()
    await a.migrate()
    const b = await schemaStorage(a.schema)
    const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${a.schema}` })
    const plain = createSqlStorage({ driver: pgDriver(pool), recordCache: false })
    return { a, b, plain, close: async () => void (await Promise.all([b.close(), plain.close()]), await a.close()) }
  },
  pgDescribe,
)

describe('RecordCache', () => {
  it('stays within its byte bound and keeps the newest records', () => {
    const cache = new RecordCache({ maxBytes: 200_000 })
    for (let id = 1; id <= 500; id++) {
      cache.set({
        ...newEvent({ slug: `e${id}`, description: 'x'.repeat(2000) }),
        id,
        translationGroup: id,
        revision: 0,
        sequence: 0,
      } as EventRecord)
      assert.ok(cache.bytes <= 200_000)
    }
    assert.equal(cache.get(500, 0)?.slug, 'e500')
    assert.equal(cache.get(1, 0), undefined)
    assert.equal(cache.get(500, 1), undefined)
  })
})
