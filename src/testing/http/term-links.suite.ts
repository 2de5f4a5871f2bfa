/**
 * The `_links` of standalone terms (categories and tags) as the reference writes them: their
 * relations, their order, targetHints that follow the caller, and the request's language. Runs
 * unchanged on every storage backend; data is seeded through the API only.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { NS, API, makeApp, ORIGIN, type App, createOk } from './harness.js'

export function termLinksSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (): Promise<App> => {
    const app = await makeApp(makeStorage)
    onTestFinished(() => app.close())
    return app
  }
  const create = createOk

  describe(`term _links [${name}]`, () => {
    it('carry self with targetHints, collection, about, up, wp:post_type and curies, in that order, on reads and writes only', async () => {
      const app = await open()
      const parent = await create(app, '/categories', { name: 'Music' })
      const child = await app.post('/categories', { name: 'Jazz', parent: parent.id }, { as: 'author' })
      expect(child.status, child.text).toBe(201)
      const links = child.body._links
      expect(Object.keys(links)).toEqual(['self', 'collection', 'about', 'up', 'wp:post_type', 'curies'])
      expect(links).toEqual({
        self: [{ href: `${API}/categories/${child.body.id}`, targetHints: { allow: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } }],
        collection: [{ href: `${API}/categories` }],
        about: [{ href: `${API}/doc` }],
        up: [{ embeddable: true, href: `${API}/categories/${parent.id}` }],
        'wp:post_type': [{ href: `${API}/events?categories=${child.body.id}` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      })
      expect(Object.keys(links.self[0])).toEqual(['href', 'targetHints'])
      expect(Object.keys(parent._links)).toEqual(['self', 'collection', 'about', 'wp:post_type', 'curies'])
      // targetHints follow the caller: authors manage categories but not tags.
      const tag = await create(app, '/tags', { name: 'Loud' })
      expect((await app.get(`/tags/${tag.id}`, { as: 'author' })).body._links.self[0].targetHints).toEqual({ allow: ['GET'] })
      expect((await app.get(`/tags/${tag.id}`, { as: 'editor' })).body._links.self[0].targetHints.allow).toEqual([
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
      ])
      expect((await app.get(`/categories/${parent.id}`)).body._links.self[0].targetHints).toEqual({ allow: ['GET'] })
      expect((await app.get(`/categories/${parent.id}`)).headers.get('allow')).toBe('GET')
      const updated = await app.patch(`/tags/${tag.id}`, { description: 'Very' }, { as: 'editor' })
      expect(updated.body._links['wp:post_type']).toEqual([{ href: `${API}/events?tags=${tag.id}` }])
      // The post-type link lists the events carrying the term.
      const event = await app.seed({ title: 'Gig', tags: [tag.id] })
      const listed = await app.fetch(updated.body._links['wp:post_type'][0].href)
      expect(listed.body.events.map((e: { id: number }) => e.id)).toEqual([event.id])
      // Not in lists, nor on deletes.
      expect((await app.get('/tags')).body.tags[0]).not.toHaveProperty('_links')
      const deleted = await app.del(`/tags/${tag.id}`, { as: 'editor' })
      expect(deleted.body).not.toHaveProperty('_links')
    })

    it('keep the language of the request', async () => {
      const app = await open()
      const ja = await app.post('/categories', { name: 'Ongaku' }, { as: 'administrator', lang: 'ja' })
      expect(ja.status, ja.text).toBe(201)
      const root = `${ORIGIN}/ja/wp-json/${NS}`
      expect(ja.body._links.self[0].href).toBe(`${root}/categories/${ja.body.id}`)
      expect(ja.body._links.about[0].href).toBe(`${root}/doc`)
      expect(ja.body._links['wp:post_type'][0].href).toBe(`${root}/events?categories=${ja.body.id}`)
    })
  })
}
