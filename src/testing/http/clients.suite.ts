/**
 * What generic clients rely on beyond the resources: WordPress's paging headers, an API index
 * where the discovery Link points, Retry-After on 503, and a /doc that code generators read
 * faithfully (no defaults in request bodies, iCalendar and 304 declared where served, the
 * security each operation really needs).
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import { StorageUnavailableError, type Storage } from '../../storage/types.js'
import { withStorageHooks } from '../../storage/pipeline.js'
import { NS, SERVED, makeApp, ORIGIN, type App } from './harness.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
const concrete = (path: string) => (path === '/' ? '' : path.replace('{id}', '999999').replace('{slug}', 'no-such-slug'))

/** Every `default` anywhere inside a JSON value, by path. */
function defaultsIn(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => defaultsIn(v, `${at}/${i}`))
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => (k === 'default' ? [at] : defaultsIn(v, `${at}/${k}`)))
}

export function clientsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options = {}, storage = makeStorage): Promise<App> {
    const a = await makeApp(storage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`client conventions [${name}]`, () => {
    it('every list sends X-WP-Total and X-WP-TotalPages equal to the TEC headers', async () => {
      const a = await app()
      for (const n of [1, 2, 3]) {
        await a.seed({
          title: `Paged ${n}`,
          venue: { venue: `Hall ${n}` },
          organizer: [{ organizer: `Org ${n}` }],
          categories: [`Cat ${n}`],
          tags: [`tag-${n}`],
        })
      }
      for (const list of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
        const res = await a.get(`${list}?per_page=2`)
        expect(res.status).toBe(200)
        const headers = ['x-wp-total', 'x-wp-totalpages', 'x-tec-total', 'x-tec-totalpages'].map((h) => res.headers.get(h))
        expect({ list, headers }).toEqual({ list, headers: ['3', '2', '3', '2'] })
      }
    })

    it('lets cross-origin scripts read the paging headers and Retry-After', async () => {
      const a = await app({ cors: { origins: ['https://app.example'] } })
      await a.seed()
      const res = await a.get('/events', { headers: { origin: 'https://app.example' } })
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example')
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((s) => s.trim())
      expect(exposed).toEqual(
        expect.arrayContaining(['X-WP-Total', 'X-WP-TotalPages', 'X-TEC-Total', 'X-TEC-TotalPages', 'Retry-After', 'Link']),
      )
    })

    it('answers 503 with Retry-After when the storage is unavailable', async () => {
      const failing = async () => {
        const storage = await makeStorage()
        // Every transaction fails as it begins, as when the database stops answering.
        return withStorageHooks(storage, [
          {
            transaction: () => ({
              begin() {
                throw new StorageUnavailableError()
              },
            }),
          },
        ])
      }
      const a = await app({}, failing)
      const res = await a.post(
        '/events',
        { title: 'x', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' },
        { as: 'administrator' },
      )
      expect(res.status).toBe(503)
      expect(res.body).toMatchObject({ code: 'storage_unavailable', data: { status: 503 } })
      const retry = Number(res.headers.get('retry-after'))
      expect(Number.isInteger(retry) && retry > 0).toBe(true)
    })
  })

  describe(`/doc for code generators [${name}]`, () => {
    it('nested data typed as documented is accepted: a venue object, organizer objects, category names, a numeric date', async () => {
      const a = await app()
      const res = await a.post(
        '/events',
        {
          title: 'Documented shapes',
          start_date: Date.UTC(2026, 11, 5, 18) / 1000,
          end_date: '2026-12-05 20:00:00',
          venue: { venue: 'Shape Hall', city: 'Lyon' },
          organizer: [{ organizer: 'One' }, { organizer: 'Two', email: 'two@example.com' }],
          categories: ['Shapes'],
          cost: [5, '10'],
        },
        { as: 'administrator' },
      )
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({
        start_date: '2026-12-05 18:00:00',
        venue: { venue: 'Shape Hall' },
        categories: [{ name: 'Shapes' }],
      })
      expect(res.body.organizer).toHaveLength(2)
    })

    it('declares text/calendar exactly where iCalendar is served, and 304 on every read', async () => {
      const a = await app()
      const event = await a.seed({ title: 'Feed me', slug: 'feed-me' })
      const doc = (await a.get('/doc')).body
      for (const [path, item] of Object.entries(
        doc.paths as Record<string, Record<string, { responses: Record<string, { content?: object }> }>>,
      )) {
        const get = item.get
        if (!get) continue
        expect({ path, notModified: '304' in get.responses }).toEqual({ path, notModified: true })
        const declared = Object.keys(get.responses['200']?.content ?? {}).includes('text/calendar')
        const url = path === '/' ? '' : path.replace('{id}', String(event.id)).replace('{slug}', 'feed-me')
        const res = await a.get(`${url}${url.includes('?') ? '&' : '?'}format=ics`)
        const served = res.status === 200 && (res.headers.get('content-type') ?? '').startsWith('text/calendar')
        expect({ path, declared }).toEqual({ path, declared: served })
      }
      expect(Object.keys(doc.paths['/events/by-slug/{slug}'].get.responses['200'].content)).toContain('text/calendar')
      // What 304 promises: the ETag sent back gets an empty 304.
      const read = await a.get(`/events/${event.id}`)
      const again = await a.get(`/events/${event.id}`, { headers: { 'if-none-match': read.headers.get('etag')! } })
      expect(again.status).toBe(304)
      expect(again.text).toBe('')
    })
  })
}

/**
 * Storage-free, run once (test/http-once.test.ts): the API index and the Link header come from
 * the route table and the options; the only reads are of an empty list.
 */
export function apiIndexSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options = {}, storage = makeStorage): Promise<App> {
    const a = await makeApp(storage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`client conventions [${name}]`, () => {
    it('answers the API index where the Link header points, naming the namespace and its routes', async () => {
      const a = await app()
      const res = await a.get('/events')
      const link = /^<([^>]+)>; rel="https:\/\/api\.w\.org\/"$/.exec(res.headers.get('link') ?? '')
      expect(link?.[1]).toBe(`${ORIGIN}/wp-json/`)
      const index = await a.fetch(link![1]!)
      expect(index.status).toBe(200)
      expect(index.headers.get('content-type')).toContain('application/json')
      expect(index.body.namespaces).toEqual(SERVED)
      expect(index.body.url).toBe(ORIGIN)
      const ns = (await a.get('')).body
      // The namespace's own routes, exactly as its index describes them, after the root route
      // (under TEC's names, our own namespace's routes come before them).
      const listed = Object.keys(index.body.routes)
      expect(listed.filter((key) => key === '/' || key.startsWith(`/${NS}`))).toEqual(['/', ...Object.keys(ns.routes)])
      expect(listed).toHaveLength(1 + SERVED.length * Object.keys(ns.routes).length)
      expect(index.body.routes[`/${NS}/events`]).toEqual(ns.routes[`/${NS}/events`])
      // Without the trailing slash, as HEAD, in the plain-permalink form and under a language segment.
      expect((await a.fetch(`${ORIGIN}/wp-json`)).body.namespaces).toEqual(SERVED)
      const head = await a.fetch(link![1]!, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      expect((await a.fetch(`${ORIGIN}/?rest_route=/`)).body.namespaces).toEqual(SERVED)
      expect((await a.fetch(`${ORIGIN}/ja/wp-json/`)).body.namespaces).toEqual(SERVED)
      // It only reads.
      const post = await a.fetch(link![1]!, {
        method: 'POST',
        as: 'administrator',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      expect(post.status).toBe(404)
      expect(post.body.code).toBe('rest_no_route')
      expect(post.headers.get('allow')).toBe('GET')
    })

    it('with restIndex off, leaves {prefix}/ to the host and sends no Link header', async () => {
      const a = await app({ restIndex: false })
      const res = await a.get('/events')
      expect(res.status).toBe(200)
      expect(res.headers.get('link')).toBeNull()
      expect((await a.get('/nope')).headers.get('link')).toBeNull()
      expect((await a.get('')).body._links).toBeUndefined()
      const root = await a.router.handle({
        method: 'GET',
        url: `${ORIGIN}/wp-json/`,
        headers: { get: () => null },
        text: () => Promise.resolve(''),
      })
      expect(root.passthrough).toBe(true)
      expect(root.headers.Link).toBeUndefined()
    })
  })
}

/**
 * Storage-free, run once: what /doc declares, checked against the answers of anonymous requests
 * that the router refuses (401) or hands on; nothing is stored.
 */
export function docGeneratorsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options = {}, storage = makeStorage): Promise<App> {
    const a = await makeApp(storage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`/doc for code generators [${name}]`, () => {
    it('request bodies carry no default; the default is said in the description', async () => {
      const a = await app()
      const doc = (await a.get('/doc')).body
      const bodies = new Set<string>()
      type PathItem = Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> } }>
      for (const item of Object.values<PathItem>(doc.paths)) {
        for (const op of Object.values(item))
          for (const media of Object.values(op.requestBody?.content ?? {})) bodies.add(media.schema.$ref.split('/').pop()!)
      }
      expect(bodies.size).toBeGreaterThanOrEqual(10)
      for (const body of bodies) expect({ body, defaults: defaultsIn(doc.components.schemas[body]) }).toEqual({ body, defaults: [] })
      expect(doc.components.schemas.eventCreate.properties.all_day.description).toContain('Default: false.')
      expect(doc.components.schemas.eventCreate.required).toEqual(['title', 'start_date', 'end_date'])
    })

    it('types nested venue and organizer data with the real object schemas, dates as string or number, and cost', async () => {
      const a = await app()
      const { schemas } = (await a.get('/doc')).body.components
      const venue = JSON.stringify(schemas.eventCreate.properties.venue)
      expect(venue).toContain('#/components/schemas/venueCreate')
      expect(venue).toContain('#/components/schemas/LinkedRef')
      expect(JSON.stringify(schemas.eventUpdate.properties.organizer)).toContain('#/components/schemas/organizerCreate')
      expect(schemas.venueCreate.required).toEqual(['venue'])
      expect(schemas.eventCreate.properties.start_date.type).toEqual(['string', 'number'])
      expect(schemas.eventCreate.properties.cost.anyOf.map((s: { type: string }) => s.type)).toEqual(['string', 'number', 'array', 'null'])
      const list = (await a.get('/doc')).body.paths['/events'].get.parameters
      for (const p of ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']) {
        expect(list.find((x: { name: string }) => x.name === p).schema.type).toEqual(['string', 'number'])
      }
    })

    it('has a bearer scheme, required exactly where an anonymous caller gets 401', async () => {
      const a = await app()
      const doc = (await a.get('/doc')).body
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
      expect(doc.components.securitySchemes.bearer.description).toMatch(/hosts authenticate/i)
      let gated = 0
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security: object[] }>>)) {
        for (const method of METHODS) {
          const op = item[method]
          if (!op) continue
          const needsCaller = !op.security.some((s) => Object.keys(s).length === 0)
          if (needsCaller) gated++
          const res = await a.fetch(`${ORIGIN}/wp-json/${NS}${concrete(path)}`, {
            method: method.toUpperCase(),
            headers: { 'content-type': 'application/json' },
            ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
          })
          expect({ path, method, needsCaller }).toEqual({ path, method, needsCaller: res.status === 401 })
        }
      }
      expect(gated).toBeGreaterThan(20)
    })
  })
}
