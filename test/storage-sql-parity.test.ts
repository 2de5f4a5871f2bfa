/**
 * Differential test: the same pseudo-random data written to the memory backend (the reference
 * semantics) and to the SQL backends must answer a battery of queries identically, order and
 * ties included. It catches what example-based tests miss: a drift of the reference (a filter or
 * count rule changing in memory.ts) that the SQL side did not follow.
 */
import assert from 'node:assert/strict'
import pg from 'pg'
import { afterAll, beforeAll, describe, inject, it } from 'vitest'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile, pgDriver } from '../src/storage/sql/index.js'
import type { EventListQuery, LinkedListQuery, PostPatch, PostStatus, Storage, TermListQuery, TermOrderBy } from '../src/storage/types.js'
import { newEvent, newOrganizer, newTerm, newVenue } from '../src/testing/index.js'

/** mulberry32: a small deterministic PRNG, so every backend gets the same data. */
function prng(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['Jazz', 'jazz', 'ÜBER', 'über', 'Night', 'a_c', '50%', 'Straße', 'Ωmega', 'east', 'East-Side', 'café', 'İstanbul', 'x']
const LANGS = ['en', 'ja']
const STATUSES: PostStatus[] = ['publish', 'publish', 'publish', 'draft', 'pending', 'private', 'future', 'trash']

async function seed(s: Storage, seedValue: number) {
  const r = prng(seedValue)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  const some = <T>(xs: readonly T[], max: number): T[] => Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(xs))
  const text = (n: number) => some(WORDS, n).join(' ')
  // Few distinct dates, so ordering ties are common and the id tie-break is exercised.
  const date = () => `2027-0${1 + Math.floor(r() * 3)}-1${Math.floor(r() * 3)} 1${Math.floor(r() * 2)}:00:00`
  const terms: number[] = []
  const venues: number[] = []
  const organizers: number[] = []
  for (let batch = 0; batch < 4; batch++) {
    await s.transaction(async (tx) => {
      for (let i = 0; i < 6; i++) {
        const t = await tx.insertTerm(
          newTerm({
            taxonomy: r() < 0.6 ? 'category' : 'tag',
            language: pick(LANGS),
            name: `${text(2)} ${batch}-${i}`,
            slug: `t-${batch}-${i}`,
            description: pick(['', 'b', 'B', 'a']),
            parent: terms.length && r() < 0.5 ? pick(terms) : 0,
          }),
        )
        terms.push(t.id)
      }
      for (let i = 0; i < 8; i++) {
        const common = { language: pick(LANGS), status: pick(STATUSES), title: text(3), description: text(2), dateUtc: date() }
        if (r() < 0.5) {
          venues.push(
            (
              await tx.insertPost(
                newVenue({ ...common, slug: `v-${batch}-${i}`, city: text(1), address: text(2), zip: pick(['', '75001', 'AB 1']) }),
              )
            ).id,
          )
        } else {
          organizers.push(
            (
              await tx.insertPost(
                newOrganizer({
                  ...common,
                  slug: `o-${batch}-${i}`,
                  email: `${pick(WORDS)}@Example.com`,
                  website: pick(['', 'http://x.com']),
                }),
              )
            ).id,
          )
        }
      }
      for (let i = 0; i < 30; i++) {
        const start = date()
        const translationGroup = r() < 0.2 && terms.length ? 1 + Math.floor(r() * 20) : undefined
        await tx.insertPost(
          newEvent({
            language: pick(LANGS),
            status: pick(STATUSES),
            slug: `e-${batch}-${i}`,
            title: text(3),
            description: text(4),
            excerpt: text(1),
            startDate: start,
            endDate: start < '2027-02' ? date() : start,
            startDateUtc: start,
            endDateUtc: start,
            dateUtc: date(),
            featured: r() < 0.2,
            hideFromListings: r() < 0.1,
            parentId: r() < 0.3 ? 5 + Math.floor(r() * 3) : 0,
            categoryIds: some(terms, 2),
            tagIds: some(terms, 2),
            venueIds: some(venues, 1),
            organizerIds: some(organizers, 2),
            ...(translationGroup ? { translationGroup } : {}),
          }),
        )
      }
    })
  }
  // Some updates, unlinks and term deletions.
  await s.transaction(async (tx) => {
    for (let i = 0; i < 10; i++) {
      const id = 30 + i * 7
      const p = await tx.getPost(id)
      if (p?.type === 'event') await tx.updatePost(id, 'event', { title: text(2), categoryIds: some(terms, 3), status: pick(STATUSES) })
    }
    if (venues[0]) await tx.unlinkPost(venues[0])
    await tx.deleteTerm(terms[3]!)
    await tx.deleteTerm(terms[10]!)
    await tx.updateTerm(terms[5]!, { name: 'Renamed Ünï', parent: terms[0]! })
    // Language moves change which events a term counts (SQL keeps the counts on writes).
    const moved = await tx.getTerm(terms[7]!)
    if (moved) await tx.updateTerm(moved.id, { language: moved.language === 'en' ? 'ja' : 'en' })
    const e = await tx.getPost(33)
    if (e?.type === 'event')
      await tx.updatePost(33, 'event', {
        language: e.language === 'en' ? 'ja' : 'en',
        status: 'publish',
        tagIds: [...e.tagIds, terms[0]!, terms[0]!],
      })
    for (let id = 40; id < 80; id++) {
      const p = await tx.getPost(id)
      if (p?.type !== 'event' || p.status !== 'publish' || !p.categoryIds.length) continue
      await tx.updatePost(id, 'event', { language: p.language === 'en' ? 'ja' : 'en' })
      break
    }
  })
  // Moves that change which day-counter row an event is in (SQL keeps event_day_counts on
  // writes): new start/end dates (also exactly on the day boundaries the whole-day windows
  // compare with), status changes including trash, language moves, hide_from_listings toggles,
  // several at once, and writes of an unchanged value.
  const day = () => `2027-0${1 + Math.floor(r() * 3)}-1${Math.floor(r() * 3)}`
  const moveDate = () => `${day()} ${pick(['00:00:00', '10:00:00', '23:59:59', '23:59:58', '00:00:01'])}`
  for (let round = 0; round < 3; round++) {
    await s.transaction(async (tx) => {
      for (let i = 0; i < 25; i++) {
        const id = 1 + Math.floor(r() * 160)
        const p = await tx.getPost(id)
        if (p?.type !== 'event') continue
        const patch: PostPatch<'event'> = {}
        if (r() < 0.4) patch.startDate = moveDate()
        if (r() < 0.4) patch.endDate = moveDate()
        if (r() < 0.3) patch.status = pick([...STATUSES, 'trash'])
        if (r() < 0.2) patch.language = p.language === 'en' ? 'ja' : 'en'
        if (r() < 0.2) patch.hideFromListings = !p.hideFromListings
        if (r() < 0.1) Object.assign(patch, { status: p.status, startDate: p.startDate, hideFromListings: p.hideFromListings })
        await tx.updatePost(id, 'event', patch)
      }
      // New events straight on the boundaries.
      for (let i = 0; i < 5; i++) {
        await tx.insertPost(
          newEvent({
            language: pick(LANGS),
            status: pick(STATUSES),
            slug: `b-${round}-${i}`,
            startDate: `${day()} 00:00:00`,
            endDate: `${day()} 23:59:59`,
            hideFromListings: r() < 0.2,
          }),
        )
      }
    })
  }
  return { terms: terms.filter((t) => t !== terms[3] && t !== terms[10]), venues, organizers }
}

