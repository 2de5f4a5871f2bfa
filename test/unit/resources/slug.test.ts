import { describe, expect, it } from 'vitest'
import { freeSlug, sanitizeSlug, withFreeSlug } from '../../../src/resources/slug.js'
import { SlugConflictError, type StorageReader } from '../../../src/storage/types.js'

describe('slugs: Latin titles as WordPress spells them', () => {
  const cases: Array<[string, string]> = [
    ['Straße Fest', 'strasse-fest'],
    ['Łódź', 'lodz'],
    ['Ærø Øl', 'aero-ol'],
    ['Œuvre Þing', 'oeuvre-thing'],
    ['Crème brûlée', 'creme-brulee'],
    ['São Paulo Ñandú', 'sao-paulo-nandu'],
    ['Đakovo Ħamrun', 'dakovo-hamrun'],
    ['İstanbul Iğdır', 'istanbul-igdir'],
    ['Ŀlívia', 'llivia'],
    ['Ǝlf ɑlpha', 'elf-alpha'],
    ['Tickets 10€ × 2', 'tickets-10e-x-2'],
    ['£5 entry', '5-entry'],
    ['ẞTRASSE', 'sstrasse'],
    // Decomposed input (macOS file names, some keyboards) gives the same slug.
    ['Cre\u0300me bru\u0302le\u0301e', 'creme-brulee'],
    ["Mike's Party — 2026", 'mikes-party-2026'],
    // Stored titles are HTML: tags and character references go whole, as in WordPress.
    ['Rock &amp; Roll&#8217;s Night', 'rock-rolls-night'],
    ['<em>Jazz</em> &#x2013; <strong>Live</strong>', 'jazz-live'],
    ['AT&T & R&D', 'att-rd'],
    ['Jazz <script>alert(1)</script><em>night</em>', 'jazz-night'],
    ['<style>p{}</style>Gala <SCRIPT src=x>', 'gala'],
  ]
  for (const [title, slug] of cases) {
    it(`${JSON.stringify(title)} → ${slug}`, () => {
      expect(sanitizeSlug(title)).toBe(slug)
    })
  }
})

describe('slugs: WordPress locale rules by record language', () => {
  const cases: Array<[string, string, string]> = [
    ['Müller Straße Öl', 'de', 'mueller-strasse-oel'],
    ['Müller Straße Öl', 'de-AT', 'mueller-strasse-oel'],
    ['Müller Straße Öl', 'en', 'muller-strasse-ol'],
    ['Ærø Øl Åbenrå', 'da', 'aeroe-oel-aabenraa'],
    ['Ærø Øl Åbenrå', 'en', 'aero-ol-abenra'],
    ['Col·legi', 'ca', 'collegi'],
    ['Col·legi', 'en', 'col-legi'],
    ['Đorđe', 'sr', 'djordje'],
    ['Đorđe', 'bs', 'djordje'],
    ['Đorđe', 'hr', 'dorde'],
    // "dev" is not German: the rule needs the whole language subtag.
    ['Müller', 'dev', 'muller'],
  ]
  for (const [title, language, slug] of cases) {
    it(`${JSON.stringify(title)} in ${language} → ${slug}`, () => {
      expect(sanitizeSlug(title, language)).toBe(slug)
    })
  }
})

describe('slugs: other scripts keep their letters', () => {
  const cases: Array<[string, string]> = [
    ['東京 イベント', '東京-イベント'],
    ['ガイド', 'ガイド'],
    ['Москва 2026', 'москва-2026'],
    ['한국어 행사', '한국어-행사'],
    ['हिन्दी', 'हिन्दी'],
    ['Ærø 東京', 'aero-東京'],
  ]
  for (const [title, slug] of cases) {
    it(`${JSON.stringify(title)} → ${slug}`, () => {
      expect(sanitizeSlug(title)).toBe(slug)
      expect(sanitizeSlug(title, 'de')).toBe(slug)
    })
  }
})

