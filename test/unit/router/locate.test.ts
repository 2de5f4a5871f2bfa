import { describe, expect, it } from 'vitest'
import { resolveOptions } from '../../../src/options.js'
import { locate } from '../../../src/router/locate.js'

const options = resolveOptions()
const NS = 'https://example.org/wp-json/calendar/events/v1'

describe('locate', () => {
  const cases: Array<[string, ReturnType<typeof locate>]> = [
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
      expect(locate(url, options)).toEqual(expected)
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
})
