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
import type { SqlConnection, SqlDriver } from '../src/storage/sql/driver.js'
import { RecordCache } from '../src/storage/sql/record-cache.js'
import type { EventRecord } from '../src/storage/types.js'
import { eventQuery, newEvent, newOrganizer, newTerm, newVenue } from '../src/testing/index.js'
import pg from 'pg'
import { admin, pgDescribe, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

interface World {
  a: SqlStorage
  /** The statements `a` ran outside transactions (its reads), in order. */
  aStatements: string[]
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

    it("a storage's own commits are cached as a read decodes them: the next read loads no row", async () => {
      const { a, plain, aStatements, close } = await open()
      try {
        const { venue, organizer, event, series } = await a.transaction(async (tx) => {
          const music = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
          const venue = await tx.insertPost(
            newVenue({ slug: 'hall', title: 'Hall', geoLat: 52.520008, geoLng: 13.404954, city: 'Berlin', showMap: false }),
          )
          const organizer = await tx.insertPost(newOrganizer({ slug: 'acme', title: 'Acme', email: 'a@example.org' }))
          const event = await tx.insertPost(
            newEvent({
              slug: 'gig',
              title: 'Gig',
              cost: ['5', '10'],
              currencySymbol: '€',
              currencyPosition: 'postfix',
              image: { url: 'https://example.org/a.jpg', id: 7, width: 10, height: 20, alt: 'A' } as never,
              customFields: { dress: 'smart' } as never,
              venueIds: [venue.id],
              organizerIds: [organizer.id],
              categoryIds: [music.id, music.id],
              allDay: true,
              eventStatus: 'canceled',
              eventStatusReason: 'Rain',
            }),
          )
          const series = await tx.insertEvents!(
            [1, 2, 3].map((n) =>
              newEvent({
                slug: `s-${n}`,
                title: `S ${n}`,
                series: {
                  position: n - 1,
                  original: `2027-02-0${n} 10:00:00`,
                  ...(n === 1 ? { rule: { rrule: 'FREQ=DAILY;COUNT=3', rdate: [], exdate: [] } } : {}),
                },
              }),
            ),
          )
          return { venue, organizer, event, series: series.filter((e) => e !== null) }
        })
        // Written twice in one transaction: the cache holds the last.
        await a.transaction(async (tx) => {
          await tx.updatePost(event.id, 'event', { title: 'Gig, first' })
          await tx.updatePost(event.id, 'event', { title: 'Gig, second', cost: [], website: 'https://example.org' })
        })
        // Half a character in a column: each engine stores it its own way, so the record is read.
        const odd = await a.transaction((tx) => tx.insertPost(newOrganizer({ slug: 'odd', title: 'Odd \ud800 one' })))
        const ids = [venue.id, organizer.id, event.id, ...series.map((e) => e.id)]
        aStatements.length = 0
        assert.deepEqual(await a.getPost(odd.id), await plain.getPost(odd.id))
        assert.equal(aStatements.filter((sql) => sql.includes('p.title')).length, 1, 'the record with half a character was read')
        aStatements.length = 0
        const got = await a.getPosts(ids)
        assert.deepEqual(got, await plain.getPosts(ids))
        assert.equal((got.find((p) => p.id === event.id) as EventRecord).title, 'Gig, second')
        assert.deepEqual(
          aStatements.filter((sql) => sql.includes('p.title') || sql.includes('event_links')),
          [],
          'every record came from the cache',
        )

        // A cascade after the write (a venue renamed after the event was written, in the same
        // transaction) moves the event to a newer revision than the one the cache got: it is read.
        await a.transaction(async (tx) => {
          await tx.updatePost(event.id, 'event', { title: 'Gig, third' })
          await tx.updatePost(venue.id, 'venue', { title: 'Great Hall' })
        })
        aStatements.length = 0
        assert.deepEqual(await a.getPosts(ids), await plain.getPosts(ids))
        assert.ok(
          aStatements.some((sql) => sql.includes('p.title')),
          'the event bumped by the cascade was read',
        )
        // A rolled-back transaction caches nothing.
        await assert.rejects(
          a.transaction(async (tx) => {
            await tx.updatePost(organizer.id, 'organizer', { title: 'Never' })
            throw new Error('abort')
          }),
          /abort/,
        )
        assert.equal((await a.getPost(organizer.id))?.title, 'Acme')
        assert.deepEqual(await a.getPosts(ids), await plain.getPosts(ids))
      } finally {
        await close()
      }
    })

    it('a transaction storing many posts (a long series) leaves them to the reads', async () => {
      const { a, plain, aStatements, close } = await open()
      try {
        const few = await a.transaction((tx) => tx.insertEvents!([1, 2].map((n) => newEvent({ slug: `few-${n}` }))))
        const many = await a.transaction((tx) => tx.insertEvents!(Array.from({ length: 40 }, (_, n) => newEvent({ slug: `many-${n}` }))))
        const fewIds = few.map((e) => e!.id)
        const manyIds = many.map((e) => e!.id)
        aStatements.length = 0
        assert.deepEqual(await a.getPosts(fewIds), await plain.getPosts(fewIds))
        assert.equal(aStatements.filter((sql) => sql.includes('p.title')).length, 0, 'the few came from the cache')
        assert.deepEqual(await a.getPosts(manyIds), await plain.getPosts(manyIds))
        assert.equal(aStatements.filter((sql) => sql.includes('p.title')).length, 1, 'the many were read')
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

/** `driver` with the statements of its reads noted in `into`. */
function noting(driver: SqlDriver, into: string[]): SqlDriver {
  const conn = (c: SqlConnection): SqlConnection => ({
    query: (sql, params) => (into.push(sql), c.query(sql, params)),
    run: (sql, params) => (into.push(sql), c.run(sql, params)),
  })
  return new Proxy(driver, {
    get(t, prop) {
      if (prop === 'read') return <T>(fn: (c: SqlConnection) => Promise<T>) => t.read((c) => fn(conn(c)))
      const value = Reflect.get(t, prop, t)
      return typeof value === 'function' ? value.bind(t) : value
    },
  })
}

const sqliteFile = () => join(mkdtempSync(join(tmpdir(), 'calendar-records-')), 'db.sqlite')
recordCacheSuite(
  'sqlite',
  async () => {
    const file = sqliteFile()
    const aStatements: string[] = []
    const a = createSqlStorage({ driver: noting(await openSqliteFile(file), aStatements) })
    await a.migrate()
    const b = createSqlStorage({ driver: await openSqliteFile(file) })
    const plain = createSqlStorage({ driver: await openSqliteFile(file), recordCache: false })
    return { a, b, plain, aStatements, close: async () => void (await Promise.all([b.close(), plain.close()]), await a.close()) }
  },
  describe,
)

recordCacheSuite(
  'postgres',
  async () => {
    // The owner of the schema (dropped when it closes) migrates it; `a` is its own storage on it.
    const owner = await schemaStorage()
    await owner.migrate()
    const on = (max: number) => new pg.Pool({ connectionString: url, max, options: `-c search_path=${owner.schema}` })
    const aStatements: string[] = []
    const a = createSqlStorage({ driver: noting(pgDriver(on(4)), aStatements) })
    const b = await schemaStorage(owner.schema)
    const plain = createSqlStorage({ driver: pgDriver(on(2)), recordCache: false })
    return {
      a,
      b,
      plain,
      aStatements,
      close: async () => void (await Promise.all([a.close(), b.close(), plain.close()]), await owner.close()),
    }
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
