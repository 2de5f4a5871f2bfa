/**
 * Hostile input on every route, generated with fast-check: wrong types, empty and huge values,
 * deep and huge arrays, prototype keys, broken UTF-8 and percent-encoding, SQL and LIKE
 * metacharacters, absurd dates and pages, every body type. Invariants: never a 5xx, never a
 * hang, every error is the JSON envelope with a 4xx, and a rejected write changes nothing.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import fc from 'fast-check'
import type { Storage } from '../../src/storage/types.js'
import { LANG, makeApp, NS_PATH, ORIGIN, type App, type Caller } from './harness.js'

const RUNS = Number(process.env.HOSTILE_RUNS ?? 150)

export const hostileStats = { requests: 0, properties: 0 }

const SQLISH = ["' OR 1=1 --", '%', '_', '%_%', '\\', "'; DROP TABLE posts; --", '.*', '(?:', '$1', '\u0000', '[[:alpha:]]']

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    ...SQLISH,
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'true',
    'null',
    '9999-99-99 99:99:99',
    '0000-00-00',
    '+100000 years',
    '1.5',
  ),
  fc.integer({ min: 1, max: 5 }).map((n) => 'x'.repeat(n * 70_000)),
  fc.constantFrom('99999999999999999999999', '-9223372036854775809', String(Number.MAX_SAFE_INTEGER + 2)),
)

const leaf = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(Number.MAX_SAFE_INTEGER + 2))

const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'venue', 'organizer', 'name', 'x'), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value

/**
 * JSON text of values too deep for a recursive JSON.stringify (the client cannot even build them
 * as objects), and of huge flat ones: parsers and validators must not fall over.
 */
const monster = fc.constantFrom(
  '['.repeat(20_000) + ']'.repeat(20_000),
  '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000),
  JSON.stringify(Array.from({ length: 50_000 }, (_, i) => i)),
  JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))),
)

const PARAM_NAMES = [
  'page',
  'per_page',
  'start_date',
  'end_date',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
  'strict_dates',
  'search',
  'categories',
  'tags',
  'venue',
  'organizer',
  'featured',
  'status',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'include',
  'post_parent',
  'title',
  'description',
  'slug',
  'excerpt',
  'timezone',
  'all_day',
  'image',
  'cost',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'author',
  'date',
  'date_utc',
  'translation_of',
  'event',
  'has_events',
  'only_with_upcoming',
  'exclude',
  'order',
  'orderby',
  'hide_empty',
  'parent',
  'post',
  'name',
  'address',
  'city',
  'country',
  'zip',
  'phone',
  'email',
  'stateprovince',
  LANG,
  'format',
  'namespace',
  'context',
  '_method',
  'rest_route',
  '__proto__',
  'constructor',
]

const PATHS = [
  '',
  '/doc',
  '/events',
  '/events/1',
  '/events/999999999999999999999',
  '/events/by-slug/x',
  '/venues',
  '/venues/1',
  '/venues/by-slug/x',
  '/organizers',
  '/organizers/1',
  '/organizers/by-slug/x',
  '/categories',
  '/categories/1',
  '/tags',
  '/tags/1',
]

const hostilePath = fc.oneof(
  fc.constantFrom(...PATHS),
  fc.constantFrom(
    '/events/by-slug/%ZZ',
    '/events/by-slug/%E0%A4',
    '/venues/by-slug/%C0%AF',
    '/events/by-slug/..%2F..%2Fetc',
    '/events/-1',
    '/events/0',
    '/tags/1e5',
  ),
  fc.string({ maxLength: 30 }).map((s) => `/events/by-slug/${encodeURIComponent(s) || 'x'}`),
)

const callers = fc.constantFrom<Caller | undefined>(undefined, 'subscriber', 'contributor', 'author', 'administrator')
const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND')

function encodeQuery(params: Record<string, unknown>): string {
  const pairs: string[] = []
  for (const [k, v] of Object.entries(params)) {
    const value = typeof v === 'string' ? v.slice(0, 3000) : (JSON.stringify(v)?.slice(0, 3000) ?? '')
    pairs.push(`${encodeURIComponent(k)}=${encodeURIComponent(value)}`)
  }
  return pairs.join('&')
}

type Body = { type?: string; data: BodyInit }

