import { describe, expect, it } from 'vitest'
import { resolveOptions } from '../../../src/options.js'
import { locate, type Located } from '../../../src/router/locate.js'
import { OWN_NAMES, TEC_NAMES } from '../../../src/wire-names.js'

const options = resolveOptions()
const NS = 'https://example.org/wp-json/calendar/events/v1'

describe('locate', () => {
  // Every match below is in our own namespace.
  const cases: Array<[string, Omit<Located, 'names'> | null]> = [
    [`${NS}/events`, { origin: 'https://example.org', path: '/events', search: '', pathLanguage: null }],
    [`${NS}`, { origin: 'https://example.org', path: '', search: '', pathLanguage: null }],
    [
      `${NS}/events/12?page=2&per_page=5`,
      { origin: 'https://example.org', path: '/events/12', search: 'page=2&per_page=5', pathLanguage: null },
    ],
    [`${NS}/events#frag`, { origin: 'https://example.org', path: '/events', search: '', pathLanguage: null }],
    // The prefix and namespace match in any case; the path below keeps its own.
    ['http://h:8080/WP-JSON/Calendar/Events/V1/Venues', { origin: 'http://h:8080', path: '/Venues', search: '', pathLanguage: null }],
    // A language segment before the prefix, only for a configured language.
    [
      'https://example.org/ja/wp-json/calendar/events/v1/events',
      { origin: 'https://example.org', path: '/events', search: '', pathLanguage: 'ja' },
    ],
    [
      'https://example.org/JA/wp-json/calendar/events/v1/events',
      { origin: 'https://example.org', path: '/events', search: '', pathLanguage: 'ja' },
    ],
    ['https://example.org/fr/wp-json/calendar/events/v1/events', null],
    // WordPress's plain-permalink form.
    [
      'https://example.org/?rest_route=/calendar/events/v1/events/3',
      { origin: 'https://example.org', path: '/events/3', search: 'rest_route=/calendar/events/v1/events/3', pathLanguage: null },
    ],
    ['https://example.org/?rest_route=/other/v2/things', null],
    // The API index at `{prefix}/` (restIndex is on by default).
    ['https://example.org/wp-json/', { origin: 'https://example.org', path: '', search: '', pathLanguage: null, siteIndex: true }],
    ['https://example.org/wp-json', { origin: 'https://example.org', path: '', search: '', pathLanguage: null, siteIndex: true }],
    [
      'https://example.org/?rest_route=/',
      { origin: 'https://example.org', path: '', search: 'rest_route=/', pathLanguage: null, siteIndex: true },
    ],
    // Not ours: another namespace, a longer name that only starts like ours, no path at all.
    ['https://example.org/wp-json/wp/v2/posts', null],
    ['https://example.org/wp-json/calendar/events/v10/events', null],
    ['https://example.org', null],
  ]
  for (const [url, expected] of cases) {
    it(`${url} → ${expected ? JSON.stringify(expected.path) : 'not ours'}`, () => {
      expect(locate(url, options)).toEqual(expected && { ...expected, names: OWN_NAMES })
    })
  }

  it('honours another prefix, and an empty one', () => {
    expect(locate('https://x.test/api/calendar/events/v1/tags', resolveOptions({ prefix: '/api/' }))?.path).toBe('/tags')
    expect(locate('https://x.test/calendar/events/v1/tags', resolveOptions({ prefix: '' }))?.path).toBe('/tags')
    expect(locate('https://x.test/wp-json/calendar/events/v1/tags', resolveOptions({ prefix: '/api' }))).toBeNull()
  })

  it('reads no language segment when languagePathSegment is off, and no index when restIndex is off', () => {
    expect(locate('https://x.test/ja/wp-json/calendar/events/v1/events', resolveOptions({ languagePathSegment: false }))).toBeNull()
    expect(locate('https://x.test/wp-json/', resolveOptions({ restIndex: false }))).toBeNull()
  })

  it("finds TEC's namespace only with tecNames, in every form ours is found in", () => {
    const tec = resolveOptions({ tecNames: true })
    expect(locate('https://x.test/wp-json/tribe/events/v1/events', options)).toBeNull()
    expect(locate('https://x.test/wp-json/tribe/events/v1/events', tec)).toEqual({
      origin: 'https://x.test',
      path: '/events',
      search: '',
      pathLanguage: null,
      names: TEC_NAMES,
    })
    expect(locate('https://x.test/JA/WP-JSON/Tribe/Events/V1', tec)).toMatchObject({ path: '', pathLanguage: 'ja', names: TEC_NAMES })
    expect(locate('https://x.test/?rest_route=/tribe/events/v1/tags/3', tec)).toMatchObject({ path: '/tags/3', names: TEC_NAMES })
    expect(locate('https://x.test/wp-json/calendar/events/v1/tags', tec)).toMatchObject({ path: '/tags', names: OWN_NAMES })
    expect(locate('https://x.test/wp-json/tribe/events/v10/events', tec)).toBeNull()
    expect(locate('https://x.test/wp-json/', tec)).toMatchObject({ siteIndex: true, names: OWN_NAMES })
  })

  it('refuses a tecNames that is not a boolean', () => {
    expect(() => resolveOptions({ tecNames: 'yes' as never })).toThrow(/tecNames must be a boolean/)
  })
})
