/**
 * Categories and tags over HTTP: list, read, create, partial update, permanent delete, live
 * counts and language scoping. Runs unchanged against every storage backend; data is seeded
 * through the API only. Expected behaviour: docs/wire-compatibility.md §7.6 (terms) and §3
 * (permissions, languages), with §5.2 (authorization first) and §5.3 (links keep filters).
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { LANG, NS, API, makeApp, ORIGIN, type App, type Caller, type Res, expectError, expectInvalid } from './harness.js'

function expectForbidden(res: Res, status: 401 | 403) {
  expectError(res, status, 'rest_forbidden', 'Sorry, you are not allowed to do that.')
}

type Tax = 'category' | 'tag'
const PLURAL = { category: 'categories', tag: 'tags' } as const

const STANDALONE_KEYS = (tax: Tax) => [
  'id',
  'count',
  'description',
  'name',
  'slug',
  'taxonomy',
  ...(tax === 'category' ? ['parent'] : []),
  'meta',
  'url',
  'urls',
  'language',
  'translations',
]

export function termsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (): Promise<App> => {
    const app = await makeApp(makeStorage)
    onTestFinished(() => app.close())
    return app
  }

  /** Creates a term through the API; fails loudly. */
  const term = async (app: App, tax: Tax, fields: Record<string, unknown>, as: Caller = 'administrator') => {
    const res = await app.post(`/${PLURAL[tax]}`, fields, { as })
    if (res.status !== 201) throw new Error(`${tax} create failed: ${res.status} ${res.text}`)
    return res.body
  }
  const category = (app: App, fields: Record<string, unknown>) => term(app, 'category', fields)
  const tag = (app: App, fields: Record<string, unknown>) => term(app, 'tag', fields)
  const names = (res: Res, tax: Tax = 'category'): string[] => res.body[PLURAL[tax]].map((t: { name: string }) => t.name)
  const count = async (app: App, tax: Tax, id: number) => (await app.get(`/${PLURAL[tax]}/${id}`)).body.count
  const eventIds = (res: Res) => res.body.events.map((e: { id: number }) => e.id)

  describe(`categories and tags over HTTP [${name}]`, () => {
    // -----------------------------------------------------------------------------------------
    describe('create', () => {
      it('creates a category: 201, Location header and the standalone term with _links', async () => {
        const app = await open()
        const res = await app.post('/categories', { name: 'Music', description: 'Music events' }, { as: 'administrator' })
        expect(res.status, res.text).toBe(201)
        const id = res.body.id
        expect(Number.isInteger(id)).toBe(true)
        expect(res.headers.get('location')).toBe(`${API}/categories/${id}`)
        expect(res.headers.get('allow')).toBe('GET, POST')
        expect(Object.keys(res.body)).toEqual([...STANDALONE_KEYS('category'), '_links'])
        expect(res.body).toEqual({
          id,
          count: 0,
          description: 'Music events',
          name: 'Music',
          slug: 'music',
          taxonomy: 'tribe_events_cat',
          parent: 0,
          meta: [],
          url: `${ORIGIN}/events/category/music/`,
          urls: { self: `${API}/categories/${id}`, collection: `${API}/categories` },
          language: 'en',
          translations: {},
          _links: termLinks('category', id, MANAGER),
        })
        const child = await app.post('/categories', { name: 'Jazz', parent: id, slug: 'jazz-music' }, { as: 'administrator' })
        expect(child.status, child.text).toBe(201)
        expect(child.body).toMatchObject({
          name: 'Jazz',
          slug: 'jazz-music',
          parent: id,
          description: '',
          url: `${ORIGIN}/events/category/jazz-music/`,
        })
        expect(child.body.urls).toEqual({
          self: `${API}/categories/${child.body.id}`,
          collection: `${API}/categories`,
          up: `${API}/categories/${id}`,
        })
        expect(child.body._links.up).toEqual([{ embeddable: true, href: `${API}/categories/${id}` }])
        expect(child.body._links).toEqual(termLinks('category', child.body.id, MANAGER, id))
        // Form bodies work the same.
        const form = await app.post('/categories', { name: 'Form Cat', parent: String(id) }, { as: 'administrator', form: true })
        expect(form.status, form.text).toBe(201)
        expect(form.body.parent).toBe(id)
      })

      it('creates a tag: no parent key, tag archive url', async () => {
        const app = await open()
        const res = await app.post('/tags', { name: 'Outdoor' }, { as: 'administrator' })
        expect(res.status, res.text).toBe(201)
        const id = res.body.id
        expect(res.headers.get('location')).toBe(`${API}/tags/${id}`)
        expect(Object.keys(res.body)).toEqual([...STANDALONE_KEYS('tag'), '_links'])
        expect(res.body).toEqual({
          id,
          count: 0,
          description: '',
          name: 'Outdoor',
          slug: 'outdoor',
          taxonomy: 'post_tag',
          meta: [],
          url: `${ORIGIN}/events/tag/outdoor/`,
          urls: { self: `${API}/tags/${id}`, collection: `${API}/tags` },
          language: 'en',
          translations: {},
          _links: termLinks('tag', id, MANAGER),
        })
      })

      for (const tax of ['category', 'tag'] as const) {
        const plural = PLURAL[tax]
        it(`requires a ${tax} name and validates the fields`, async () => {
          const app = await open()
          const missing = await app.post(`/${plural}`, { description: 'x' }, { as: 'administrator' })
          expectError(missing, 400, 'rest_missing_callback_param', 'Missing parameter(s): name')
          expect(missing.body.data).toEqual({ status: 400, params: ['name'] })
          expectInvalid(await app.post(`/${plural}`, { name: '' }, { as: 'administrator' }), ['name'])
          const typed = await app.post(`/${plural}`, { name: 12 }, { as: 'administrator' })
          expectInvalid(typed, ['name'])
          expect(typed.body.data.details.name.code).toBe('rest_invalid_type')
          expectInvalid(await app.post(`/${plural}`, { name: 'x', slug: '' }, { as: 'administrator' }), ['slug'])
          expectInvalid(await app.post(`/${plural}`, { name: 'x', [LANG]: 'xx' }, { as: 'administrator' }), [LANG])
          expect((await app.get(`/${plural}?hide_empty=0`)).body.total).toBe(0)
        })

        it(`rejects a duplicate ${tax} name under the same parent in the same language with term_exists`, async () => {
          const app = await open()
          const first = await term(app, tax, { name: 'Music' })
          for (const dup of ['Music', 'MUSIC', 'music']) {
            const res = await app.post(`/${plural}`, { name: dup }, { as: 'administrator' })
            expectError(res, 400, 'term_exists', 'A term with the name provided already exists with this parent.')
            expect(res.body.data).toEqual({ status: 400, term_id: first.id })
          }
          // Another language: allowed, with the same slug in that language.
          const ja = await app.post(`/${plural}`, { name: 'Music', [LANG]: 'ja' }, { as: 'administrator' })
          expect(ja.status, ja.text).toBe(201)
          expect(ja.body).toMatchObject({ name: 'Music', slug: 'music', language: 'ja' })
          expect(ja.body.id).not.toBe(first.id)
          const jaDup = await app.post(`/${plural}`, { name: 'Music' }, { as: 'administrator', lang: 'ja' })
          expectError(jaDup, 400, 'term_exists')
          expect(jaDup.body.data.term_id).toBe(ja.body.id)
          // An explicit slug already taken in the language is refused.
          expectError(await app.post(`/${plural}`, { name: 'Other', slug: 'music' }, { as: 'administrator' }), 400, 'duplicate_term_slug')
          // The other taxonomy is independent.
          const other = await term(app, tax === 'category' ? 'tag' : 'category', { name: 'Music' })
          expect(other.slug).toBe('music')
          expect((await app.get(`/${plural}?hide_empty=0`)).body.total).toBe(1)
        })
      }

      it('allows the same category name under a different parent', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', parent: music.id })
        const dance = await category(app, { name: 'Dance' })
        const topJazz = await app.post('/categories', { name: 'Jazz' }, { as: 'administrator' })
        expect(topJazz.status, topJazz.text).toBe(201)
        expect(topJazz.body.parent).toBe(0)
        expect(topJazz.body.slug).toBe('jazz-2')
        const danceJazz = await app.post('/categories', { name: 'Jazz', parent: dance.id }, { as: 'administrator' })
        expect(danceJazz.status).toBe(201)
        expect(danceJazz.body.slug).toBe('jazz-3')
        const again = await app.post('/categories', { name: 'Jazz', parent: music.id }, { as: 'administrator' })
        expectError(again, 400, 'term_exists')
        expect(again.body.data.term_id).toBe(jazz.id)
      })

      it('validates the parent: an existing category, and none for tags', async () => {
        const app = await open()
        const t = await tag(app, { name: 'A tag' })
        expectError(
          await app.post('/categories', { name: 'Orphan', parent: 999999 }, { as: 'administrator' }),
          400,
          'rest_term_invalid',
          'Parent term does not exist.',
        )
        expectError(await app.post('/categories', { name: 'Orphan', parent: t.id }, { as: 'administrator' }), 400, 'rest_term_invalid')
        expectInvalid(await app.post('/categories', { name: 'Orphan', parent: 'foo' }, { as: 'administrator' }), ['parent'])
        expectInvalid(await app.post('/categories', { name: 'Orphan', parent: '' }, { as: 'administrator' }), ['parent'])
        const cat = await category(app, { name: 'Cat' })
        expectError(
          await app.post('/tags', { name: 'Child tag', parent: cat.id }, { as: 'administrator' }),
          400,
          'rest_taxonomy_not_hierarchical',
          'Cannot set parent term, taxonomy is not hierarchical.',
        )
        expect((await app.get('/categories?hide_empty=0')).body.total).toBe(1)
        expect((await app.get('/tags?hide_empty=0')).body.total).toBe(1)
      })

      it('creates a term as a translation of another', async () => {
        const app = await open()
        const en = await category(app, { name: 'Music' })
        const ja = await app.post('/categories', { name: '音楽', translation_of: en.id, [LANG]: 'ja' }, { as: 'administrator' })
        expect(ja.status, ja.text).toBe(201)
        expect(ja.body.language).toBe('ja')
        expect(ja.body.translations).toEqual({ en: en.id })
        expect((await app.get(`/categories/${en.id}`)).body.translations).toEqual({ ja: ja.body.id })
        const second = await app.post('/categories', { name: 'ミュージック', translation_of: en.id, [LANG]: 'ja' }, { as: 'administrator' })
        expectInvalid(second, ['translation_of'])
        const t = await tag(app, { name: 'Tag' })
        expectInvalid(await app.post('/categories', { name: 'X', translation_of: t.id, [LANG]: 'ko' }, { as: 'administrator' }), [
          'translation_of',
        ])
        expectInvalid(await app.post('/categories', { name: 'X', translation_of: 999999, [LANG]: 'ko' }, { as: 'administrator' }), [
          'translation_of',
        ])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('single reads', () => {
      it('reads a term with _links; unknown ids and ids of the other taxonomy are 400', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music', description: 'Music events' })
        const t = await tag(app, { name: 'Outdoor' })
        const res = await app.get(`/categories/${music.id}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('allow')).toBe('GET')
        expect(res.headers.get('x-tec-total')).toBeNull()
        // Anonymous callers see the same term, with only GET allowed on it.
        expect(res.body).toEqual(readerView(music))
        expect((await app.get(`/categories/${music.id}`, { as: 'administrator' })).headers.get('allow')).toBe(
          'GET, POST, PUT, PATCH, DELETE',
        )
        expect((await app.get(`/tags/${t.id}`, { as: 'author' })).headers.get('allow')).toBe('GET')
        expect((await app.get(`/tags/${t.id}`)).body).toEqual(readerView(t))
        expect((await app.get(`/tags/${t.id}`, { as: 'editor' })).body).toEqual(t)
        const missing = await app.get('/categories/999999')
        expectInvalid(missing, ['id'])
        expect(missing.body.data).toEqual({ status: 400, params: { id: 'Invalid parameter.' }, details: [] })
        expectInvalid(await app.get(`/categories/${t.id}`), ['id'])
        expectInvalid(await app.get(`/tags/${music.id}`), ['id'])
        expectInvalid(await app.get('/tags/0'), ['id'])
        expectError(await app.get('/categories/foo'), 404, 'rest_no_route')
        expectError(await app.get('/categories/by-slug/music'), 404, 'rest_no_route')
        expectError(await app.del('/categories', { as: 'administrator' }), 404, 'rest_no_route')
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('updates', () => {
      it('updates only the fields sent; renaming keeps the slug', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', slug: 'jazz-music', parent: music.id })
        const res = await app.patch(`/categories/${jazz.id}`, { description: 'Smooth' }, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE')
        expect(res.body).toEqual({ ...jazz, description: 'Smooth' })
        const renamed = await app.put(`/categories/${jazz.id}`, { name: 'Smooth Jazz' }, { as: 'administrator' })
        expect(renamed.body).toMatchObject({ name: 'Smooth Jazz', slug: 'jazz-music', description: 'Smooth', parent: music.id })
        const reslugged = await app.post(`/categories/${jazz.id}`, { slug: 'Smooth Jazz' }, { as: 'administrator' })
        expect(reslugged.body.slug).toBe('smooth-jazz')
        expect(reslugged.body.url).toBe(`${ORIGIN}/events/category/smooth-jazz/`)
        expectError(await app.patch(`/categories/${jazz.id}`, { slug: 'music' }, { as: 'administrator' }), 400, 'duplicate_term_slug')
        // Clearing the description; moving to the top level.
        const top = await app.patch(`/categories/${jazz.id}`, { description: '', parent: 0 }, { as: 'administrator' })
        expect(top.body.description).toBe('')
        expect(top.body.parent).toBe(0)
        expect(top.body.urls).not.toHaveProperty('up')
        expect(top.body._links).not.toHaveProperty('up')
        const read = await app.get(`/categories/${jazz.id}`)
        expect(read.body).toEqual(readerView(top.body))
        // The tag route works the same way.
        const t = await tag(app, { name: 'Outdoor', description: 'Open air' })
        const tagRenamed = await app.patch(`/tags/${t.id}`, { name: 'Open Air' }, { as: 'administrator' })
        expect(tagRenamed.body).toEqual({ ...t, name: 'Open Air' })
      })

      it('validates updates: empty name, duplicate name, unknown id', async () => {
        const app = await open()
        const a = await category(app, { name: 'Alpha' })
        await category(app, { name: 'Beta' })
        expectInvalid(await app.patch(`/categories/${a.id}`, { name: '' }, { as: 'administrator' }), ['name'])
        const dup = await app.patch(`/categories/${a.id}`, { name: 'beta' }, { as: 'administrator' })
        expectError(dup, 400, 'term_exists')
        // Its own name (another case) is fine.
        expect((await app.patch(`/categories/${a.id}`, { name: 'ALPHA' }, { as: 'administrator' })).body.name).toBe('ALPHA')
        expectInvalid(await app.patch('/categories/999999', { name: 'x' }, { as: 'administrator' }), ['id'])
        const t = await tag(app, { name: 'Tag' })
        expectInvalid(await app.patch(`/categories/${t.id}`, { name: 'x' }, { as: 'administrator' }), ['id'])
        expectError(await app.patch(`/tags/${t.id}`, { parent: a.id }, { as: 'administrator' }), 400, 'rest_taxonomy_not_hierarchical')
        expect((await app.get(`/tags/${t.id}`)).body.name).toBe('Tag')
      })

      it('never lets a category become its own ancestor', async () => {
        const app = await open()
        const a = await category(app, { name: 'A' })
        const b = await category(app, { name: 'B', parent: a.id })
        const c = await category(app, { name: 'C', parent: b.id })
        for (const parent of [a.id, b.id, c.id]) {
          const res = await app.patch(`/categories/${a.id}`, { parent }, { as: 'administrator' })
          expectInvalid(res, ['parent'])
          expect(res.body.data.details.parent.code).toBe('rest_term_invalid_parent')
        }
        expectInvalid(await app.patch(`/categories/${b.id}`, { parent: c.id }, { as: 'administrator' }), ['parent'])
        expectError(await app.patch(`/categories/${b.id}`, { parent: 999999 }, { as: 'administrator' }), 400, 'rest_term_invalid')
        expect((await app.get(`/categories/${a.id}`)).body.parent).toBe(0)
        // Moving down a branch that is not its own is fine.
        const moved = await app.patch(`/categories/${c.id}`, { parent: a.id }, { as: 'administrator' })
        expect(moved.status).toBe(200)
        expect(moved.body.parent).toBe(a.id)
        expect((await app.patch(`/categories/${b.id}`, { parent: c.id }, { as: 'administrator' })).body.parent).toBe(c.id)
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('deletes', () => {
      it('deletes permanently and answers with the term as it was; a second delete is 400', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', parent: music.id, description: 'Smooth' })
        const e = await app.seed({ categories: [jazz.id, music.id] })
        const res = await app.del(`/categories/${jazz.id}`, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE')
        expect(Object.keys(res.body)).toEqual(STANDALONE_KEYS('category'))
        expect(res.body).toEqual({ ...withoutLinks(jazz), count: 1 })
        expectInvalid(await app.del(`/categories/${jazz.id}`, { as: 'administrator' }), ['id'])
        expectInvalid(await app.get(`/categories/${jazz.id}`), ['id'])
        const read = await app.get(`/events/${e.id}`)
        expect(read.body.categories.map((t: { id: number }) => t.id)).toEqual([music.id])
        expect(names(await app.get('/categories?hide_empty=0'))).toEqual(['Music'])
        expect(eventIds(await app.get(`/events?categories=${music.id}`))).toEqual([e.id])
        // The name is free again.
        expect((await app.post('/categories', { name: 'Jazz', parent: music.id }, { as: 'administrator' })).status).toBe(201)
      })

      it('moves the children of a deleted category up to its parent', async () => {
        const app = await open()
        const root = await category(app, { name: 'Root' })
        const mid = await category(app, { name: 'Mid', parent: root.id })
        const leaf = await category(app, { name: 'Leaf', parent: mid.id })
        await app.del(`/categories/${mid.id}`, { as: 'administrator' })
        const read = await app.get(`/categories/${leaf.id}`)
        expect(read.body.parent).toBe(root.id)
        expect(read.body.urls.up).toBe(`${API}/categories/${root.id}`)
        await app.del(`/categories/${root.id}`, { as: 'administrator' })
        expect((await app.get(`/categories/${leaf.id}`)).body.parent).toBe(0)
      })

      it('deletes tags, removing them from events', async () => {
        const app = await open()
        const t = await tag(app, { name: 'Outdoor' })
        const keep = await tag(app, { name: 'Indoor' })
        const e = await app.seed({ tags: [t.id, keep.id] })
        const res = await app.del(`/tags/${t.id}`, { as: 'editor' })
        expect(res.status).toBe(200)
        expect(res.body).not.toHaveProperty('_links')
        expect(res.body.count).toBe(1)
        expect(res.body.taxonomy).toBe('post_tag')
        expect((await app.get(`/events/${e.id}`)).body.tags.map((x: { id: number }) => x.id)).toEqual([keep.id])
        expectInvalid(await app.del(`/tags/${t.id}`, { as: 'editor' }), ['id'])
        expect((await app.get(`/events?tags=${t.id}`)).status).toBe(400)
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('lists', () => {
      it('hides unused terms by default; hide_empty=0 shows them', async () => {
        const app = await open()
        const used = await category(app, { name: 'Used' })
        await category(app, { name: 'Unused' })
        const draftOnly = await category(app, { name: 'Draft only' })
        await app.seed({ categories: [used.id] })
        await app.seed({ status: 'draft', categories: [draftOnly.id] })
        const res = await app.get('/categories')
        expect(res.status).toBe(200)
        expect(res.headers.get('allow')).toBe('GET')
        expect(res.headers.get('x-tec-total')).toBe('1')
        expect(res.headers.get('x-tec-totalpages')).toBe('1')
        expect(Object.keys(res.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories'])
        expect(res.body.rest_url).toBe(`${API}/categories/`)
        expect(res.body.total).toBe(1)
        expect(res.body.total_pages).toBe(1)
        expect(names(res)).toEqual(['Used'])
        // List items have no _links.
        expect(Object.keys(res.body.categories[0])).toEqual(STANDALONE_KEYS('category'))
        expect(res.body.categories[0].count).toBe(1)
        for (const off of ['0', 'false', 'FALSE']) {
          const all = await app.get(`/categories?hide_empty=${off}`)
          expect(names(all), off).toEqual(['Draft only', 'Unused', 'Used'])
          expect(all.body.total).toBe(3)
        }
        expect(names(await app.get('/categories?hide_empty=1'))).toEqual(['Used'])
        expectInvalid(await app.get('/categories?hide_empty=maybe'), ['hide_empty'])
        // Even admins get the default: hiding is not about visibility.
        expect(names(await app.get('/categories', { as: 'administrator' }))).toEqual(['Used'])
        // Tags too.
        const t = await tag(app, { name: 'Lonely' })
        expect((await app.get('/tags')).body.tags).toEqual([])
        expect((await app.get('/tags?hide_empty=0')).body.tags.map((x: { id: number }) => x.id)).toEqual([t.id])
      })

      it('searches names and slugs, literally', async () => {
        const app = await open()
        await category(app, { name: 'Jazz', slug: 'jazz-music' })
        await category(app, { name: 'Foo', slug: 'foo-bar' })
        await category(app, { name: 'Sale 50% Off' })
        await category(app, { name: 'Top 500' })
        await category(app, { name: 'snake_case' })
        await category(app, { name: 'snakeXcase' })
        const search = async (q: string) => names(await app.get(`/categories?hide_empty=0&search=${encodeURIComponent(q)}`))
        expect(await search('jaz')).toEqual(['Jazz'])
        expect(await search('JAZZ')).toEqual(['Jazz'])
        expect(await search('music')).toEqual(['Jazz'])
        expect(await search('bar')).toEqual(['Foo'])
        // LIKE wildcards are plain characters.
        expect(await search('0%')).toEqual(['Sale 50% Off'])
        expect(await search('%')).toEqual(['Sale 50% Off'])
        expect(await search('e_c')).toEqual(['snake_case'])
        expect(await search('_')).toEqual(['snake_case'])
        expect(await search('nothing')).toEqual([])
        const res = await app.get('/categories?hide_empty=0&search=a')
        expect(res.body.total).toBe(names(res).length)
        expect(res.body.rest_url).toBe(`${API}/categories/?search=a&hide_empty=0`)
        expectInvalid(await app.get('/categories?search='), ['search'])
      })

      it('includes and excludes by ID or slug; unknown ones are 400', async () => {
        const app = await open()
        const a = await category(app, { name: 'Alpha' })
        const b = await category(app, { name: 'Beta' })
        const c = await category(app, { name: 'Gamma' })
        const t = await tag(app, { name: 'Tag' })
        expect(names(await app.get(`/categories?hide_empty=0&include=${a.id},${c.id}`))).toEqual(['Alpha', 'Gamma'])
        expect(names(await app.get(`/categories?hide_empty=0&include[]=beta&include[]=${c.id}`))).toEqual(['Beta', 'Gamma'])
        expect(names(await app.get(`/categories?hide_empty=0&exclude=${b.id}`))).toEqual(['Alpha', 'Gamma'])
        expect(names(await app.get('/categories?hide_empty=0&exclude=alpha,gamma'))).toEqual(['Beta'])
        expect(names(await app.get(`/categories?hide_empty=0&include=${a.id},${b.id}&exclude=${b.id}`))).toEqual(['Alpha'])
        // include does not bypass hide_empty.
        expect(names(await app.get(`/categories?include=${a.id}`))).toEqual([])
        expectInvalid(await app.get('/categories?include=999999'), ['include'])
        expectInvalid(await app.get('/categories?include=nope'), ['include'])
        expectInvalid(await app.get(`/categories?exclude=${t.id}`), ['exclude'])
        expectInvalid(await app.get(`/categories?include=999999&exclude=nope`), ['include', 'exclude'])
        expectInvalid(await app.get(`/tags?include=${a.id}`), ['include'])
        expect((await app.get(`/tags?hide_empty=0&include=tag`)).body.tags.map((x: { id: number }) => x.id)).toEqual([t.id])
      })

      it('orders by name ascending by default; order and orderby change it', async () => {
        const app = await open()
        const b = await category(app, { name: 'beta', slug: 'z-beta' })
        const a = await category(app, { name: 'Alpha', slug: 'y-alpha' })
        const c = await category(app, { name: 'Gamma', slug: 'x-gamma' })
        await app.seed({ categories: [c.id, b.id] })
        await app.seed({ categories: [c.id] })
        await app.seed({ categories: [a.id, b.id, c.id] })
        const order = async (q: string) => names(await app.get(`/categories?hide_empty=0&${q}`))
        expect(await order('')).toEqual(['Alpha', 'beta', 'Gamma'])
        expect(await order('order=asc')).toEqual(['Alpha', 'beta', 'Gamma'])
        expect(await order('order=ASC')).toEqual(['Alpha', 'beta', 'Gamma'])
        expect(await order('order=desc')).toEqual(['Gamma', 'beta', 'Alpha'])
        expect(await order('order=anything')).toEqual(['Gamma', 'beta', 'Alpha'])
        expect(await order('orderby=name&order=desc')).toEqual(['Gamma', 'beta', 'Alpha'])
        expect(await order('orderby=id')).toEqual(['beta', 'Alpha', 'Gamma'])
        expect(await order('orderby=term_id&order=desc')).toEqual(['Gamma', 'Alpha', 'beta'])
        expect(await order('orderby=slug')).toEqual(['Gamma', 'Alpha', 'beta'])
        expect(await order('orderby=count&order=desc')).toEqual(['Gamma', 'beta', 'Alpha'])
        expect(await order('orderby=count')).toEqual(['Alpha', 'beta', 'Gamma'])
        expectInvalid(await app.get('/categories?order='), ['order'])
        expectInvalid(await app.get('/categories?orderby='), ['orderby'])
      })

      it('filters categories by parent (direct children only); tags ignore parent', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', parent: music.id })
        await category(app, { name: 'Bebop', parent: jazz.id })
        await category(app, { name: 'Rock', parent: music.id })
        await category(app, { name: 'Sports' })
        expect(names(await app.get(`/categories?hide_empty=0&parent=${music.id}`))).toEqual(['Jazz', 'Rock'])
        expect(names(await app.get(`/categories?hide_empty=0&parent=${jazz.id}`))).toEqual(['Bebop'])
        expect(names(await app.get('/categories?hide_empty=0&parent=0'))).toEqual(['Music', 'Sports'])
        expectInvalid(await app.get('/categories?parent=999999'), ['parent'])
        expectInvalid(await app.get('/categories?parent=foo'), ['parent'])
        expectInvalid(await app.get('/categories?parent='), ['parent'])
        const t = await tag(app, { name: 'Outdoor' })
        expectInvalid(await app.get(`/categories?parent=${t.id}`), ['parent'])
        // Tags are flat: `parent` is not one of their list parameters and changes nothing.
        const tags = await app.get('/tags?hide_empty=0&parent=999999')
        expect(tags.status).toBe(200)
        expect(tags.body.tags.map((x: { id: number }) => x.id)).toEqual([t.id])
        expect(tags.body.rest_url).toBe(`${API}/tags/?hide_empty=0`)
      })

      it('filters by event (post or event parameter) and by slug', async () => {
        const app = await open()
        const a = await category(app, { name: 'Alpha' })
        const b = await category(app, { name: 'Beta' })
        const t = await tag(app, { name: 'Tagged' })
        const e1 = await app.seed({ categories: [a.id], tags: [t.id] })
        const e2 = await app.seed({ categories: [b.id] })
        const draft = await app.seed({ status: 'draft', categories: [a.id, b.id] })
        const v = (await app.post('/venues', { venue: 'Hall' }, { as: 'administrator' })).body
        expect(names(await app.get(`/categories?event=${e1.id}`))).toEqual(['Alpha'])
        expect(names(await app.get(`/categories?post=${e2.id}`))).toEqual(['Beta'])
        // event wins over post.
        expect(names(await app.get(`/categories?post=${e2.id}&event=${e1.id}`))).toEqual(['Alpha'])
        expect(names(await app.get(`/categories?event=${draft.id}&hide_empty=0`))).toEqual(['Alpha', 'Beta'])
        expect((await app.get(`/tags?post=${e1.id}`)).body.tags.map((x: { id: number }) => x.id)).toEqual([t.id])
        expect((await app.get(`/tags?post=${e2.id}`)).body.tags).toEqual([])
        expectInvalid(await app.get('/categories?event=999999'), ['event'])
        expectInvalid(await app.get('/categories?post=999999'), ['post'])
        expectInvalid(await app.get(`/categories?post=${v.id}`), ['post'])
        expectInvalid(await app.get('/categories?post=foo'), ['post'])
        expectInvalid(await app.get('/categories?post='), ['post'])
        expect(names(await app.get('/categories?slug=beta'))).toEqual(['Beta'])
        expect(names(await app.get('/categories?slug=nope'))).toEqual([])
        expectInvalid(await app.get('/categories?slug='), ['slug'])
      })

      it('pages with the term envelope; a page past the last is 200 with an empty list', async () => {
        const app = await open()
        for (const n of ['Alpha', 'Beta', 'Gamma']) await category(app, { name: n })
        const p1 = await app.get('/categories?hide_empty=0&per_page=1')
        expect(names(p1)).toEqual(['Alpha'])
        expect(p1.headers.get('x-tec-total')).toBe('3')
        expect(p1.headers.get('x-tec-totalpages')).toBe('3')
        expect(Object.keys(p1.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url'])
        expect(p1.body.rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0`)
        expect(p1.body.next_rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0&page=2`)
        const p2 = await app.get('/categories?hide_empty=0&per_page=1&page=2')
        expect(names(p2)).toEqual(['Beta'])
        expect(Object.keys(p2.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url', 'previous_rest_url'])
        expect(p2.body.next_rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0&page=3`)
        expect(p2.body.previous_rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0`)
        const p3 = await app.get('/categories?hide_empty=0&per_page=1&page=3')
        expect(names(p3)).toEqual(['Gamma'])
        expect(p3.body).not.toHaveProperty('next_rest_url')
        expect(p3.body.previous_rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0&page=2`)
        const past = await app.get('/categories?hide_empty=0&per_page=1&page=7')
        expect(past.status).toBe(200)
        expect(past.body.categories).toEqual([])
        expect(past.body.total).toBe(3)
        expect(past.body.total_pages).toBe(3)
        expect(past.body).not.toHaveProperty('next_rest_url')
        expect(past.body.previous_rest_url).toBe(`${API}/categories/?per_page=1&hide_empty=0&page=6`)
        expect(past.headers.get('x-tec-total')).toBe('3')
        const empty = await app.get('/tags?page=2')
        expect(empty.status).toBe(200)
        expect(empty.body).toEqual({ rest_url: `${API}/tags/`, total: 0, total_pages: 0, tags: [], previous_rest_url: `${API}/tags/` })
        const capped = await app.get('/categories?hide_empty=0&per_page=5000')
        expect(capped.status).toBe(200)
        expect(names(capped)).toHaveLength(3)
        expectInvalid(await app.get('/categories?page=0'), ['page'])
        expectInvalid(await app.get('/categories?per_page=0'), ['per_page'])
      })

      it('scopes lists, look-ups and name matching to the request language', async () => {
        const app = await open()
        const en = await category(app, { name: 'Music' })
        const ja = (await app.post('/categories', { name: 'Music' }, { as: 'administrator', lang: 'ja' })).body
        const ko = (await app.post('/categories', { name: '음악', [LANG]: 'ko' }, { as: 'administrator' })).body
        expect(ja.language).toBe('ja')
        expect(ko.slug).toBe('음악')
        const ids = (res: Res) => res.body.categories.map((t: { id: number }) => t.id)
        expect(ids(await app.get('/categories?hide_empty=0'))).toEqual([en.id])
        expect(ids(await app.get(`/categories?hide_empty=0&${LANG}=ja`))).toEqual([ja.id])
        expect(ids(await app.get('/categories?hide_empty=0', { lang: 'ko' }))).toEqual([ko.id])
        const jaList = await app.get('/categories?hide_empty=0', { lang: 'ja' })
        expect(jaList.body.rest_url).toBe(`${ORIGIN}/ja/wp-json/${NS}/categories/?hide_empty=0`)
        expect(jaList.body.categories[0].urls.self).toBe(`${ORIGIN}/ja/wp-json/${NS}/categories/${ja.id}`)
        // Slugs in include/exclude resolve in the request language only.
        expect(ids(await app.get(`/categories?hide_empty=0&include=music&${LANG}=ja`))).toEqual([ja.id])
        expectInvalid(await app.get('/categories?include=음악'), ['include'])
        // IDs are global: a single read works from any language.
        expect((await app.get(`/categories/${ja.id}`)).body.language).toBe('ja')
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('counts', () => {
      it('counts published events only, following creates, updates and trashing', async () => {
        const app = await open()
        const cat = await category(app, { name: 'Counted' })
        const other = await category(app, { name: 'Other' })
        const t = await tag(app, { name: 'Counted tag' })
        expect(await count(app, 'category', cat.id)).toBe(0)
        const e1 = await app.seed({ categories: [cat.id], tags: [t.id] })
        expect(e1.categories[0].count).toBe(1)
        expect(await count(app, 'category', cat.id)).toBe(1)
        expect(await count(app, 'tag', t.id)).toBe(1)
        const draft = await app.seed({ status: 'draft', categories: [cat.id] })
        expect(await count(app, 'category', cat.id)).toBe(1)
        const e3 = await app.seed({ categories: [cat.id, other.id], tags: [t.id] })
        expect(await count(app, 'category', cat.id)).toBe(2)
        expect(await count(app, 'tag', t.id)).toBe(2)
        // Moving an event to another category.
        await app.patch(`/events/${e3.id}`, { categories: [other.id] }, { as: 'administrator' })
        expect(await count(app, 'category', cat.id)).toBe(1)
        expect(await count(app, 'category', other.id)).toBe(1)
        // Publishing the draft.
        await app.patch(`/events/${draft.id}`, { status: 'publish' }, { as: 'administrator' })
        expect(await count(app, 'category', cat.id)).toBe(2)
        // Unpublishing and trashing.
        await app.patch(`/events/${draft.id}`, { status: 'draft' }, { as: 'administrator' })
        expect(await count(app, 'category', cat.id)).toBe(1)
        await app.del(`/events/${e1.id}`, { as: 'administrator' })
        expect(await count(app, 'category', cat.id)).toBe(0)
        expect(await count(app, 'tag', t.id)).toBe(1)
        // Lists show the same counts, and hide_empty follows them.
        const list = await app.get('/categories?hide_empty=0')
        expect(list.body.categories.map((x: { name: string; count: number }) => [x.name, x.count])).toEqual([
          ['Counted', 0],
          ['Other', 1],
        ])
        expect(names(await app.get('/categories'))).toEqual(['Other'])
        // Embedded terms carry the count too.
        const read = await app.get(`/events/${e3.id}`)
        expect(read.body.categories[0]).toMatchObject({ id: other.id, count: 1, taxonomy: 'tribe_events_cat' })
      })

      it("counts only events of the term's language; a parent does not count its children's events", async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', parent: music.id })
        const jaMusic = (await app.post('/categories', { name: 'Music', translation_of: music.id }, { as: 'administrator', lang: 'ja' }))
          .body
        await app.seed({ categories: [jazz.id] })
        await app.seed({ title: 'ジャズ', categories: ['Music'], [LANG]: 'ja' })
        expect(await count(app, 'category', music.id)).toBe(0)
        expect(await count(app, 'category', jazz.id)).toBe(1)
        expect(await count(app, 'category', jaMusic.id)).toBe(1)
        // An English event cannot carry the Japanese term: its ID is ignored like an unknown one.
        const en = await app.seed({ categories: [jaMusic.id, music.id] })
        expect(en.categories.map((t: { id: number }) => t.id)).toEqual([music.id])
        expect(await count(app, 'category', jaMusic.id)).toBe(1)
        expect(await count(app, 'category', music.id)).toBe(1)
        expect((await app.get('/categories', { lang: 'ja' })).body.categories.map((t: { count: number }) => t.count)).toEqual([1])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('events by category', () => {
      it('includes events of child categories when filtering by a parent', async () => {
        const app = await open()
        const music = await category(app, { name: 'Music' })
        const jazz = await category(app, { name: 'Jazz', slug: 'jazz-music', parent: music.id })
        const bebop = await category(app, { name: 'Bebop', parent: jazz.id })
        const sports = await category(app, { name: 'Sports' })
        const t = await tag(app, { name: 'Outdoor' })
        const at = (d: string) => ({ start_date: `2026-11-${d} 10:00:00`, end_date: `2026-11-${d} 11:00:00` })
        const inMusic = await app.seed({ ...at('24'), categories: [music.id] })
        const inJazz = await app.seed({ ...at('25'), categories: [jazz.id], tags: [t.id] })
        const inBebop = await app.seed({ ...at('26'), categories: [bebop.id] })
        const inSports = await app.seed({ ...at('27'), categories: [sports.id], tags: [t.id] })
        await app.seed({ ...at('28') })
        expect(eventIds(await app.get(`/events?categories=${music.id}`))).toEqual([inMusic.id, inJazz.id, inBebop.id])
        expect(eventIds(await app.get('/events?categories=music'))).toEqual([inMusic.id, inJazz.id, inBebop.id])
        expect(eventIds(await app.get('/events?categories=jazz-music'))).toEqual([inJazz.id, inBebop.id])
        expect(eventIds(await app.get(`/events?categories=${bebop.id}`))).toEqual([inBebop.id])
        expect(eventIds(await app.get(`/events?categories=${bebop.id},sports`))).toEqual([inBebop.id, inSports.id])
        // Tags are flat; categories and tags combine with AND.
        expect(eventIds(await app.get(`/events?tags=${t.id}`))).toEqual([inJazz.id, inSports.id])
        expect(eventIds(await app.get(`/events?tags=outdoor&categories=music`))).toEqual([inJazz.id])
        const filtered = await app.get('/events?categories=music')
        expect(filtered.body.rest_url).toContain('categories=music')
        expectInvalid(await app.get('/events?categories=nope'), ['categories'])
        expectInvalid(await app.get(`/events?categories=${t.id}`), ['categories'])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('permissions', () => {
      it('lets an event write create terms by name only for callers who may create them', async () => {
        const app = await open()
        const existing = await category(app, { name: 'Music' })
        const ev = { title: 'Gig', start_date: '2026-12-01 19:00', end_date: '2026-12-01 20:00' }
        // A contributor may use existing terms by name, but not invent new ones.
        const ok = await app.post('/events', { ...ev, categories: ['Music'] }, { as: 'contributor' })
        expect(ok.status).toBe(201)
        expect(ok.body.categories.map((t: { id: number }) => t.id)).toEqual([existing.id])
        const denied = await app.post('/events', { ...ev, categories: ['Brand new'] }, { as: 'contributor' })
        expect(denied.status).toBe(400)
        expect(denied.body.data.details.categories.code).toBe('rest_cannot_create_term')
        // Authors manage categories but not tags.
        expect((await app.post('/events', { ...ev, categories: ['Brand new'] }, { as: 'author' })).status).toBe(201)
        const tagDenied = await app.post('/events', { ...ev, tags: ['fresh-tag'] }, { as: 'author' })
        expect(tagDenied.status).toBe(400)
        expect(tagDenied.body.data.params.tags).toContain('fresh-tag')
        expect((await app.post('/events', { ...ev, tags: ['fresh-tag'] }, { as: 'editor' })).status).toBe(201)
        expect(names(await app.get('/categories?hide_empty=0'))).toEqual(['Brand new', 'Music'])
      })

      const cases: Array<[Tax, Caller | undefined, number]> = [
        ['category', undefined, 401],
        ['category', 'subscriber', 403],
        ['category', 'contributor', 403],
        ['category', 'author', 0],
        ['category', 'editor', 0],
        ['tag', undefined, 401],
        ['tag', 'subscriber', 403],
        ['tag', 'contributor', 403],
        ['tag', 'author', 403],
        ['tag', 'editor', 0],
        ['tag', 'administrator', 0],
      ]
      for (const [tax, as, denied] of cases) {
        const plural = PLURAL[tax]
        it(`${denied ? 'refuses' : 'allows'} ${tax} writes by ${as ?? 'anonymous callers'}`, async () => {
          const app = await open()
          const existing = await term(app, tax, { name: 'Existing' })
          const opts = as ? { as } : {}
          const list = await app.get(`/${plural}?hide_empty=0`, opts)
          expect(list.status).toBe(200)
          expect(list.headers.get('allow')).toBe(denied ? 'GET' : 'GET, POST')
          const single = await app.get(`/${plural}/${existing.id}`, opts)
          expect(single.status).toBe(200)
          expect(single.headers.get('allow')).toBe(denied ? 'GET' : 'GET, POST, PUT, PATCH, DELETE')
          if (denied) {
            const status = denied as 401 | 403
            expectForbidden(await app.post(`/${plural}`, { name: 'New' }, opts), status)
            // Authorization comes before validation (docs/wire-compatibility.md §5.2).
            expectForbidden(await app.post(`/${plural}`, {}, opts), status)
            expectForbidden(await app.patch(`/${plural}/${existing.id}`, { name: 'Renamed' }, opts), status)
            expectForbidden(await app.put(`/${plural}/999999`, { name: '' }, opts), status)
            expectForbidden(await app.del(`/${plural}/${existing.id}`, opts), status)
            expectForbidden(await app.del(`/${plural}/999999`, opts), status)
            const after = await app.get(`/${plural}?hide_empty=0`)
            expect(after.body[plural].map((t: { name: string }) => t.name)).toEqual(['Existing'])
          } else {
            const created = await app.post(`/${plural}`, { name: 'New' }, opts)
            expect(created.status, created.text).toBe(201)
            const updated = await app.patch(`/${plural}/${existing.id}`, { name: 'Renamed' }, opts)
            expect(updated.status).toBe(200)
            expect(updated.body.name).toBe('Renamed')
            expect((await app.del(`/${plural}/${created.body.id}`, opts)).status).toBe(200)
            expectInvalid(await app.put(`/${plural}/999999`, { name: 'x' }, opts), ['id'])
          }
        })
      }
    })
  })
}

/** A term as lists and deletes show it: the create/read body without `_links`. */
function withoutLinks(t: Record<string, unknown>) {
  const { _links: _ignored, ...rest } = t
  return rest
}

const MANAGER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** The `_links` of a standalone term (docs/wire-compatibility.md §7.6: the reference's set and order, pointing at this namespace). */
function termLinks(tax: Tax, id: number, allow: string[], parent = 0) {
  const plural = PLURAL[tax]
  return {
    self: [{ href: `${API}/${plural}/${id}`, targetHints: { allow } }],
    collection: [{ href: `${API}/${plural}` }],
    about: [{ href: `${API}/doc` }],
    ...(parent ? { up: [{ embeddable: true, href: `${API}/${plural}/${parent}` }] } : {}),
    'wp:post_type': [{ href: `${API}/events?${plural}=${id}` }],
    curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
  }
}

/** A term as a caller who may not manage terms reads it: only GET in the self link's hints. */
function readerView(t: any) {
  return { ...t, _links: { ...t._links, self: [{ ...t._links.self[0], targetHints: { allow: ['GET'] } }] } }
}
