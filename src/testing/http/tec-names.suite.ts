/**
 * The tecNames option (docs/wire-compatibility.md §8): both namespaces served at once over the
 * same data, each response written under the names of the namespace its request came in on
 * (links, language parameter, discovery, /doc, sync, errors), never the other's, also through
 * the response and fragment caches. The rest of the API under TEC's names is every other suite,
 * run that way by test/http-tec-names*.test.ts.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { CalendarOptions } from '../../options.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, ORIGIN, type App, type Caller, type Res } from './harness.js'

const OURS = { root: `${ORIGIN}/wp-json/calendar/events/v1`, ns: 'calendar/events/v1', lang: 'multilingual_language' }
const TEC = { root: `${ORIGIN}/wp-json/tribe/events/v1`, ns: 'tribe/events/v1', lang: 'wpml_language' }
type Names = typeof OURS

/** The other namespace's names anywhere in a response (iCalendar's PRODID names the product, not a URL). */
const leaked = (names: Names, res: Res) => {
  const other = names === OURS ? TEC : OURS
  const body = res.text.replace(/^PRODID:.*$/m, '')
  const text = `${body}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`
  return text.includes(`/${other.ns}`) || text.includes(other.lang) || text.includes(other.ns.replace(/\//g, '\\/'))
}

export function tecNamesSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function open(options: CalendarOptions = {}): Promise<App> {
    const app = await makeApp(makeStorage, { tecNames: true, ...options })
    onTestFinished(() => app.close())
    return app
  }
  const get = (app: App, names: Names, path: string, as?: Caller) => app.fetch(`${names.root}${path}`, as ? { as } : {})
  const send = (app: App, names: Names, method: string, path: string, body: unknown) =>
    app.fetch(`${names.root}${path}`, {
      method,
      as: 'administrator',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  /** A venue, an organizer, a category and a tag, and events (Japanese too) that use them. */
  async function world(app: App) {
    const venue = (await send(app, TEC, 'POST', '/venues', { venue: 'Hall', status: 'publish' })).body
    const organizer = (await send(app, OURS, 'POST', '/organizers', { organizer: 'Acme', status: 'publish' })).body
    const category = (await send(app, TEC, 'POST', '/categories', { name: 'Music' })).body
    const tag = (await send(app, OURS, 'POST', '/tags', { name: 'Free' })).body
    const links = { venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id], status: 'publish' }
    const events = []
    for (let i = 0; i < 3; i++) {
      const res = await send(app, i % 2 ? TEC : OURS, 'POST', '/events', {
        title: `Night ${i}`,
        start_date: `2026-12-0${i + 1} 19:00:00`,
        end_date: `2026-12-0${i + 1} 21:00:00`,
        ...links,
      })
      expect(res.status, res.text).toBe(201)
      events.push(res.body)
    }
    const ja = await send(app, TEC, 'POST', `/events?wpml_language=ja`, {
      title: '夜',
      start_date: '2026-12-05 19:00:00',
      end_date: '2026-12-05 21:00:00',
      ...links,
    })
    expect(ja.status, ja.text).toBe(201)
    return { venue, organizer, category, tag, events, ja: ja.body }
  }

  /** Requests that write links into their answers, under one namespace's names. */
  const paths = (w: Awaited<ReturnType<typeof world>>, names: Names) => [
    '',
    '/',
    '/doc',
    `/events?per_page=1`,
    `/events?per_page=1&page=2`,
    `/events?per_page=1&${names.lang}=ja`,
    `/events/${w.events[0].id}`,
    `/events/by-slug/${w.events[1].slug}`,
    `/events/${w.ja.id}?${names.lang}=ja`,
    `/venues`,
    `/venues/${w.venue.id}`,
    `/organizers/${w.organizer.id}`,
    `/categories?hide_empty=0`,
    `/categories/${w.category.id}`,
    `/tags/${w.tag.id}`,
    `/events?sync_token=*&per_page=1`,
    `/events?format=ics`,
    `/events/${w.events[0].id}?format=ics`,
  ]

  describe(`TEC's names beside ours [${name}]`, () => {
    it('are off by default: tribe/events/v1 is not ours to answer', async () => {
      const app = await makeApp(makeStorage, { tecNames: false })
      onTestFinished(() => app.close())
      const raw = await app.router.handle({
        method: 'GET',
        url: `${TEC.root}/events`,
        headers: { get: () => null },
        text: () => Promise.resolve(''),
      })
      expect(raw.passthrough).toBe(true)
      expect((await app.fetch(`${ORIGIN}/wp-json/`)).body.namespaces).toEqual([OURS.ns])
    })

    it('serve the same records at once, each answer under the names it was asked with', async () => {
      const app = await open()
      const w = await world(app)
      for (const names of [OURS, TEC]) {
        const list = await get(app, names, '/events?per_page=2')
        expect(list.body.events.map((e: { id: number }) => e.id)).toEqual([w.events[0].id, w.events[1].id])
        expect(list.body.rest_url.startsWith(`${names.root}/events/?page=1&per_page=2`)).toBe(true)
        expect(list.body.next_rest_url.startsWith(`${names.root}/events/?per_page=2`)).toBe(true)
        const event = list.body.events[0]
        expect(event.rest_url).toBe(`${names.root}/events/${event.id}`)
        expect(event.categories[0].urls.self).toBe(`${names.root}/categories/${w.category.id}`)
      }
      // A create answers with links and a Location under its own names.
      const created = await send(app, TEC, 'POST', '/tags', { name: 'Jazz' })
      expect(created.headers.get('location')).toBe(`${TEC.root}/tags/${created.body.id}`)
    })

    it('take the language as each namespace names it, and only that name', async () => {
      // Without language path segments, links carry the language as a parameter.
      const app = await open({ languagePathSegment: false })
      const w = await world(app)
      const ids = (res: Res) => res.body.events.map((e: { id: number }) => e.id)
      expect(ids(await get(app, TEC, '/events?wpml_language=ja'))).toEqual([w.ja.id])
      expect(ids(await get(app, OURS, '/events?multilingual_language=ja'))).toEqual([w.ja.id])
      // The other namespace's name is an unknown parameter there: ignored, as WordPress ignores one.
      expect(ids(await get(app, TEC, '/events?multilingual_language=ja'))).toHaveLength(3)
      expect(ids(await get(app, OURS, '/events?wpml_language=ja'))).toHaveLength(3)
      const ja = await get(app, TEC, '/events?wpml_language=ja')
      expect(ja.body.rest_url).toContain('&wpml_language=ja')
      const bad = await get(app, TEC, '/events?wpml_language=fr')
      expect(bad.status).toBe(400)
      expect(bad.body.data.params).toEqual({ wpml_language: 'wpml_language is not one of en, ja, ko, and zh-hans.' })
      expect(bad.body.data.details.wpml_language.code).toBe('rest_not_in_enum')
    })

    it("never write the other namespace's names, through the response and fragment caches too", async () => {
      const app = await open({ cache: { ttlMs: 60_000 }, languagePathSegment: false })
      const w = await world(app)
      // Twice each, alternating, so that the second round is answered from the caches.
      for (let round = 0; round < 2; round++) {
        for (const names of [OURS, TEC]) {
          for (const path of paths(w, names)) {
            for (const as of [undefined, 'administrator'] as const) {
              const res = await get(app, names, path, as)
              expect(res.status, `${names.ns}${path}: ${res.text.slice(0, 200)}`).toBe(200)
              expect(leaked(names, res), `${names.ns}${path} as ${as ?? 'anonymous'}`).toBe(false)
            }
          }
        }
      }
      expect(app.router.cacheStats()!.hits).toBeGreaterThan(0)
    })

    it('cache each namespace apart: same query, two entries, two ETags, both dropped by a write', async () => {
      const app = await open({ cache: { ttlMs: 60_000 } })
      const w = await world(app)
      const path = `/events/${w.events[0].id}`
      const ours = await get(app, OURS, path)
      const tec = await get(app, TEC, path)
      expect(tec.headers.get('etag')).not.toBe(ours.headers.get('etag'))
      expect(tec.body.rest_url).toBe(`${TEC.root}${path}`)
      const hits = app.router.cacheStats()!.hits
      expect((await get(app, TEC, path)).body.rest_url).toBe(`${TEC.root}${path}`)
      expect((await get(app, OURS, path)).body.rest_url).toBe(`${OURS.root}${path}`)
      expect(app.router.cacheStats()!.hits).toBe(hits + 2)
      await send(app, TEC, 'PATCH', path, { title: 'Renamed' })
      expect((await get(app, OURS, path)).body.title).toBe('Renamed')
      expect((await get(app, TEC, path)).body.title).toBe('Renamed')
    })

    it('describe themselves under their own names: index, API index, /doc, OPTIONS', async () => {
      const app = await open()
      const index = (await get(app, TEC, '')).body
      expect(index.namespace).toBe(TEC.ns)
      expect(Object.keys(index.routes)[2]).toBe(`/${TEC.ns}/events`)
      const list = index.routes[`/${TEC.ns}/events`]
      expect(list._links.self[0].href).toBe(`${TEC.root}/events`)
      expect(list.endpoints[0].args.wpml_language).toMatchObject({ type: 'string', enum: ['en', 'ja', 'ko', 'zh-hans'] })
      expect(list.endpoints[0].args.multilingual_language).toBeUndefined()
      expect(index.routes[`/${TEC.ns}`].endpoints[0].args.namespace.default).toBe(TEC.ns)
      const site = (await app.fetch(`${ORIGIN}/wp-json/`)).body
      expect(site.namespaces).toEqual([OURS.ns, TEC.ns])
      expect(site.routes[`/${OURS.ns}/events`].namespace).toBe(OURS.ns)
      expect(site.routes[`/${TEC.ns}/events`]).toEqual(list)
      const doc = (await get(app, TEC, '/doc')).body
      expect(doc.servers).toEqual([{ url: TEC.root }])
      const params = doc.paths['/events'].post.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)
      expect(params).toContain('query:wpml_language')
      const options = await app.fetch(`${TEC.root}/events`, { method: 'OPTIONS' })
      expect(options.body.namespace).toBe(TEC.ns)
      expect(Object.keys(options.body.endpoints[0].args)).toContain('wpml_language')
    })

    it("answer WordPress's plain-permalink form, and a sync token of one namespace in the other", async () => {
      const app = await open()
      const w = await world(app)
      const plain = await app.fetch(`${ORIGIN}/?rest_route=/${TEC.ns}/events&per_page=1`)
      expect(plain.body.rest_url.startsWith(`${TEC.root}/events/`)).toBe(true)
      const full = await get(app, OURS, '/events?sync_token=*&per_page=50')
      const token = full.body.sync_token as string
      await send(app, TEC, 'PATCH', `/events/${w.events[2].id}`, { title: 'Changed' })
      const delta = await get(app, TEC, `/events?sync_token=${encodeURIComponent(token)}`)
      expect(delta.body.events.map((e: { title: string }) => e.title)).toEqual(['Changed'])
      expect(delta.body.events[0].rest_url).toBe(`${TEC.root}/events/${w.events[2].id}`)
      expect(delta.body.rest_url.startsWith(`${TEC.root}/events/`)).toBe(true)
    })
  })
}
