/**
 * Search terms are text, never syntax: LIKE wildcards, quotes, backslashes, full-text query
 * syntax (FTS5: quotes, `*`, NEAR, AND/OR/NOT, `-`, `^`, column filters) and regular-expression
 * metacharacters are matched literally by every backend, whichever index answers (trigram
 * terms of three characters or more, shorter ones without), with exact totals and the usual
 * order and paging. The expected answers come from the rule itself, applied here to the texts
 * the test sent: every lower-cased word is a substring of title + description + excerpt.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import fc from 'fast-check'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App, type Res } from './harness.js'

const TEXTS: Array<{ title: string; description?: string; excerpt?: string }> = [
  { title: '100% Jazz', description: 'Half_price tickets' },
  { title: 'Quote "night" out', description: "it's O'Brien's party" },
  { title: 'Back\\slash\\n path', description: 'C:\\temp\\new' },
  { title: 'NEAR the river', description: 'walk AND talk OR NOT' },
  { title: 'Star* gazing', description: 'title:moon {title} : desc' },
  { title: 'Minus -one', description: '^caret +plus' },
  { title: 'Regex (a|b).* [x-z]', description: 'money $1 \\d+ ?? ^start end$' },
  { title: 'Percent %_% mix', description: 'under_score__double' },
  { title: 'Émile Zola Café', description: 'straße ÅNGSTRÖM' },
  { title: 'Plain event', description: 'nothing special', excerpt: 'extra words' },
  { title: 'NEAR(a b) syntax', description: '"quoted phrase" and a*b' },
  { title: 'Semi; colon -- comment', description: "'; DROP TABLE posts; --" },
]

/** Characters that mean something to LIKE, FTS5, regular expressions or SQL, plus some letters. */
const ALPHABET = [
  '%',
  '_',
  '"',
  "'",
  '\\',
  '*',
  '-',
  '^',
  ':',
  '(',
  ')',
  '[',
  ']',
  '|',
  '.',
  '$',
  '?',
  '+',
  '{',
  '}',
  ';',
  'a',
  'n',
  'e',
  'r',
  'o',
  't',
  'É',
  'ß',
  'near',
  'and',
  'or',
  'not',
  'title',
]

const words = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean)

