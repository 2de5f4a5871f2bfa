/**
 * The storage contract: what every backend must do, as a test suite any runner can execute.
 * Pass your runner's `describe`/`it` (vitest, node:test, mocha) and a factory that returns an
 * empty storage; assertions use node:assert so the suite depends on no test framework.
 *
 * ```ts
 * import { describe, it } from 'vitest'
 * import { storageContract } from 'calendar-events-router/testing'
 * storageContract({ describe, it }, 'my backend', async () => createMyStorage())
 * ```
 */
import assert from 'node:assert/strict'
import type { PostPatch, Storage, StorageTx } from '../storage/types.js'
import { ID_BLOCK, ID_BLOCK_START, SlugConflictError } from '../storage/types.js'
import { eventQuery as listAll, newEvent, newOrganizer, newTerm, newVenue } from './fixtures.js'
import { geoContract } from './contract-geo.js'
import { importLinksContract } from './contract-import-links.js'
import { journalContract } from './contract-journal.js'
import { webhookContract } from './contract-webhooks.js'

export interface TestApi {
  describe: (name: string, fn: () => void) => void
  it: (name: string, fn: () => Promise<void>) => void
}

export type StorageFactory = () => Storage | Promise<Storage>

async function insert<T>(s: Storage, fn: (tx: StorageTx) => Promise<T>): Promise<T> {
  return s.transaction(fn)
}