async function answers(s: Storage, ids: Awaited<ReturnType<typeof seed>>) {
  const out: Record<string, unknown> = {}
  const ev = (o: Partial<EventListQuery>): EventListQuery => ({
    language: 'en',
    statuses: ['publish'],
    orderBy: 'start',
    offset: 0,
    limit: 500,
    ...o,
  })
  const eventQueries: Record<string, Partial<EventListQuery>> = {
    base: {},
    ja: { language: 'ja' },
    allStatuses: { statuses: ['publish', 'draft', 'pending', 'private', 'future'] },
    page: { offset: 7, limit: 5 },
    window: { startGte: '2027-01-11 10:00:00', endLte: '2027-03-10 11:00:00' },
    strict: { startGt: '2027-01-11 10:00:00', startLt: '2027-03-12 11:00:00', endGt: '2027-01-10 10:00:00', endLt: '2027-03-12 11:00:00' },
    searchJazz: { search: 'JAZZ' },
    searchTwo: { search: 'über  night' },
    searchUnicode: { search: 'straße' },
    searchMeta: { search: 'a_c 50%' },
    searchPercent: { search: '%' },
    featured: { featured: true },
    notFeatured: { featured: false },
    parent: { parentId: 6 },
    include: { include: [5, 3, 77, 9999, 12], orderBy: 'date' },
    includeEmpty: { include: [] },
    categories: { categoryIds: ids.terms.slice(0, 5) },
    tags: { tagIds: ids.terms.slice(3, 9), statuses: ['publish', 'draft'] },
    venues: { venueIds: ids.venues.slice(0, 3) },
    organizers: { organizerIds: ids.organizers.slice(0, 2), categoryIds: ids.terms },
    combined: { categoryIds: ids.terms.slice(0, 8), venueIds: ids.venues, search: 'e', featured: false },
    byDate: { orderBy: 'date', statuses: ['publish', 'draft'] },
    // Whole-day windows: the SQL count comes from event_day_counts for these.
    dayWindow: { startGte: '2027-01-11 00:00:00', endLte: '2027-03-10 23:59:59' },
    dayWindowJa: { language: 'ja', startGte: '2027-02-10 00:00:00', endLte: '2027-02-12 23:59:59' },
    dayFrom: { startGte: '2027-02-11 00:00:00', statuses: ['publish', 'draft', 'pending'] },
    dayTo: { endLte: '2027-02-11 23:59:59', statuses: ['publish', 'future'] },
    daySingle: {
      startGte: '2027-02-11 00:00:00',
      endLte: '2027-02-11 23:59:59',
      statuses: ['publish', 'draft', 'pending', 'private', 'future', 'trash'],
    },
    dayTrash: { statuses: ['trash'], startGte: '2027-01-10 00:00:00', endLte: '2027-03-12 23:59:59' },
    dayEmpty: { startGte: '2027-03-12 00:00:00', endLte: '2027-01-10 23:59:59' },
    dayNoStatus: { statuses: [], startGte: '2027-01-10 00:00:00' },
    dayPage: { startGte: '2027-01-12 00:00:00', endLte: '2027-03-11 23:59:59', offset: 3, limit: 4 },
    // Near misses that must keep the row count.
    notDayStart: { startGte: '2027-01-11 00:00:01', endLte: '2027-03-10 23:59:59' },
    notDayEnd: { startGte: '2027-01-11 00:00:00', endLte: '2027-03-10 23:59:58' },
    dayAndStrict: { startGte: '2027-01-11 00:00:00', endLte: '2027-03-10 23:59:59', startLt: '2027-02-11 00:00:00' },
    dayOwnDrafts: { startGte: '2027-01-11 00:00:00', statuses: ['publish', 'draft'], unpublishedAuthor: 1 },
  }
  for (const [name, q] of Object.entries(eventQueries)) out[`events:${name}`] = await s.listEvents(ev(q))

  const linked = (o: Partial<LinkedListQuery>): LinkedListQuery => ({ language: 'en', statuses: ['publish'], offset: 0, limit: 500, ...o })
  const linkedQueries: Record<string, Partial<LinkedListQuery>> = {
    base: {},
    ja: { language: 'ja', statuses: ['publish', 'draft', 'trash'] },
    page: { offset: 1, limit: 2 },
    search: { searchFragments: ['jazz'] },
    searchTwo: { searchFragments: ['east', 'side'] },
    searchEmpty: { searchFragments: [''] },
    searchEmail: { searchFragments: ['example', 'com'] },
    searchUpper: { searchFragments: ['JAZZ'] },
    hasEvents: { hasEvents: true },
    noEvents: { hasEvents: false },
    upcoming: { upcomingAfterUtc: '2027-02-10 10:00:00' },
    upcomingDraft: { upcomingAfterUtc: '2027-01-10 10:00:00', upcomingStatuses: ['draft', 'publish'] },
  }
  for (const type of ['venue', 'organizer'] as const) {
    for (const [name, q] of Object.entries(linkedQueries)) out[`${type}:${name}`] = await s.listLinked(type, linked(q))
    for (let eventId = 30; eventId < 60; eventId++)
      out[`${type}:event:${eventId}`] = await s.listLinked(type, linked({ eventId, statuses: ['publish', 'draft'] }))
    out[`${type}:dup`] = await s.findLinkedDuplicate(type, 'en', { title: '' })
    out[`${type}:dup2`] = await s.findLinkedDuplicate(type, 'en', { zip: '', phone: '', geoLat: '' })
  }

  const orders: TermOrderBy[] = ['name', 'id', 'slug', 'count', 'description', 'parent', 'none', 'include']
  const term = (o: Partial<TermListQuery>): TermListQuery => ({
    taxonomy: 'category',
    language: 'en',
    hideEmpty: false,
    orderBy: 'name',
    order: 'asc',
    offset: 0,
    limit: 500,
    ...o,
  })
  for (const taxonomy of ['category', 'tag'] as const) {
    for (const orderBy of orders) {
      for (const order of ['asc', 'desc'] as const) {
        out[`terms:${taxonomy}:${orderBy}:${order}`] = await s.listTerms(
          term({ taxonomy, orderBy, order, include: orderBy === 'include' ? ids.terms.slice(0, 12).reverse() : undefined }),
        )
      }
    }
    out[`terms:${taxonomy}:hideEmpty`] = await s.listTerms(term({ taxonomy, hideEmpty: true }))
    out[`terms:${taxonomy}:search`] = await s.listTerms(term({ taxonomy, search: 'JAZZ' }))
    out[`terms:${taxonomy}:filters`] = await s.listTerms(term({ taxonomy, exclude: ids.terms.slice(0, 3), parent: 0, language: 'ja' }))
    for (let eventId = 30; eventId < 60; eventId += 3)
      out[`terms:${taxonomy}:event:${eventId}`] = await s.listTerms(term({ taxonomy, eventId, language: 'ja' }))
    out[`terms:${taxonomy}:page`] = await s.listTerms(term({ taxonomy, offset: 2, limit: 3, orderBy: 'count', order: 'desc' }))
  }
  out.getTerms = await s.getTerms([...ids.terms, 9999])
  out.descendants = (await s.termDescendants([ids.terms[0]!, ids.terms[1]!])).sort((a, b) => a - b)
  out.descendantsAll = (await s.termDescendants([0])).sort((a, b) => a - b)
  for (const of of ['posts', 'terms'] as const)
    out[`translations:${of}`] = [
      ...(
        await s.getTranslations(
          Array.from({ length: 60 }, (_, i) => i),
          of,
        )
      ).entries(),
    ].sort((a, b) => a[0] - b[0])
  out.slugs = (await s.slugsLike('event', 'en', 'e-1')).sort()
  for (const taxonomy of ['category', 'tag'] as const) {
    for (const language of LANGS) {
      out[`findTerm:${taxonomy}:${language}`] = await s.findTerm(taxonomy, language, { name: 'RENAMED ÜNÏ' })
      out[`findTermSlug:${taxonomy}:${language}`] = await s.findTerm(taxonomy, language, { slug: 't-1-2', name: 'x' })
    }
  }
  out.posts = await s.getPosts(Array.from({ length: 200 }, (_, i) => 200 - i))
  return out
}

