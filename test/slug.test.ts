import { describe, expect, it } from 'vitest'
import { sanitizeSlug } from '../src/resources/slug.js'

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