export function storageContract(t: TestApi, name: string, make: StorageFactory): void {
  const { describe, it } = t
  const withStorage = (fn: (s: Storage) => Promise<void>) => async () => {
    const s = await make()
    try {
      await fn(s)
    } finally {
      await s.close?.()
    }
  }

  describe(`storage contract: ${name}`, () => {
    describe('posts', () => {
      it(
        'inserts with fresh ids shared by all post types and reads them back',
        withStorage(async (s) => {
          const e = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'a', title: 'A' })))
          const v = await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'a' })))
          const o = await insert(s, (tx) => tx.insertPost(newOrganizer({ slug: 'a' })))
          assert.equal(new Set([e.id, v.id, o.id]).size, 3)
          assert.equal(e.translationGroup, e.id)
          const back = await s.getPost(e.id)
          assert.equal(back?.type, 'event')
          assert.equal(back?.title, 'A')
          assert.deepEqual((await s.getPosts([v.id, o.id, 999999])).map((p) => p.type).sort(), ['organizer', 'venue'])
          assert.equal(await s.getPost(999999), null)
        }),
      )

      it(
        'round-trips every event field exactly',
        withStorage(async (s) => {
          const input = newEvent({
            slug: 'full',
            title: 'Ünïcode – “quotes” <b>html</b>',
            description: '<p>Line\nbreak</p>',
            cost: ['$10', '25'],
            currencySymbol: '$',
            currencyPosition: 'prefix',
            website: 'https://example.com/x?y=1',
            showMap: true,
            featured: true,
            sticky: true,
            allDay: true,
            image: { url: 'https://img.example.com/a.jpg', width: 10, height: 20 },
            timezone: 'America/New_York',
            status: 'draft',
            language: 'ja',
          })
          const e = await insert(s, (tx) => tx.insertPost(input))
          const back = await s.getPost(e.id)
          assert.deepEqual(back, { ...input, id: e.id, translationGroup: e.id, sequence: 0, revision: 0, seriesId: 0, series: null })
        }),
      )

      it(
        'never lets a caller change what is stored: a result is a copy or frozen',
        withStorage(async (s) => {
          const e = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'copy', categoryIds: [] })))
          const got = await s.getPost(e.id)
          assert.ok(got && got.type === 'event')
          // A frozen record refuses (TypeError in strict code); a copy takes the change alone.
          const attempt = (change: () => void) => {
            try {
              change()
            } catch (err) {
              assert.ok(err instanceof TypeError, `a refused change throws a TypeError, got ${String(err)}`)
            }
          }
          attempt(() => (got.title = 'changed'))
          attempt(() => got.categoryIds.push(99))
          const again = await s.getPost(e.id)
          assert.equal(again?.title, 'Event')
          assert.deepEqual(again && again.type === 'event' ? again.categoryIds : null, [])
        }),
      )

      it(
        'finds the events of a language that show given venues, organizers or terms (eventsShowing)',
        withStorage(async (s) => {
          const { v1, v2, o1, c1, t1, shows } = await insert(s, async (tx) => {
            const v1 = await tx.insertPost(newVenue({ slug: 'v1' }))
            const v2 = await tx.insertPost(newVenue({ slug: 'v2' }))
            const o1 = await tx.insertPost(newOrganizer({ slug: 'o1' }))
            const c1 = await tx.insertTerm(newTerm({ slug: 'c1' }))
            const t1 = await tx.insertTerm(newTerm({ slug: 't1', taxonomy: 'tag' }))
            const make = (slug: string, o: Partial<Parameters<typeof newEvent>[0]>) => tx.insertPost(newEvent({ slug, ...o }))
            const shows = {
              venue: await make('a', { venueIds: [v1.id], status: 'draft' }),
              both: await make('b', { venueIds: [v1.id], organizerIds: [o1.id], hideFromListings: true }),
              organizer: await make('c', { organizerIds: [o1.id], status: 'trash' }),
              category: await make('d', { categoryIds: [c1.id] }),
              tag: await make('e', { tagIds: [t1.id] }),
              none: await make('f', { venueIds: [v2.id] }),
              french: await make('g', { venueIds: [v1.id], categoryIds: [c1.id], language: 'fr' }),
            }
            return { v1, v2, o1, c1, t1, shows }
          })
          const found = async (language: string, shown: Parameters<Storage['eventsShowing']>[1]) =>
            (await s.eventsShowing(language, shown)).sort((a, b) => a - b)
          const ids = (...es: Array<{ id: number }>) => es.map((e) => e.id).sort((a, b) => a - b)
          assert.deepEqual(await found('en', { venueIds: [v1.id] }), ids(shows.venue, shows.both))
          assert.deepEqual(await found('en', { venueIds: [v1.id], organizerIds: [o1.id] }), ids(shows.venue, shows.both, shows.organizer))
          assert.deepEqual(await found('en', { categoryIds: [c1.id], tagIds: [t1.id] }), ids(shows.category, shows.tag))
          assert.deepEqual(await found('fr', { venueIds: [v1.id, v2.id] }), ids(shows.french))
          assert.deepEqual(await found('en', { venueIds: [v2.id], categoryIds: [] }), ids(shows.none))
          assert.deepEqual(await found('en', {}), [])
          assert.deepEqual(await found('en', { tagIds: [999999] }), [])
        }),
      )

      it(
        'keeps slugs unique per type and language',
        withStorage(async (s) => {
          await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'same' })))
          await assert.rejects(
            insert(s, (tx) => tx.insertPost(newEvent({ slug: 'same' }))),
            SlugConflictError,
          )
          await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'same', language: 'ja' })))
          await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'same' })))
          assert.equal((await s.findPostBySlug('event', 'ja', 'same'))?.language, 'ja')
          assert.equal((await s.findPostBySlug('venue', 'en', 'same'))?.type, 'venue')
          assert.equal(await s.findPostBySlug('organizer', 'en', 'same'), null)
          const other = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'other' })))
          await assert.rejects(
            insert(s, (tx) => tx.updatePost(other.id, 'event', { slug: 'same' })),
            SlugConflictError,
          )
        }),
      )

      it(
        'lists slugs of the form base and base-N only',
        withStorage(async (s) => {
          for (const slug of ['party', 'party-2', 'party-time', 'party-10', 'parts'])
            await insert(s, (tx) => tx.insertPost(newEvent({ slug })))
          assert.deepEqual((await s.slugsLike('event', 'en', 'party')).sort(), ['party', 'party-10', 'party-2'])
          assert.deepEqual(await s.slugsLike('event', 'ja', 'party'), [])
          assert.deepEqual(await s.slugsLike('venue', 'en', 'party'), [])
        }),
      )

      it(
        'treats LIKE and regex metacharacters in slugs literally',
        withStorage(async (s) => {
          await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'a_c' })))
          await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'abc' })))
          assert.deepEqual(await s.slugsLike('event', 'en', 'a_c'), ['a_c'])
          assert.deepEqual(await s.slugsLike('event', 'en', 'a%'), [])
          assert.equal((await s.findPostBySlug('event', 'en', 'a_c'))?.slug, 'a_c')
        }),
      )

      it(
        'updates only the given fields',
        withStorage(async (s) => {
          const e = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'u', title: 'Before', venueIds: [5] })))
          const u = await insert(s, (tx) => tx.updatePost(e.id, 'event', { title: 'After', featured: true }))
          assert.equal(u.title, 'After')
          assert.equal(u.featured, true)
          assert.deepEqual(u.venueIds, [5])
          assert.equal(u.slug, 'u')
        }),
      )

      it(
        "raises an event's sequence on every change a calendar shows, and on nothing else",
        withStorage(async (s) => {
          const v = await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'hall' })))
          const v2 = await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'annex' })))
          const cat = await insert(s, (tx) => tx.insertTerm(newTerm({ slug: 'music', name: 'Music' })))
          const tag = await insert(s, (tx) => tx.insertTerm(newTerm({ taxonomy: 'tag', slug: 'loud', name: 'Loud' })))
          const e = await insert(s, (tx) =>
            tx.insertPost(newEvent({ slug: 'seq', venueIds: [v.id, v2.id], categoryIds: [cat.id], tagIds: [tag.id] })),
          )
          assert.equal(e.sequence, 0)
          const sequence = async () => {
            const got = await s.getPost(e.id)
            return got && got.type === 'event' ? got.sequence : -1
          }
          const steps: Array<[string, (tx: StorageTx) => Promise<unknown>, number]> = [
            ['title', (tx) => tx.updatePost(e.id, 'event', { title: 'New' }), 1],
            ['same title', (tx) => tx.updatePost(e.id, 'event', { title: 'New' }), 1],
            ['featured', (tx) => tx.updatePost(e.id, 'event', { featured: true, sticky: true }), 1],
            ['dates', (tx) => tx.updatePost(e.id, 'event', { startDate: '2026-12-01 09:00:00', startDateUtc: '2026-12-01 09:00:00' }), 2],
            ['several at once', (tx) => tx.updatePost(e.id, 'event', { allDay: true, status: 'draft', description: 'x' }), 3],
            ['venue fields', (tx) => tx.updatePost(v.id, 'venue', { city: 'Elsewhere' }), 4],
            ['venue phone (not shown)', (tx) => tx.updatePost(v.id, 'venue', { phone: '555' }), 4],
            ['category name', (tx) => tx.updateTerm(cat.id, { name: 'Live music' }), 5],
            ['tag name (not shown)', (tx) => tx.updateTerm(tag.id, { name: 'Noisy' }), 5],
            ['tag deleted (not shown)', (tx) => tx.deleteTerm(tag.id), 5],
            ['category deleted', (tx) => tx.deleteTerm(cat.id), 6],
            ['venue unlinked', (tx) => tx.unlinkPost(v.id), 7],
            ['venue deleted for good', (tx) => tx.deletePost(v2.id), 8],
          ]
          for (const [what, change, expected] of steps) {
            await insert(s, change)
            assert.equal(await sequence(), expected, what)
          }
          // A rolled-back change leaves it alone.
          await assert.rejects(
            s.transaction(async (tx) => {
              await tx.updatePost(e.id, 'event', { title: 'Rolled back' })
              throw new Error('abort')
            }),
          )
          assert.equal(await sequence(), 8)
        }),
      )

      it(
        "raises an event's sequence when what a feed shows of its series changes: rule, dates, exceptions, detachment, changes",
        withStorage(async (s) => {
          const rule = { rrule: 'FREQ=WEEKLY;COUNT=3', rdate: [], exdate: [] }
          const head = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'series' })))
          const member = await insert(s, (tx) =>
            tx.insertPost(
              newEvent({
                slug: 'series-2',
                seriesId: head.id,
                parentId: head.id,
                series: { position: 2, original: '2027-01-17 10:00:00' },
              }),
            ),
          )
          const sequence = async (id: number) => {
            const got = await s.getPost(id)
            return got && got.type === 'event' ? got.sequence : -1
          }
          const original = '2027-01-10 10:00:00'
          const steps: Array<[string, number, PostPatch<'event'>, number]> = [
            ['becomes a series', head.id, { seriesId: head.id, series: { position: 1, original, rule } }, 1],
            ['position (not shown)', head.id, { series: { position: 2, original, rule } }, 1],
            ['through (not shown)', head.id, { series: { position: 2, original, rule: { ...rule, through: '2029-01-01 00:00:00' } } }, 1],
            ['exdate', head.id, { series: { position: 2, original, rule: { ...rule, exdate: ['2027-01-24 10:00:00'] } } }, 2],
            ['rdate', head.id, { series: { position: 2, original, rule: { ...rule, rdate: ['2027-01-11 10:00:00'] } } }, 3],
            ['rrule', head.id, { series: { position: 2, original, rule: { ...rule, rrule: 'FREQ=DAILY;COUNT=3' } } }, 4],
            ['changes', head.id, { series: { position: 2, original, rule: { ...rule, rrule: 'FREQ=DAILY;COUNT=3' }, changes: 1 } }, 5],
            ['detached', member.id, { series: { position: 2, original: '2027-01-17 10:00:00', detached: true } }, 1],
            ['original', member.id, { series: { position: 2, original: '2027-01-18 10:00:00', detached: true } }, 2],
            ['same again', member.id, { series: { position: 2, original: '2027-01-18 10:00:00', detached: true } }, 2],
            ['no longer a series', head.id, { seriesId: 0, series: null }, 6],
          ]
          for (const [what, id, patch, expected] of steps) {
            await insert(s, (tx) => tx.updatePost(id, 'event', patch))
            assert.equal(await sequence(id), expected, what)
          }
        }),
      )

      it(
        "raises a record's revision on every update, even one that changes only links, and never on reads",
        withStorage(async (s) => {
          const v = await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'rev-hall' })))
          const e = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'rev' })))
          assert.equal(e.revision, 0)
          assert.equal(v.revision, 0)
          const revision = async (id: number) => (await s.getPost(id))?.revision ?? -1
          let last = 0
          const steps: Array<[string, (tx: StorageTx) => Promise<unknown>]> = [
            ['title', (tx) => tx.updatePost(e.id, 'event', { title: 'New' })],
            ['same title again', (tx) => tx.updatePost(e.id, 'event', { title: 'New' })],
            ['links only', (tx) => tx.updatePost(e.id, 'event', { venueIds: [v.id] })],
            ['status', (tx) => tx.updatePost(e.id, 'event', { status: 'trash' })],
          ]
          for (const [what, change] of steps) {
            const returned = (await insert(s, change)) as { revision: number }
            const now = await revision(e.id)
            assert.ok(now > last, `${what}: ${now} > ${last}`)
            assert.equal(returned.revision, now, `${what}: the returned record carries the stored revision`)
            last = now
          }
          assert.equal(await revision(e.id), last, 'reads leave it alone')
          const venueBefore = await revision(v.id)
          await insert(s, (tx) => tx.updatePost(v.id, 'venue', { city: 'Elsewhere' }))
          assert.ok((await revision(v.id)) > venueBefore, 'venues too')
          // Its events show the venue's city: they may have a new revision as well.
          last = await revision(e.id)
          await assert.rejects(
            s.transaction(async (tx) => {
              await tx.updatePost(e.id, 'event', { title: 'Rolled back' })
              throw new Error('abort')
            }),
          )
          assert.equal(await revision(e.id), last, 'a rolled-back update leaves it alone')
        }),
      )

      it(
        'deletes posts for good: links, term counts, day totals, children and the slug follow',
        withStorage(async (s) => {
          const ids: Record<string, number> = {}
          await s.transaction(async (tx) => {
            ids.cat = (await tx.insertTerm(newTerm({ slug: 'c', name: 'C' }))).id
            ids.tag = (await tx.insertTerm(newTerm({ taxonomy: 'tag', slug: 't', name: 'T' }))).id
            ids.v = (await tx.insertPost(newVenue({ slug: 'hall', title: 'Hall' }))).id
            ids.o = (await tx.insertPost(newOrganizer({ slug: 'org' }))).id
            ids.o2 = (await tx.insertPost(newOrganizer({ slug: 'org2' }))).id
            const links = { venueIds: [ids.v], organizerIds: [ids.o, ids.o2], categoryIds: [ids.cat], tagIds: [ids.tag] }
            ids.parent = (await tx.insertPost(newEvent({ slug: 'parent', parentId: 0, ...links }))).id
            ids.child = (await tx.insertPost(newEvent({ slug: 'child', parentId: ids.parent, ...links }))).id
            ids.other = (await tx.insertPost(newEvent({ slug: 'other', ...links }))).id
          })
          const n = (k: string) => ids[k] as number
          const day = listAll({ startGte: '2027-01-10 00:00:00', endLte: '2027-01-10 23:59:59', limit: 1 })
          assert.equal((await s.listEvents(day)).total, 3)
          assert.equal((await s.getTerm(n('cat')))?.count, 3)

          await s.transaction((tx) => tx.deletePost(n('parent')))
          assert.equal(await s.getPost(n('parent')), null)
          const child = await s.getPost(n('child'))
          assert.equal(child?.type === 'event' ? child.parentId : null, 0)
          assert.equal((await s.getTerm(n('cat')))?.count, 2)
          assert.equal((await s.getTerm(n('tag')))?.count, 2)
          // Whole-day totals (which SQL backends may answer from counters) agree with the rows.
          assert.equal((await s.listEvents(day)).total, 2)
          assert.equal((await s.listEvents({ ...day, startGt: '' })).total, 2)
          assert.deepEqual(
            (await s.listEvents(listAll())).items.map((e) => e.id),
            [n('child'), n('other')],
          )

          await s.transaction((tx) => tx.deletePost(n('o')))
          await s.transaction((tx) => tx.deletePost(n('v')))
          for (const id of [n('child'), n('other')]) {
            const e = await s.getPost(id)
            assert.deepEqual(e?.type === 'event' ? [e.venueIds, e.organizerIds] : null, [[], [n('o2')]])
          }
          assert.equal((await s.listLinked('organizer', { language: 'en', statuses: ['publish'], offset: 0, limit: 10 })).total, 1)
          // The slug is free again, and unknown ids are ignored.
          const again = await s.transaction((tx) => tx.insertPost(newEvent({ slug: 'parent' })))
          assert.equal(again.slug, 'parent')
          await s.transaction((tx) => tx.deletePost(999999))
          // A rolled-back delete leaves everything in place.
          await assert.rejects(
            s.transaction(async (tx) => {
              await tx.deletePost(n('other'))
              throw new Error('abort')
            }),
            /abort/,
          )
          assert.equal((await s.getPost(n('other')))?.id, n('other'))
          assert.equal((await s.getTerm(n('cat')))?.count, 2)
        }),
      )

      it(
        'finds trashed posts last modified before a time, lowest id first',
        withStorage(async (s) => {
          const ids: number[] = []
          await s.transaction(async (tx) => {
            for (const [slug, status, modifiedUtc] of [
              ['old', 'trash', '2026-01-01 00:00:00'],
              ['live', 'publish', '2026-01-01 00:00:00'],
              ['recent', 'trash', '2026-06-01 00:00:00'],
              ['older', 'trash', '2025-01-01 00:00:00'],
            ] as const) {
              ids.push((await tx.insertPost(newEvent({ slug, status, modifiedUtc }))).id)
            }
            ids.push((await tx.insertPost(newVenue({ slug: 'v', status: 'trash', modifiedUtc: '2025-06-01 00:00:00' }))).id)
          })
          assert.deepEqual(await s.trashedPosts('2026-03-01 00:00:00', 10), [ids[0], ids[3], ids[4]])
          assert.deepEqual(await s.trashedPosts('2026-03-01 00:00:00', 2), [ids[0], ids[3]])
          assert.deepEqual(await s.trashedPosts('2025-01-01 00:00:00', 10), [])
        }),
      )
    })

    describe('series', () => {
      it(
        "lists a series' members whatever their status, language or visibility, by start then id, and no other event (seriesMembers)",
        withStorage(async (s) => {
          const ids = await insert(s, async (tx) => {
            const rule = { rrule: 'FREQ=WEEKLY;COUNT=4', rdate: [], exdate: [] }
            const head = await tx.insertPost(newEvent({ slug: 'head', startDate: '2027-01-10 10:00:00' }))
            await tx.updatePost(head.id, 'event', {
              seriesId: head.id,
              series: { position: 1, original: '2027-01-10 10:00:00', rule },
            })
            const member = (slug: string, startDate: string, position: number, o: Partial<Parameters<typeof newEvent>[0]> = {}) =>
              tx.insertPost(newEvent({ slug, startDate, seriesId: head.id, series: { position, original: startDate }, ...o }))
            const late = await member('late', '2027-01-31 10:00:00', 4, { status: 'trash' })
            const hidden = await member('hidden', '2027-01-17 10:00:00', 2, { hideFromListings: true, status: 'draft' })
            // Same start as `hidden`: the lower id first.
            const twin = await member('twin', '2027-01-17 10:00:00', 3, { language: 'ja' })
            await tx.insertPost(newEvent({ slug: 'alone', startDate: '2027-01-12 10:00:00' }))
            return { head: head.id, order: [head.id, hidden.id, twin.id, late.id] }
          })
          assert.deepEqual(
            (await s.seriesMembers(ids.head)).map((e) => e.id),
            ids.order,
          )
          assert.deepEqual(await s.seriesMembers(999_999), [])
        }),
      )
    })

    describe('reserved ids (optional: reserveIds with reservedBy)', () => {
      it(
        'hands out distinct blocks of ID_BLOCK ids from ID_BLOCK_START, stores a post under one, and keeps its own ids below',
        withStorage(async (s) => {
          const probe = await insert(s, (tx) => Promise.resolve(tx.reserveIds ? 'yes' : 'no'))
          if (probe === 'no' || !s.reservedBy) return
          const head = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'head' })))
          const [a, b] = await insert(s, async (tx) => [await tx.reserveIds!(head.id), await tx.reserveIds!(head.id + 1)])
          assert.ok(a >= ID_BLOCK_START && b >= ID_BLOCK_START && Math.abs(b - a) >= ID_BLOCK)
          assert.equal((a - ID_BLOCK_START) % ID_BLOCK, 0)
          assert.equal(await s.reservedBy(a), head.id)
          assert.equal(await s.reservedBy(a + ID_BLOCK - 1), head.id)
          assert.equal(await s.reservedBy(b + 5), head.id + 1)
          assert.equal(await s.reservedBy(head.id), null)
          const chosen = await insert(s, (tx) => tx.insertPost({ ...newEvent({ slug: 'chosen' }), id: a + 3 }))
          assert.equal(chosen.id, a + 3)
          assert.equal(chosen.translationGroup, a + 3)
          assert.equal((await s.getPost(a + 3))?.title, 'Event')
          const next = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'next' })))
          assert.ok(next.id > head.id && next.id < ID_BLOCK_START, `the storage's own ids stay below the blocks (got ${next.id})`)
        }),
      )
    })

    describe('transactions', () => {
      it(
        'roll back every write when the function throws',
        withStorage(async (s) => {
          const kept = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'kept' })))
          let insertedId = 0
          await assert.rejects(
            s.transaction(async (tx) => {
              insertedId = (await tx.insertPost(newEvent({ slug: 'lost' }))).id
              await tx.insertTerm(newTerm({ slug: 'lost-term' }))
              await tx.updatePost(kept.id, 'event', { title: 'changed' })
              throw new Error('boom')
            }),
            /boom/,
          )
          assert.equal(await s.getPost(insertedId), null)
          assert.equal(await s.findPostBySlug('event', 'en', 'lost'), null)
          assert.equal(await s.findTerm('category', 'en', { slug: 'lost-term' }), null)
          assert.equal((await s.getPost(kept.id))?.title, 'Event')
        }),
      )

      it(
        'see their own writes, and readers outside never see uncommitted ones',
        withStorage(async (s) => {
          let release!: () => void
          const gate = new Promise<void>((r) => (release = r))
          let seenInside: unknown = null
          const tx = s.transaction(async (t) => {
            const e = await t.insertPost(newEvent({ slug: 'pending-write' }))
            seenInside = (await t.getPost(e.id))?.slug
            await gate
            return e
          })
          // Let the transaction reach its gate before looking from outside (a first use also
          // migrates, which takes a while on a busy machine).
          for (let i = 0; i < 1000 && seenInside === null; i++) await new Promise((r) => setTimeout(r, 5))
          assert.equal(seenInside, 'pending-write')
          assert.equal(await s.findPostBySlug('event', 'en', 'pending-write'), null)
          release()
          const e = await tx
          assert.equal((await s.getPost(e.id))?.slug, 'pending-write')
        }),
      )

      it(
        'serialise concurrent writers: no lost update and unique slugs under contention',
        withStorage(async (s) => {
          const results = await Promise.all(
            Array.from({ length: 20 }, () =>
              s.transaction(async (tx) => {
                for (let n = 1; ; n++) {
                  const slug = n === 1 ? 'same-title' : `same-title-${n}`
                  const taken = await tx.slugsLike('event', 'en', 'same-title')
                  if (taken.includes(slug)) continue
                  try {
                    return await tx.insertPost(newEvent({ slug }))
                  } catch (e) {
                    if (!(e instanceof SlugConflictError)) throw e
                  }
                }
              }),
            ),
          )
          assert.equal(new Set(results.map((r) => r.slug)).size, 20)
          assert.equal(new Set(results.map((r) => r.id)).size, 20)
          const counter = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'counter', cost: [] })))
          await Promise.all(
            Array.from({ length: 10 }, () =>
              s.transaction(async (tx) => {
                const cur = await tx.getPost(counter.id)
                assert.ok(cur && cur.type === 'event')
                await tx.updatePost(counter.id, 'event', { cost: [...cur.cost, 'x'] })
              }),
            ),
          )
          const final = await s.getPost(counter.id)
          assert.equal(final && final.type === 'event' ? final.cost.length : -1, 10)
        }),
      )
    })

    describe('event lists', () => {
      const seed = async (s: Storage) => {
        const ids: Record<string, number> = {}
        await s.transaction(async (tx) => {
          const cat = await tx.insertTerm(newTerm({ slug: 'music', name: 'Music' }))
          const child = await tx.insertTerm(newTerm({ slug: 'jazz', name: 'Jazz', parent: cat.id }))
          const tag = await tx.insertTerm(newTerm({ taxonomy: 'tag', slug: 'outdoor', name: 'Outdoor' }))
          const venue = await tx.insertPost(newVenue({ slug: 'hall' }))
          const org = await tx.insertPost(newOrganizer({ slug: 'acme' }))
          Object.assign(ids, { cat: cat.id, jazz: child.id, tag: tag.id, venue: venue.id, org: org.id })
          const ev = (slug: string, start: string, end: string, o: Parameters<typeof newEvent>[0] = {}) =>
            tx.insertPost(newEvent({ slug, title: slug, startDate: start, endDate: end, startDateUtc: start, endDateUtc: end, ...o }))
          ids.past = (await ev('past', '2026-10-01 10:00:00', '2026-10-01 11:00:00')).id
          ids.b = (await ev('b', '2027-01-02 09:00:00', '2027-01-02 10:00:00', { categoryIds: [child.id], venueIds: [venue.id] })).id
          ids.a = (
            await ev('a', '2027-01-01 09:00:00', '2027-01-03 10:00:00', { tagIds: [tag.id], organizerIds: [org.id], featured: true })
          ).id
          ids.a2 = (
            await ev('a2', '2027-01-01 09:00:00', '2027-01-01 10:00:00', { description: 'Find FOO here', categoryIds: [cat.id] })
          ).id
          ids.draft = (await ev('draft', '2027-01-05 09:00:00', '2027-01-05 10:00:00', { status: 'draft' })).id
          ids.hidden = (await ev('hidden', '2027-01-05 09:00:00', '2027-01-05 10:00:00', { hideFromListings: true })).id
          ids.ja = (await ev('ja', '2027-01-05 09:00:00', '2027-01-05 10:00:00', { language: 'ja' })).id
          ids.child = (await ev('child', '2027-01-06 09:00:00', '2027-01-06 10:00:00', { parentId: 0 })).id
          await tx.updatePost(ids.child, 'event', { parentId: ids.a })
        })
        return ids
      }
      const ids = (r: { items: Array<{ id: number }> }) => r.items.map((e) => e.id)

      it(
        'order by start date then id, scoped to language, status, and listing visibility',
        withStorage(async (s) => {
          const i = await seed(s)
          const r = await s.listEvents(listAll())
          assert.deepEqual(ids(r), [i.past, i.a, i.a2, i.b, i.child])
          assert.equal(r.total, 5)
          assert.deepEqual(ids(await s.listEvents(listAll({ statuses: ['draft'] }))), [i.draft])
          assert.deepEqual(ids(await s.listEvents(listAll({ language: 'ja' }))), [i.ja])
        }),
      )

      it(
        "show unpublished records only of their author when asked (a contributor sees own drafts, not others')",
        withStorage(async (s) => {
          const ids = await s.transaction(async (tx) => ({
            mineDraft: (await tx.insertPost(newEvent({ slug: 'mine', status: 'draft', author: 7 }))).id,
            theirsDraft: (await tx.insertPost(newEvent({ slug: 'theirs', status: 'draft', author: 8 }))).id,
            published: (await tx.insertPost(newEvent({ slug: 'pub', status: 'publish', author: 8 }))).id,
            mineVenue: (await tx.insertPost(newVenue({ slug: 'mv', status: 'pending', author: 7 }))).id,
            theirVenue: (await tx.insertPost(newVenue({ slug: 'tv', status: 'pending', author: 8 }))).id,
          }))
          const all = ['publish', 'draft', 'pending'] as const
          const events = await s.listEvents(listAll({ statuses: all, unpublishedAuthor: 7 }))
          assert.deepEqual(events.items.map((e) => e.id).sort(), [ids.mineDraft, ids.published].sort())
          assert.equal(events.total, 2)
          assert.equal((await s.listEvents(listAll({ statuses: all }))).total, 3)
          const venues = await s.listLinked('venue', { language: 'en', statuses: all, unpublishedAuthor: 7, offset: 0, limit: 10 })
          assert.deepEqual(
            venues.items.map((v) => v.id),
            [ids.mineVenue],
          )
        }),
      )

      it(
        'page with offset and limit while total counts every match',
        withStorage(async (s) => {
          const i = await seed(s)
          const r = await s.listEvents(listAll({ offset: 1, limit: 2 }))
          assert.deepEqual(ids(r), [i.a, i.a2])
          assert.equal(r.total, 5)
          const beyond = await s.listEvents(listAll({ offset: 50, limit: 2 }))
          assert.deepEqual(ids(beyond), [])
          assert.equal(beyond.total, 5)
        }),
      )

      it(
        'uncounted: the same page, and a total of at least the offset plus its items',
        withStorage(async (s) => {
          const i = await seed(s)
          const r = await s.listEvents(listAll({ offset: 1, limit: 2, uncounted: true }))
          assert.deepEqual(ids(r), [i.a, i.a2])
          assert.ok(r.total >= 3 && r.total <= 5, `total ${r.total}`)
          const ordered = await s.listEvents(listAll({ orderBy: 'id', include: [i.b as number, i.a as number], uncounted: true }))
          assert.deepEqual(
            ids(ordered),
            [i.a, i.b].sort((x, y) => (x as number) - (y as number)),
          )
        }),
      )

      it(
        'apply each date bound with its own comparison',
        withStorage(async (s) => {
          const i = await seed(s)
          assert.deepEqual(ids(await s.listEvents(listAll({ startGte: '2027-01-01 09:00:00' }))), [i.a, i.a2, i.b, i.child])
          assert.deepEqual(ids(await s.listEvents(listAll({ startGt: '2027-01-01 09:00:00' }))), [i.b, i.child])
          assert.deepEqual(ids(await s.listEvents(listAll({ startLt: '2027-01-01 09:00:00' }))), [i.past])
          assert.deepEqual(ids(await s.listEvents(listAll({ endLte: '2027-01-02 10:00:00' }))), [i.past, i.a2, i.b])
          assert.deepEqual(ids(await s.listEvents(listAll({ endLt: '2027-01-02 10:00:00' }))), [i.past, i.a2])
          assert.deepEqual(ids(await s.listEvents(listAll({ endGt: '2027-01-02 10:00:00' }))), [i.a, i.child])
        }),
      )

      it(
        'filter by search words, terms, venue, organizer, featured, include and parent',
        withStorage(async (s) => {
          const i = await seed(s)
          assert.deepEqual(ids(await s.listEvents(listAll({ search: 'foo' }))), [i.a2])
          assert.deepEqual(ids(await s.listEvents(listAll({ search: 'find here' }))), [i.a2])
          assert.deepEqual(ids(await s.listEvents(listAll({ search: 'find nothing' }))), [])
          assert.deepEqual(ids(await s.listEvents(listAll({ search: '%' }))), [])
          assert.deepEqual(ids(await s.listEvents(listAll({ categoryIds: [i.cat as number, i.jazz as number] }))), [i.a2, i.b])
          assert.deepEqual(ids(await s.listEvents(listAll({ categoryIds: [i.jazz as number] }))), [i.b])
          assert.deepEqual(ids(await s.listEvents(listAll({ tagIds: [i.tag as number] }))), [i.a])
          assert.deepEqual(ids(await s.listEvents(listAll({ venueIds: [i.venue as number] }))), [i.b])
          assert.deepEqual(ids(await s.listEvents(listAll({ organizerIds: [i.org as number, 424242] }))), [i.a])
          assert.deepEqual(ids(await s.listEvents(listAll({ featured: true }))), [i.a])
          assert.equal((await s.listEvents(listAll({ featured: false }))).total, 4)
          assert.deepEqual(ids(await s.listEvents(listAll({ parentId: i.a as number }))), [i.child])
          assert.deepEqual(ids(await s.listEvents(listAll({ include: [i.b as number, i.past as number], orderBy: 'date' }))), [i.past, i.b])
          assert.deepEqual(
            ids(await s.listEvents(listAll({ categoryIds: [i.cat as number, i.jazz as number], venueIds: [i.venue as number] }))),
            [i.b],
          )
        }),
      )
    })

    describe('venues and organizers', () => {
      it(
        'list newest first with search fragments, event links and upcoming filters',
        withStorage(async (s) => {
          const ids: Record<string, number> = {}
          await s.transaction(async (tx) => {
            ids.v1 = (
              await tx.insertPost(
                newVenue({ slug: 'v1', title: 'First', address: '100, Avenue du Temple', dateUtc: '2026-01-01 10:00:00' }),
              )
            ).id
            ids.v2 = (
              await tx.insertPost(newVenue({ slug: 'v2', title: 'Second', city: 'Springfield', dateUtc: '2026-01-02 10:00:00' }))
            ).id
            ids.v3 = (await tx.insertPost(newVenue({ slug: 'v3', title: 'Draft', status: 'draft', dateUtc: '2026-01-03 10:00:00' }))).id
            ids.o1 = (await tx.insertPost(newOrganizer({ slug: 'o1', email: 'one@common.com' }))).id
            ids.o2 = (await tx.insertPost(newOrganizer({ slug: 'o2', email: 'two@common.com', website: 'http://one.com' }))).id
            ids.e1 = (
              await tx.insertPost(newEvent({ slug: 'e1', venueIds: [ids.v1], organizerIds: [ids.o1], startDateUtc: '2030-01-01 10:00:00' }))
            ).id
            ids.e2 = (
              await tx.insertPost(newEvent({ slug: 'e2', status: 'draft', venueIds: [ids.v2], startDateUtc: '2030-01-01 10:00:00' }))
            ).id
          })
          const q = { language: 'en', statuses: ['publish'] as const, offset: 0, limit: 100 }
          const venueIds = async (o: object) => (await s.listLinked('venue', { ...q, ...o })).items.map((v) => v.id)
          assert.deepEqual(await venueIds({}), [ids.v2, ids.v1])
          assert.deepEqual(await venueIds({ statuses: ['publish', 'draft'] }), [ids.v3, ids.v2, ids.v1])
          assert.deepEqual(await venueIds({ searchFragments: ['temple', 'avenue'] }), [ids.v1])
          assert.deepEqual(await venueIds({ searchFragments: ['temple', 'springfield'] }), [])
          assert.deepEqual(await venueIds({ eventId: ids.e1 }), [ids.v1])
          assert.deepEqual(await venueIds({ hasEvents: true }), [ids.v1])
          assert.deepEqual(await venueIds({ hasEvents: false }), [ids.v2])
          assert.deepEqual(await venueIds({ upcomingAfterUtc: '2029-01-01 00:00:00', upcomingStatuses: ['publish'] }), [ids.v1])
          assert.deepEqual(await venueIds({ upcomingAfterUtc: '2031-01-01 00:00:00', upcomingStatuses: ['publish'] }), [])
          const orgs = await s.listLinked('organizer', { ...q, searchFragments: ['common', 'com'] })
          assert.deepEqual(orgs.items.map((o) => o.id).sort(), [ids.o1, ids.o2].sort())
          assert.equal(orgs.total, 2)
          assert.deepEqual(
            (await s.listLinked('organizer', { ...q, searchFragments: ['http', 'one', 'com'] })).items.map((o) => o.id),
            [ids.o2],
          )
          assert.equal((await s.listLinked('venue', { ...q, offset: 1, limit: 1 })).total, 2)
        }),
      )

      it(
        'find an exact duplicate and unlink a trashed record from events',
        withStorage(async (s) => {
          const v = await insert(s, (tx) => tx.insertPost(newVenue({ slug: 'dup', title: 'Hall', city: 'Paris' })))
          const e = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'e', venueIds: [v.id], organizerIds: [] })))
          assert.equal((await s.findLinkedDuplicate('venue', 'en', { title: 'Hall', city: 'Paris', address: '' }))?.id, v.id)
          assert.equal(await s.findLinkedDuplicate('venue', 'en', { title: 'Hall', city: 'Lyon' }), null)
          assert.equal(await s.findLinkedDuplicate('venue', 'ja', { title: 'Hall' }), null)
          await s.transaction(async (tx) => {
            await tx.updatePost(v.id, 'venue', { status: 'trash' })
            await tx.unlinkPost(v.id)
          })
          const after = await s.getPost(e.id)
          assert.deepEqual(after && after.type === 'event' ? after.venueIds : null, [])
        }),
      )

      it(
        'group translations across languages',
        withStorage(async (s) => {
          const en = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'x' })))
          const ja = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'x', language: 'ja', translationGroup: en.id })))
          const map = await s.getTranslations([en.translationGroup], 'posts')
          assert.deepEqual(map.get(en.id), { en: en.id, ja: ja.id })
        }),
      )

      it(
        "keeps posts' and terms' translation groups apart, though their numbers may meet",
        withStorage(async (s) => {
          // Posts and terms are numbered separately: make a term group carry a post group's number.
          const event = await insert(s, (tx) => tx.insertPost(newEvent({ slug: 'apart' })))
          let term = await insert(s, (tx) => tx.insertTerm(newTerm({ slug: 'apart-0', language: 'ja' })))
          for (let i = 1; term.translationGroup < event.translationGroup; i++) {
            term = await insert(s, (tx) => tx.insertTerm(newTerm({ slug: `apart-${i}`, language: 'ja' })))
          }
          const group = event.translationGroup
          const sameNumber = term.translationGroup === group
          const posts = await s.getTranslations([group], 'posts')
          const terms = await s.getTranslations([term.translationGroup], 'terms')
          assert.deepEqual(posts.get(group), { en: event.id }, 'no term in a post group')
          assert.deepEqual(terms.get(term.translationGroup), { ja: term.id }, 'no post in a term group')
          assert.ok(sameNumber || term.translationGroup > group, 'the numbers met, or terms are numbered past posts')
        }),
      )
    })

    describe('terms', () => {
      it(
        'reads several terms at once with their live counts; unknown ids are left out (getTerms)',
        withStorage(async (s) => {
          const { cat, tag } = await insert(s, async (tx) => {
            const cat = await tx.insertTerm(newTerm({ slug: 'cat' }))
            const tag = await tx.insertTerm(newTerm({ slug: 'tag', taxonomy: 'tag' }))
            await tx.insertPost(newEvent({ slug: 'a', categoryIds: [cat.id], tagIds: [tag.id] }))
            await tx.insertPost(newEvent({ slug: 'b', categoryIds: [cat.id], status: 'draft' }))
            return { cat, tag }
          })
          const got = (await s.getTerms([tag.id, 999_999, cat.id])).sort((a, b) => a.id - b.id)
          assert.deepEqual(
            got.map((t) => [t.id, t.taxonomy, t.slug, t.count]),
            [
              [cat.id, 'category', 'cat', 1],
              [tag.id, 'tag', 'tag', 1],
            ].sort((a, b) => (a[0] as number) - (b[0] as number)),
          )
          assert.deepEqual(await s.getTerms([]), [])
        }),
      )

      it(
        'count published events of the term, and list with filters and order',
        withStorage(async (s) => {
          const t: Record<string, number> = {}
          await s.transaction(async (tx) => {
            t.b = (await tx.insertTerm(newTerm({ slug: 'b', name: 'Beta' }))).id
            t.a = (await tx.insertTerm(newTerm({ slug: 'a', name: 'alpha' }))).id
            t.c = (await tx.insertTerm(newTerm({ slug: 'c-foo', name: 'Gamma', parent: t.a }))).id
            t.tag = (await tx.insertTerm(newTerm({ taxonomy: 'tag', slug: 'a', name: 'alpha' }))).id
            await tx.insertPost(newEvent({ slug: 'p1', categoryIds: [t.a, t.c] }))
            await tx.insertPost(newEvent({ slug: 'p2', categoryIds: [t.a] }))
            await tx.insertPost(newEvent({ slug: 'd', status: 'draft', categoryIds: [t.b] }))
          })
          assert.equal((await s.getTerm(t.a as number))?.count, 2)
          assert.equal((await s.getTerm(t.b as number))?.count, 0)
          const base = {
            taxonomy: 'category' as const,
            language: 'en',
            hideEmpty: false,
            orderBy: 'name' as const,
            order: 'asc' as const,
            offset: 0,
            limit: 100,
          }
          const names = async (o: object) => (await s.listTerms({ ...base, ...o })).items.map((x) => x.name)
          assert.deepEqual(await names({}), ['alpha', 'Beta', 'Gamma'])
          assert.deepEqual(await names({ order: 'desc' }), ['Gamma', 'Beta', 'alpha'])
          assert.deepEqual(await names({ hideEmpty: true }), ['alpha', 'Gamma'])
          assert.deepEqual(await names({ search: 'foo' }), ['Gamma'])
          assert.deepEqual(await names({ search: 'ALP' }), ['alpha'])
          assert.deepEqual(await names({ parent: t.a }), ['Gamma'])
          assert.deepEqual(await names({ include: [t.b, t.c] }), ['Beta', 'Gamma'])
          assert.deepEqual(await names({ exclude: [t.b] }), ['alpha', 'Gamma'])
          assert.deepEqual(await names({ slug: 'a' }), ['alpha'])
          assert.deepEqual(await names({ orderBy: 'count', order: 'desc' }), ['alpha', 'Gamma', 'Beta'])
          assert.deepEqual(await names({ orderBy: 'id' }), ['Beta', 'alpha', 'Gamma'])
          const paged = await s.listTerms({ ...base, offset: 1, limit: 1 })
          assert.deepEqual([paged.items.map((x) => x.name), paged.total], [['Beta'], 3])
          assert.deepEqual(
            (await s.listTerms({ ...base, taxonomy: 'tag' })).items.map((x) => x.id),
            [t.tag],
          )
        }),
      )

      it(
        'find by slug or case-insensitive name, list descendants, delete with re-parenting and unlinking',
        withStorage(async (s) => {
          const t: Record<string, number> = {}
          await s.transaction(async (tx) => {
            t.root = (await tx.insertTerm(newTerm({ slug: 'root', name: 'Root' }))).id
            t.mid = (await tx.insertTerm(newTerm({ slug: 'mid', name: 'Mid', parent: t.root }))).id
            t.leaf = (await tx.insertTerm(newTerm({ slug: 'leaf', name: 'Leaf', parent: t.mid }))).id
            t.e = (await tx.insertPost(newEvent({ slug: 'e', categoryIds: [t.mid, t.leaf] }))).id
          })
          assert.equal((await s.findTerm('category', 'en', { slug: 'mid' }))?.id, t.mid)
          assert.equal((await s.findTerm('category', 'en', { name: 'mID' }))?.id, t.mid)
          assert.equal(await s.findTerm('category', 'ja', { name: 'Mid' }), null)
          assert.equal(await s.findTerm('tag', 'en', { slug: 'mid' }), null)
          assert.deepEqual((await s.termDescendants([t.root as number])).sort(), [t.mid, t.leaf].sort())
          await s.transaction((tx) => tx.deleteTerm(t.mid as number))
          assert.equal(await s.getTerm(t.mid as number), null)
          assert.equal((await s.getTerm(t.leaf as number))?.parent, t.root)
          const e = await s.getPost(t.e as number)
          assert.deepEqual(e && e.type === 'event' ? e.categoryIds : null, [t.leaf])
          await assert.rejects(
            s.transaction((tx) => tx.insertTerm(newTerm({ slug: 'root', name: 'Other' }))),
            SlugConflictError,
          )
          const renamed = await s.transaction((tx) => tx.updateTerm(t.leaf as number, { name: 'Leaf 2' }))
          assert.equal(renamed.slug, 'leaf')
          assert.equal(renamed.name, 'Leaf 2')
        }),
      )
    })
    describe('geolocation', () => geoContract(it, withStorage))
    describe('change journal', () => journalContract(it, withStorage))
    describe('webhook store', () => webhookContract(it, withStorage))
    describe('import links (optional: importLinks, with putImportLink and importLinksOf)', () => importLinksContract(it, withStorage))
  })
}