const bodies = (params: Record<string, unknown>): fc.Arbitrary<Body | null> =>
  fc.oneof(
    fc.constant(null),
    fc.constant({ type: 'application/json', data: JSON.stringify(params) }),
    fc.constant({ type: 'application/x-www-form-urlencoded', data: encodeQuery(params) }),
    fc.constant({ data: encodeQuery(params) }),
    fc.constantFrom<Body>(
      { type: 'application/json', data: '{"title": "x", ' },
      { type: 'application/json', data: '[1,2,3]' },
      { type: 'application/json', data: '"just a string"' },
      { type: 'application/json', data: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
      { type: 'text/plain', data: 'hello' },
      { type: 'multipart/form-data; boundary=x', data: '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--x--' },
      { type: 'application/xml', data: '<event/>' },
      { type: 'application/json', data: 'x'.repeat(2 * 1024 * 1024) },
    ),
  )

/** What an administrator can see of everything: compared before and after a rejected write. */
async function snapshot(app: App): Promise<string> {
  const parts = await Promise.all(
    [
      '/events?status=publish,future,draft,pending,private,trash&start_date=1000-01-01&end_date=9999-12-31&per_page=120',
      '/venues?status=publish,future,draft,pending,private,trash',
      '/organizers?status=publish,future,draft,pending,private,trash',
      '/categories?hide_empty=0',
      '/tags?hide_empty=0',
    ].map(async (p) => (await app.get(p, { as: 'administrator' })).text),
  )
  return parts.join('\n')
}

async function seedWorld(app: App) {
  const venue = await app.post('/venues', { venue: 'Hall', city: 'Paris' }, { as: 'administrator' })
  const org = await app.post('/organizers', { organizer: 'Org' }, { as: 'administrator' })
  await app.post('/categories', { name: 'Music' }, { as: 'administrator' })
  await app.seed({ title: 'Seeded', venue: venue.body.id, organizer: [org.body.id], categories: ['Music'], tags: ['outdoor'] })
  await app.seed({ title: 'Draft', status: 'draft' })
}

export function hostileSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage, { maxBodyBytes: 1024 * 1024 })
    onTestFinished(() => a.close())
    return a
  }

  async function send(a: App, method: string, path: string, query: string, body: Body | null, as: Caller | undefined) {
    hostileStats.requests++
    const headers: Record<string, string> = {}
    if (as) headers.authorization = `Bearer ${as}`
    if (body?.type) headers['content-type'] = body.type
    const withBody = body !== null && method !== 'GET' && method !== 'HEAD'
    const request = new Request(`${ORIGIN}${NS_PATH}${path}${query ? `?${query}` : ''}`, {
      method,
      headers,
      ...(withBody ? { body: body.data } : {}),
    })
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`hang: ${method} ${path}`)), 5000))
    return Promise.race([a.router.fetch(request), timeout])
  }

  async function checkEnvelope(res: Response, method: string) {
    expect(res.status).toBeLessThan(500)
    const text = await res.text()
    if (res.status >= 400) {
      expect(res.headers.get('content-type')).toContain('application/json')
      if (method !== 'HEAD') {
        const body = JSON.parse(text)
        expect(typeof body.code).toBe('string')
        expect(typeof body.message).toBe('string')
        expect(body.data.status).toBe(res.status)
      }
    }
  }

  describe(`hostile input [${name}]`, () => {
    it('never answers 5xx or hangs, always the JSON error envelope, on any route, method, query and body', async () => {
      hostileStats.properties++
      const a = await app()
      await seedWorld(a)
      await fc.assert(
        fc.asyncProperty(
          methods,
          hostilePath,
          fc.dictionary(fc.constantFrom(...PARAM_NAMES), hostileValue, { maxKeys: 6 }),
          callers,
          fc.context(),
          async (method, path, params, as, ctx) => {
            const body = fc.sample(bodies(params), { numRuns: 1, seed: Object.keys(params).length + path.length })[0] ?? null
            ctx.log(`${method} ${path} ${JSON.stringify(params).slice(0, 200)}`)
            const res = await send(a, method, path, encodeQuery(params), body, as)
            await checkEnvelope(res, method)
          },
        ),
        { numRuns: RUNS * 2 },
      )
    })

    it('a rejected write changes nothing that is stored', async () => {
      hostileStats.properties++
      const a = await app()
      await seedWorld(a)
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
          fc.constantFrom(
            '/events',
            '/events/4',
            '/events/by-slug/seeded',
            '/venues',
            '/venues/1',
            '/organizers',
            '/organizers/2',
            '/categories',
            '/categories/1',
            '/tags',
            '/tags/1',
          ),
          fc.dictionary(fc.constantFrom(...PARAM_NAMES), hostileValue, { maxKeys: 5 }),
          callers,
          async (method, path, params, as) => {
            const before = await snapshot(a)
            const res = await send(a, method, path, '', { type: 'application/json', data: JSON.stringify(params) }, as)
            await checkEnvelope(res, method)
            if (res.status >= 400) expect(await snapshot(a)).toBe(before)
          },
        ),
        { numRuns: RUNS },
      )
    })

    it('survives monstrous bodies and parameters: deep, huge, and invalid UTF-8', async () => {
      hostileStats.properties++
      const a = await app()
      await fc.assert(
        fc.asyncProperty(
          monster,
          fc.constantFrom('title', 'categories', 'tags', 'organizer', 'venue', 'cost', 'image', 'status'),
          fc.constantFrom('/events', '/venues', '/events?categories=', '/categories'),
          async (json, key, path) => {
            const data = `{"title":"T","venue":"V","name":"N","start_date":"now","end_date":"now","${key}":${json}}`
            const res = await send(a, 'POST', path, '', { type: 'application/json', data }, 'administrator')
            await checkEnvelope(res, 'POST')
          },
        ),
        { numRuns: 40 },
      )
      const broken = await send(a, 'GET', '/events', 'search=%E0%A4%A&categories=%FF%FE&page=%', null, undefined)
      await checkEnvelope(broken, 'GET')
    })

    it('matches search, slugs and filters literally: SQL, LIKE and regex metacharacters find only themselves', async () => {
      hostileStats.properties++
      const a = await app()
      await a.seed({ title: 'Plain title' })
      await a.seed({ title: '100% off_sale (today) [x] $1 \\ end' })
      for (const needle of ['%', '_', '(', '[x]', '$1', '\\', '100% off_']) {
        const res = await a.get(`/events?search=${encodeURIComponent(needle)}`)
        expect(res.status).toBe(200)
        expect(res.body.events.map((e: { title: string }) => e.title)).toEqual(['100% off_sale (today) [x] $1 \\ end'])
      }
      for (const needle of ["' OR 1=1 --", '.*', 'o%f']) {
        const res = await a.get(`/events?search=${encodeURIComponent(needle)}`)
        expect(res.status).toBe(200)
        expect(res.body.total).toBe(0)
      }
      expect((await a.get(`/events/by-slug/${encodeURIComponent("x' OR '1'='1")}`)).status).toBe(400)
      expect((await a.get('/venues?search=%25')).body.total).toBe(0)
      expect((await a.get('/categories?search=%25&hide_empty=0')).body.total).toBe(0)
    })
  })
}

