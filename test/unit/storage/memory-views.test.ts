/**
 * The memory storage carries its derived views (start order, slug index, term counts) over each
 * commit instead of rebuilding them (storage/memory-views.ts). Random write sequences, each read
 * through those views right before the next write, must answer exactly what the records say: the
 * list in (start, id) order, each term's count of published events of its language, and a slug
 * refused exactly when a stored event of that language has it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../../src/storage/memory.js'
import { SlugConflictError, type EventRecord, type Storage } from '../../../src/storage/types.js'
import { eventQuery, newEvent, newTerm } from '../../../src/testing/fixtures.js'

const SLUGS = ['a', 'b', 'c', 'd', 'e']
const STARTS = ['2027-01-10 10:00:00', '2027-01-10 10:00:00', '2027-02-01 09:00:00', '2027-03-05 18:30:00']

type Step =
  | { op: 'insert'; slug: string; start: string; status: 'publish' | 'draft'; language: 'en' | 'fr'; terms: number[] }
  | { op: 'update'; pick: number; slug: string; start: string; status: 'publish' | 'draft' | 'trash'; terms: number[] }
  | { op: 'delete'; pick: number }
  | { op: 'term'; pick: number; language: 'en' | 'fr' }

const termPicks = fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { maxLength: 3 })
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('insert' as const),
    slug: fc.constantFrom(...SLUGS),
    start: fc.constantFrom(...STARTS),
    status: fc.constantFrom('publish' as const, 'draft' as const),
    language: fc.constantFrom('en' as const, 'fr' as const),
    terms: termPicks,
  }),
  fc.record({
    op: fc.constant('update' as const),
    pick: fc.nat(),
    slug: fc.constantFrom(...SLUGS),
    start: fc.constantFrom(...STARTS),
    status: fc.constantFrom('publish' as const, 'draft' as const, 'trash' as const),
    terms: termPicks,
  }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('term' as const), pick: fc.nat(), language: fc.constantFrom('en' as const, 'fr' as const) }),
)

/** Terms 0 and 1 are categories, 2 and 3 tags. */
const linked = (picks: number[], termIds: number[]) => ({
  categoryIds: picks.filter((i) => i < 2).map((i) => termIds[i]!),
  tagIds: picks.filter((i) => i >= 2).map((i) => termIds[i]!),
})

async function allEvents(storage: Storage, ids: number[]): Promise<EventRecord[]> {
  return (await storage.getPosts(ids)).filter((p): p is EventRecord => p.type === 'event')
}

/** What the views must answer, computed from the records themselves. */
async function check(storage: Storage, ids: number[], termIds: number[]) {
  const events = await allEvents(storage, ids)
  for (const language of ['en', 'fr']) {
    const listed = await storage.listEvents(eventQuery({ language, statuses: ['publish', 'draft', 'trash'] }))
    const expected = events
      .filter((e) => e.language === language)
      .sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id - b.id))
    expect(listed.items.map((e) => e.id)).toEqual(expected.map((e) => e.id))
  }
  for (const term of await storage.getTerms(termIds)) {
    const carrying = events.filter(
      (e) => e.status === 'publish' && e.language === term.language && [...e.categoryIds, ...e.tagIds].includes(term.id),
    )
    expect(term.count, `term ${term.id}`).toBe(carrying.length)
  }
}

describe('memory storage views carried over commits', () => {
  it('answer as a rebuild would, after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const storage = createMemoryStorage()
        const termIds = await storage.transaction(async (tx) => {
          const out: number[] = []
          for (let i = 0; i < 4; i++)
            out.push((await tx.insertTerm(newTerm({ taxonomy: i < 2 ? 'category' : 'tag', name: `T${i}`, slug: `t${i}` }))).id)
          return out
        })
        const ids: number[] = []
        for (const s of steps) {
          await check(storage, ids, termIds)
          const live = await allEvents(storage, ids)
          const target = live.length ? live[('pick' in s ? s.pick : 0) % live.length]! : null
          if (s.op === 'insert') {
            const taken = live.some((e) => e.language === s.language && e.slug === s.slug)
            const insert = storage.transaction((tx) =>
              tx.insertPost(
                newEvent({
                  slug: s.slug,
                  startDate: s.start,
                  status: s.status,
                  language: s.language,
                  ...linked(s.terms, termIds),
                }),
              ),
            )
            if (taken) await expect(insert).rejects.toBeInstanceOf(SlugConflictError)
            else ids.push((await insert).id)
          } else if (s.op === 'update' && target) {
            const taken = live.some((e) => e.id !== target.id && e.language === target.language && e.slug === s.slug)
            const update = storage.transaction((tx) =>
              tx.updatePost(target.id, 'event', {
                slug: s.slug,
                startDate: s.start,
                status: s.status,
                ...linked(s.terms, termIds),
              }),
            )
            if (taken) await expect(update).rejects.toBeInstanceOf(SlugConflictError)
            else await update
          } else if (s.op === 'delete' && target) {
            await storage.transaction((tx) => tx.deletePost(target.id))
          } else if (s.op === 'term') {
            await storage.transaction((tx) => tx.updateTerm(termIds[s.pick % termIds.length]!, { language: s.language }))
          }
        }
        await check(storage, ids, termIds)
      }),
      { numRuns: 150 },
    )
  })
})
