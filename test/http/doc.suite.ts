/**
 * Discovery and /doc: generated from the schemas that validate requests, valid OpenAPI 3.1
 * under an independent validator, complete both ways against what the router serves, and
 * truthful: real responses validate against the published response schemas.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import type { Storage } from '../../src/storage/types.js'
import { LANG, NS, makeApp, ORIGIN, type App } from './harness.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/**
 * Storage-free, run once (test/http-once.test.ts): the index and /doc are built from the route
 * table, and the completeness check only asks whether each request found a route, whatever the
 * storage answered for its made-up id.
 */
export function docSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(options = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`discovery and /doc [${name}]`, () => {
    it('the namespace root lists every route in registration order, with and without trailing slash', async () => {
      const a = await app()
      const res = await a.get('')
      expect(res.status).toBe(200)
      expect(res.body.namespace).toBe(NS)
      expect(Object.keys(res.body.routes)).toEqual([
        `/${NS}`,
        `/${NS}/doc`,
        `/${NS}/events`,
        `/${NS}/events/(?P<id>\\d+)`,
        `/${NS}/events/by-slug/(?P<slug>[^/]+)`,
        `/${NS}/venues`,
        `/${NS}/venues/(?P<id>\\d+)`,
        `/${NS}/venues/by-slug/(?P<slug>[^/]+)`,
        `/${NS}/organizers`,
        `/${NS}/organizers/(?P<id>\\d+)`,
        `/${NS}/organizers/by-slug/(?P<slug>[^/]+)`,
        `/${NS}/categories`,
        `/${NS}/categories/(?P<id>\\d+)`,
        `/${NS}/tags`,
        `/${NS}/tags/(?P<id>\\d+)`,
        `/${NS}/webhooks`,
        `/${NS}/webhooks/(?P<id>\\d+)`,
        `/${NS}/webhooks/(?P<id>\\d+)/deliveries`,
        `/${NS}/webhooks/(?P<id>\\d+)/replay`,
        `/${NS}/webhooks/(?P<id>\\d+)/ping`,
      ])
      expect(res.body._links.up[0].href).toBe(`${ORIGIN}/wp-json/`)
      const slash = await a.get('/')
      expect(slash.status).toBe(200)
      expect(slash.body).toEqual(res.body)
    })

    it('describes each endpoint with its methods and typed arguments', async () => {
      const a = await app()
      const { routes } = (await a.get('')).body
      const events = routes[`/${NS}/events`]
      expect(events.methods).toEqual(['GET', 'POST'])
      expect(events._links.self[0].href).toBe(`${ORIGIN}/wp-json/${NS}/events`)
      const [list, create] = events.endpoints
      expect(list.methods).toEqual(['GET'])
      expect(list.args.page).toMatchObject({ type: 'integer', default: 1, required: false })
      expect(list.args.per_page).toMatchObject({ type: 'integer', default: '120', required: false })
      expect(list.args.featured).toMatchObject({ type: 'boolean', required: false })
      expect(list.args[LANG]).toMatchObject({ type: 'string', enum: ['en', 'ja', 'ko', 'zh-hans'] })
      expect(create.methods).toEqual(['POST'])
      expect(create.args.title).toMatchObject({ type: 'string', required: true })
      expect(create.args.start_date.required).toBe(true)
      expect(create.args.all_day).toMatchObject({ type: 'boolean', default: false })
      expect(create.args.website.default).toBeNull()
      const single = routes[`/${NS}/events/(?P<id>\\d+)`]
      expect(single.methods).toEqual(['GET', 'DELETE', 'POST', 'PUT', 'PATCH'])
      expect(single.endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([['GET'], ['DELETE'], ['POST', 'PUT', 'PATCH']])
      expect(single.endpoints[2].args.id).toMatchObject({ type: 'integer', required: true })
      expect(single.endpoints[2].args.title.required).toBe(false)
      expect(single._links).toBeUndefined()
      const terms = routes[`/${NS}/categories/(?P<id>\\d+)`]
      expect(terms.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
      expect(routes[`/${NS}/tags`].endpoints[0].args.parent).toBeUndefined()
      expect(routes[`/${NS}/categories`].endpoints[0].args.hide_empty).toMatchObject({ type: 'boolean', default: '1' })
    })

    it("describes a route's id and slug with its own resource on every method", async () => {
      const a = await app()
      const { routes } = (await a.get('')).body
      const noun: Record<string, string> = {
        events: 'event',
        venues: 'venue',
        organizers: 'organizer',
        categories: 'term',
        tags: 'term',
        webhooks: 'webhook endpoint',
      }
      let checked = 0
      for (const [pattern, route] of Object.entries<{
        endpoints: Array<{ methods: string[]; args: Record<string, { description: string }> }>
      }>(routes)) {
        const resource = new RegExp(`^/${NS}/(\\w+)/.*\\(\\?P<(id|slug)>`).exec(pattern)
        if (!resource) continue
        const [, collection, capture] = resource
        for (const e of route.endpoints) {
          expect(e.args[capture!]!.description, `${e.methods.join(',')} ${pattern}`).toContain(`The ${noun[collection!]} `)
          checked++
        }
      }
      expect(checked).toBeGreaterThanOrEqual(20)
    })

    it('validates its own query parameters', async () => {
      const a = await app()
      const res = await a.get('?context=bogus')
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(Object.keys(res.body.data.params)).toEqual(['context'])
      expect((await a.get(`?context=view&namespace=${NS}`)).status).toBe(200)
    })

    it('serves an OpenAPI 3.1 document that an independent validator accepts', async () => {
      const a = await app()
      const res = await a.get('/doc')
      expect(res.status).toBe(200)
      expect(res.body.openapi).toBe('3.1.0')
      const validator = new Validator()
      const verdict = await validator.validate(res.body)
      expect(verdict.errors ?? []).toEqual([])
      expect(verdict.valid).toBe(true)
    })

    it('keeps the port, prefix and language segment of the request in servers[0].url', async () => {
      const a = await app({ prefix: '/api/rest' })
      const res = await a.fetch(`http://example.test:9090/ja/api/rest/${NS}/doc`)
      expect(res.status).toBe(200)
      expect(res.body.servers).toEqual([{ url: `http://example.test:9090/ja/api/rest/${NS}` }])
    })

    it('documents every route and method the router serves, and nothing else', async () => {
      const a = await app()
      const doc = (await a.get('/doc')).body
      const index = (await a.get('')).body
      const fromIndex = Object.entries(index.routes as Record<string, { methods: string[] }>).flatMap(([pattern, r]) => {
        const path = pattern.replace(`/${NS}`, '').replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'
        return r.methods.map((m) => `${m.toLowerCase()} ${path}`)
      })
      const fromDoc = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m} ${path}`),
      )
      expect(fromDoc.sort()).toEqual(fromIndex.sort())
      // Every documented operation reaches a handler; every other method is rest_no_route.
      for (const path of Object.keys(doc.paths)) {
        const concrete = path.replace('{id}', '999999').replace('{slug}', 'no-such-slug')
        for (const method of METHODS) {
          const res = await a.fetch(`${ORIGIN}/wp-json/${NS}${concrete === '/' ? '' : concrete}`, {
            method: method.toUpperCase(),
            as: 'administrator',
            headers: { 'content-type': 'application/json' },
            ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
          })
          const documented = method in doc.paths[path]
          expect({ path, method, noRoute: res.body?.code === 'rest_no_route' }).toEqual({ path, method, noRoute: !documented })
        }
      }
    })

    it('describes request bodies and parameters from the same schemas that validate', async () => {
      const a = await app()
      const doc = (await a.get('/doc')).body
      const create = doc.paths['/events'].post
      expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/eventCreate' })
      expect(doc.components.schemas.eventCreate.required).toEqual(['title', 'start_date', 'end_date'])
      expect(doc.paths['/events/{id}'].put.requestBody).toEqual(doc.paths['/events/{id}'].patch.requestBody)
      const list = doc.paths['/events'].get.parameters
      expect(list.find((p: { name: string }) => p.name === 'categories')).toMatchObject({ in: 'query', style: 'form', explode: false })
      expect(doc.paths['/events/{id}'].get.parameters[0]).toMatchObject({
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'integer' },
      })
    })
  })
}

/**
 * Real responses against the published schemas: these serialise stored records, so they run on
 * every backend (the rest of /doc is storage-free and runs once).
 */
export function docResponsesSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(options = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`discovery and /doc [${name}]`, () => {
    it('real responses validate against the published response schemas', async () => {
      const a = await app()
      const doc = (await a.get('/doc')).body
      const ajv = new Ajv2020({ strict: false, allErrors: true })
      ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc')
      const check = (name: string, body: unknown) => {
        const validate = ajv.getSchema(`doc#/components/schemas/${name}`)
        if (!validate) throw new Error(`no schema ${name}`)
        const ok = validate(body)
        expect({ name, errors: ok ? null : validate.errors }).toEqual({ name, errors: null })
      }
      const venue = await a.post('/venues', { venue: 'Hall', city: 'Paris' }, { as: 'administrator' })
      check('Venue', venue.body)
      const organizer = await a.post('/organizers', { organizer: 'Org', email: 'o@example.com' }, { as: 'administrator' })
      check('Organizer', organizer.body)
      const category = await a.post('/categories', { name: 'Music' }, { as: 'administrator' })
      check('Term', category.body)
      const event = await a.post(
        '/events',
        {
          title: 'Concert',
          start_date: '2026-12-01 19:00',
          end_date: '2026-12-01 22:00',
          venue: venue.body.id,
          organizer: [organizer.body.id],
          categories: [category.body.id],
          tags: 'outdoor',
          cost: '$10 - $20',
          image: 'https://img.example.com/a.jpg',
        },
        { as: 'administrator' },
      )
      expect(event.status).toBe(201)
      check('Event', event.body)
      check('Event', (await a.get(`/events/${event.body.id}`)).body)
      check('EventList', (await a.get('/events')).body)
      check('VenueList', (await a.get('/venues')).body)
      check('OrganizerList', (await a.get('/organizers')).body)
      check('CategoryList', (await a.get('/categories')).body)
      check('TagList', (await a.get('/tags')).body)
      check('Venue', (await a.get(`/venues/${venue.body.id}`)).body)
      check('Error', (await a.get('/events/999999')).body)
      check('Error', (await a.post('/events', {}, { as: 'administrator' })).body)
      check('NamespaceIndex', (await a.get('')).body)
    })
  })
}

/** Storage-free, run once: the defaults come from the clock, not from stored data. */
export function docDefaultsSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`discovery defaults [${name}]`, () => {
    it('shows the list window defaults as computed for this request, as WordPress does', async () => {
      const a = await makeApp(makeStorage)
      onTestFinished(() => a.close())
      const list = (await a.get('')).body.routes[`/${NS}/events`].endpoints[0].args
      // The harness clock is 2026-11-21 22:54:48 UTC (site time zone UTC).
      expect(list.start_date.default).toBe('2026-11-20 23:59:00')
      expect(list.end_date.default).toBe('2028-11-21 22:54:48')
      const doc = (await a.get('/doc')).body
      const start = doc.paths['/events'].get.parameters.find((p: { name: string }) => p.name === 'start_date')
      expect(start.schema.default).toBe('2026-11-20 23:59:00')
    })
  })
}