export function formSyntaxSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`PHP form syntax [${name}]`, () => {
    it('reads indexed brackets as lists, as PHP does: organizer[0][organizer]=A&organizer[1][organizer]=B', async () => {
      const a = await makeApp(makeStorage)
      onTestFinished(() => a.close())
      const body =
        'title=Form&start_date=2026-12-01+10%3A00&end_date=2026-12-01+11%3A00&organizer[0][organizer]=A&organizer[1][organizer]=B&categories[0]=Music'
      const res = await a.router.fetch(
        new Request(`${ORIGIN}${NS_PATH}/events`, {
          method: 'POST',
          headers: { authorization: 'Bearer administrator', 'content-type': 'application/x-www-form-urlencoded' },
          body,
        }),
      )
      expect(res.status).toBe(201)
      const json = (await res.json()) as { organizer: Array<{ organizer: string }>; categories: Array<{ name: string }> }
      expect(json.organizer.map((o) => o.organizer)).toEqual(['A', 'B'])
      expect(json.categories.map((c) => c.name)).toEqual(['Music'])
    })

    it('rejects NUL characters in any parameter with a 400, on every backend', async () => {
      const a = await makeApp(makeStorage)
      onTestFinished(() => a.close())
      for (const body of [{ venue: 'Hall\u0000' }, { venue: 'Hall', city: ['x\u0000'] }]) {
        const res = await a.post('/venues', body, { as: 'administrator' })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe('rest_invalid_param')
      }
      expect((await a.get('/events?search=a%00b')).status).toBe(400)
    })
  })
}