describe('slugs: separators, edges and length', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['!!!', ''],
    ['--Hello--', 'hello'],
    ['a/b\\c.d', 'a-b-c-d'],
    ['Rock – Roll — Live', 'rock-roll-live'],
    ['snake_case stays', 'snake_case-stays'],
    ['  many   spaces  ', 'many-spaces'],
  ]
  for (const [title, slug] of cases) {
    it(`${JSON.stringify(title)} → ${JSON.stringify(slug)}`, () => {
      expect(sanitizeSlug(title)).toBe(slug)
    })
  }

  it('keeps at most 190 characters, without a hyphen left at the cut', () => {
    expect(sanitizeSlug('a'.repeat(300))).toBe('a'.repeat(190))
    expect(sanitizeSlug(`${'a'.repeat(189)} bcd`)).toBe('a'.repeat(189))
  })
})

/** A reader that knows only `slugsLike`, answering with `taken` and recording each question. */
function readerWith(taken: () => string[]) {
  const asked: unknown[][] = []
  const reader = {
    slugsLike: async (...args: unknown[]) => {
      asked.push(args)
      return taken()
    },
  } as unknown as StorageReader
  return { reader, asked }
}

describe('freeSlug', () => {
  const cases: Array<[string[], string]> = [
    [[], 'concert'],
    [['concert'], 'concert-2'],
    [['concert', 'concert-2', 'concert-3'], 'concert-4'],
    // The first gap is taken, not the next number after the highest.
    [['concert', 'concert-3'], 'concert-2'],
    // Other slugs that merely start alike do not count.
    [['concert-2', 'concerts'], 'concert'],
  ]
  for (const [taken, slug] of cases) {
    it(`${JSON.stringify(taken)} taken → ${slug}`, async () => {
      const { reader } = readerWith(() => taken)
      expect(await freeSlug(reader, 'event', 'en', 'concert')).toBe(slug)
    })
  }

  it('asks the storage about this kind and language', async () => {
    const { reader, asked } = readerWith(() => [])
    await freeSlug(reader, 'venue', 'ja', 'hall')
    expect(asked).toEqual([['venue', 'ja', 'hall']])
  })
})

describe('withFreeSlug', () => {
  it('inserts with the free slug', async () => {
    const { reader } = readerWith(() => ['gala'])
    expect(await withFreeSlug(reader, 'event', 'en', 'gala', async (slug) => `inserted ${slug}`)).toBe('inserted gala-2')
  })

  it('looks again and retries when a concurrent writer took the slug first', async () => {
    const taken = ['gala']
    const { reader, asked } = readerWith(() => [...taken])
    const tried: string[] = []
    const result = await withFreeSlug(reader, 'event', 'en', 'gala', async (slug) => {
      tried.push(slug)
      if (tried.length === 1) {
        taken.push(slug)
        throw new SlugConflictError(slug)
      }
      return slug
    })
    expect(tried).toEqual(['gala-2', 'gala-3'])
    expect(result).toBe('gala-3')
    expect(asked).toHaveLength(2)
  })

  it('gives up after nine conflicting attempts with the conflict', async () => {
    const { reader } = readerWith(() => [])
    let attempts = 0
    const insert = async (slug: string): Promise<never> => {
      attempts++
      throw new SlugConflictError(slug)
    }
    await expect(withFreeSlug(reader, 'event', 'en', 'gala', insert)).rejects.toBeInstanceOf(SlugConflictError)
    expect(attempts).toBe(9)
  })

  it('does not retry other errors', async () => {
    const { reader } = readerWith(() => [])
    let attempts = 0
    const boom = new Error('disk full')
    await expect(
      withFreeSlug(reader, 'event', 'en', 'gala', async () => {
        attempts++
        throw boom
      }),
    ).rejects.toBe(boom)
    expect(attempts).toBe(1)
  })
})