export function searchSyntaxSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`search terms are matched literally [${name}]`, () => {
    const open = async (): Promise<App> => {
      const app = await makeApp(makeStorage)
      onTestFinished(() => app.close())
      return app
    }
    const ok = (res: Res) => {
      expect([200, 201], res.text).toContain(res.status)
      return res
    }

    /** Seeds TEXTS (start times in seeding order) and returns an oracle for any search. */
    async function seeded(app: App) {
      const events: Array<{ id: number; text: string }> = []
      for (const [k, t] of TEXTS.entries()) {
        const day = String(1 + k).padStart(2, '0')
        const e = await app.seed({ ...t, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 11:00:00` })
        events.push({ id: e.id, text: `${t.title}\n${t.description ?? ''}\n${t.excerpt ?? ''}`.toLowerCase() })
      }
      const expected = (search: string) => {
        const ws = words(search)
        return events.filter((e) => ws.every((w) => e.text.includes(w))).map((e) => e.id)
      }
      const found = async (search: string, perPage = 50) => {
        const res = ok(await app.get(`/events?per_page=${perPage}&search=${encodeURIComponent(search)}`))
        expect(res.headers.get('x-tec-total')).toBe(String(res.body.total ?? 0))
        return { ids: (res.body.events ?? []).map((e: { id: number }) => e.id) as number[], total: Number(res.body.total ?? 0) }
      }
      return { events, expected, found }
    }

    it('matches LIKE, quote, backslash, FTS5 and regex metacharacters literally, with exact totals', async () => {
      const app = await open()
      const { expected, found } = await seeded(app)
      const terms = [
        '%',
        '_',
        '%_%',
        '100%',
        'half_price',
        '_pr',
        '"night"',
        '"',
        '""',
        "o'brien's",
        "'",
        '\\',
        'back\\slash',
        '\\n',
        'c:\\temp',
        'near',
        'NEAR',
        'near(a',
        'near(a b)',
        'and',
        'walk AND talk',
        'OR',
        'not',
        'star*',
        '*',
        'a*b',
        'title:moon',
        'title:',
        '{title}',
        '-one',
        '-',
        '^caret',
        '^',
        '+plus',
        '(a|b).*',
        '.*',
        '[x-z]',
        '$1',
        '\\d+',
        '??',
        'end$',
        '^start',
        "'; drop table posts; --",
        '--',
        'émile',
        'ÉMILE',
        'straße',
        'ångström',
        'zola café',
        'nothing special',
        'extra',
        'no-such-text',
        'zz',
        'pl',
        'a',
      ]
      for (const term of terms) {
        const got = await found(term)
        expect(got.ids, term).toEqual(expected(term))
        expect(got.total, term).toBe(expected(term).length)
      }
      // The oracle is not trivially empty or full.
      expect(expected('%')).toHaveLength(2)
      expect(expected('near')).toHaveLength(2)
    })

    it('answers any mix of metacharacters, short and long words, without a 5xx and exactly', async () => {
      const app = await open()
      const { expected, found } = await seeded(app)
      const term = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''))
      await fc.assert(
        fc.asyncProperty(fc.array(term, { minLength: 1, maxLength: 3 }), async (ws) => {
          const search = ws.join(' ')
          const got = await found(search)
          expect(got.ids, search).toEqual(expected(search))
          expect(got.total, search).toBe(expected(search).length)
        }),
        { numRuns: 60 },
      )
    })

    it('keeps order, paging and totals with an indexed term, and follows updates in the same write', async () => {
      const app = await open()
      const { expected, found } = await seeded(app)
      const all = expected('e')
      expect(all.length).toBeGreaterThan(6)
      const pages: number[] = []
      for (let page = 1; page <= 4; page++) {
        const res = ok(await app.get(`/events?per_page=3&page=${page}&search=e`))
        expect(res.body.total).toBe(all.length)
        pages.push(...(res.body.events ?? []).map((e: { id: number }) => e.id))
      }
      expect(pages).toEqual(all)
      const long = expected('the')
      expect((await found('the', 1)).total).toBe(long.length)

      // A changed title is found by its new words at once, and no longer by its old ones.
      const target = (await found('gazing')).ids[0]!
      ok(await app.post(`/events/${target}`, { title: 'Telescope evening' }, { as: 'administrator' }))
      expect((await found('gazing')).ids).toEqual([])
      expect((await found('telescope')).ids).toEqual([target])
      expect((await found('title:moon')).ids).toEqual([target])
      // Trashed events leave the public search.
      ok(await app.del(`/events/${target}`, { as: 'administrator' }))
      expect((await found('telescope')).ids).toEqual([])
    })

    it('searches venue and organizer fields with metacharacters as separators, never as syntax', async () => {
      const app = await open()
      const venue = async (body: Record<string, unknown>) => ok(await app.post('/venues', body, { as: 'administrator' })).body
      const hall = await venue({ venue: 'Hall-7 "East"', city: "O'Hare%Town", address: 'NEAR 5_th Street' })
      const barn = await venue({ venue: 'Barn', city: 'Springfield' })
      const org = ok(
        await app.post('/organizers', { organizer: 'Star* Promotions', email: 'near@example.com' }, { as: 'administrator' }),
      ).body
      const venues = async (q: string) =>
        ok(await app.get(`/venues?search=${encodeURIComponent(q)}`)).body.venues.map((v: { id: number }) => v.id)
      const organizers = async (q: string) =>
        ok(await app.get(`/organizers?search=${encodeURIComponent(q)}`)).body.organizers.map((o: { id: number }) => o.id)
      expect(await venues('hall-7')).toEqual([hall.id])
      expect(await venues('"east"')).toEqual([hall.id])
      expect(await venues("o'hare%town")).toEqual([hall.id])
      expect(await venues('5_th')).toEqual([hall.id])
      expect(await venues('NEAR street')).toEqual([hall.id])
      // Two fragments must be in one field: the name has "hall", the city "town".
      expect(await venues('hall town')).toEqual([])
      expect(await venues('spring* field')).toEqual([barn.id])
      expect(await venues('%_%')).toHaveLength(2)
      expect(await organizers('star*')).toEqual([org.id])
      expect(await organizers('near@example')).toEqual([org.id])
      expect(await organizers('title:star')).toEqual([])
      // An update moves the venue's searched text in the same write.
      ok(await app.post(`/venues/${barn.id}`, { city: 'Shelbyville' }, { as: 'administrator' }))
      expect(await venues('springfield')).toEqual([])
      expect(await venues('shelby')).toEqual([barn.id])
    })
  })
}