const seeds = [1, 2, 3]
const reference = new Map<number, Awaited<ReturnType<typeof answers>>>()

beforeAll(async () => {
  for (const seedValue of seeds) {
    const m = createMemoryStorage()
    reference.set(seedValue, await answers(m, await seed(m, seedValue)))
  }
})

/**
 * A record's revision is a cache key: the contract says it grows on every change of the row,
 * not by how much (an engine may touch a row once where the memory backend touches it twice).
 */
function withoutRevisions(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (k, v) => (k === 'revision' ? undefined : v)))
}

async function compare(make: () => Promise<Storage>, seedValue: number) {
  const s = await make()
  try {
    const got = await answers(s, await seed(s, seedValue))
    const want = reference.get(seedValue)!
    for (const key of Object.keys(want))
      assert.deepEqual(withoutRevisions(got[key]), withoutRevisions(want[key]), `${key} differs from the memory backend`)
  } finally {
    await s.close?.()
  }
}

describe('SQL storage answers exactly like the memory backend', () => {
  for (const seedValue of seeds) {
    it(`sqlite, data set ${seedValue}`, () =>
      compare(async () => createSqlStorage({ driver: await openSqliteFile(':memory:') }), seedValue))
  }

  const { url } = inject('postgres')
  const pgIt = url ? it : it.skip
  const admin = url ? new pg.Pool({ connectionString: url, max: 1 }) : null
  afterAll(() => admin?.end())
  for (const seedValue of seeds) {
    pgIt(`postgres, data set ${seedValue}`, () =>
      compare(async () => {
        const schema = `parity_${process.pid}_${seedValue}_${Math.random().toString(36).slice(2, 8)}`
        await admin!.query(`CREATE SCHEMA ${schema}`)
        const storage = createSqlStorage({
          driver: pgDriver(new pg.Pool({ connectionString: url, max: 3, options: `-c search_path=${schema}` })),
        })
        const close = storage.close.bind(storage)
        return Object.assign(storage, {
          close: async () => {
            await close()
            await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
          },
        })
      }, seedValue),
    )
  }
})
