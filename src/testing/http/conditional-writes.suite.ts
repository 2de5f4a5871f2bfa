/**
 * Conditional writes: single reads and write replies carry a strong ETag; If-Match on every
 * write that names a record (update by POST/PUT/PATCH, delete; by id and by slug) answers 412
 * and writes nothing unless it matches the record as it stands.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

const STRONG = /^"[0-9a-z]+-[0-9a-z]+"$/

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage)
  onTestFinished(() => app.close())
  return app
}

/** One kind of record: how to make one, its paths, and an update body. */
interface Kind {
  name: string
  make(app: App): Promise<{ id: number; slug?: string }>
  path: string
  bySlug: boolean
  update: Record<string, unknown>
  field: string
}

const KINDS: Kind[] = [
  {
    name: 'event',
    make: (app) => app.seed({ title: 'Concert' }),
    path: '/events',
    bySlug: true,
    update: { title: 'Changed' },
    field: 'title',
  },
  {
    name: 'venue',
    make: async (app) => (await app.post('/venues', { venue: 'Hall', status: 'publish' }, { as: 'administrator' })).body,
    path: '/venues',
    bySlug: true,
    update: { venue: 'Changed' },
    field: 'venue',
  },
  {
    name: 'organizer',
    make: async (app) => (await app.post('/organizers', { organizer: 'Org', status: 'publish' }, { as: 'administrator' })).body,
    path: '/organizers',
    bySlug: true,
    update: { organizer: 'Changed' },
    field: 'organizer',
  },
  {
    name: 'category',
    make: async (app) => (await app.post('/categories', { name: 'Music' }, { as: 'administrator' })).body,
    path: '/categories',
    bySlug: false,
    update: { name: 'Changed' },
    field: 'name',
  },
  {
    name: 'tag',
    make: async (app) => (await app.post('/tags', { name: 'Jazz' }, { as: 'administrator' })).body,
    path: '/tags',
    bySlug: false,
    update: { name: 'Changed' },
    field: 'name',
  },
]

export function conditionalWritesSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`conditional writes [${name}]`, () => {
    for (const kind of KINDS) {
      it(`${kind.name}: single reads and write replies carry the strong ETag If-Match compares`, async () => {
        const app = await open(makeStorage)
        const rec = await kind.make(app)
        const read = await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })
        const tag = read.headers.get('etag')
        expect(tag).toMatch(STRONG)
        // Stable while nothing changes, and answering If-None-Match with 304.
        expect((await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })).headers.get('etag')).toBe(tag)
        expect((await app.get(`${kind.path}/${rec.id}`, { as: 'administrator', headers: { 'If-None-Match': tag! } })).status).toBe(304)
        const written = await app.patch(`${kind.path}/${rec.id}`, kind.update, { as: 'administrator', headers: { 'If-Match': tag! } })
        expect(written.status, written.text).toBe(200)
        expect(written.body[kind.field]).toBe('Changed')
        const next = written.headers.get('etag')
        expect(next).toMatch(STRONG)
        expect(next).not.toBe(tag)
        // The reply's tag is the one the next read gives, so conditional writes chain.
        expect((await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })).headers.get('etag')).toBe(next)
        // Lists keep a weak validator.
        expect((await app.get(kind.path, { as: 'administrator' })).headers.get('etag')).toMatch(/^W\//)
      })

      it(`${kind.name}: a stale, weak or unparsable If-Match is a 412 on every write route and writes nothing`, async () => {
        const app = await open(makeStorage)
        const rec = await kind.make(app)
        const stale = (await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })).headers.get('etag')!
        // Someone else writes first.
        expect((await app.patch(`${kind.path}/${rec.id}`, { description: 'first editor' }, { as: 'administrator' })).status).toBe(200)
        const before = await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })
        const targets = [`${kind.path}/${rec.id}`, ...(kind.bySlug ? [`${kind.path}/by-slug/${before.body.slug}`] : [])]
        for (const target of targets) {
          for (const ifMatch of [stale, `W/${before.headers.get('etag')}`, 'garbage', '"nope"', '']) {
            for (const method of ['POST', 'PUT', 'PATCH'] as const) {
              const send = method === 'POST' ? app.post : method === 'PUT' ? app.put : app.patch
              const res = await send(target, kind.update, { as: 'administrator', headers: { 'If-Match': ifMatch } })
              expect(res.status, `${method} ${target} If-Match ${ifMatch}: ${res.text}`).toBe(412)
              expect(res.body.code).toBe('rest_precondition_failed')
              expect(res.body.data.status).toBe(412)
            }
            const del = await app.del(`${target}${kind.name === 'category' || kind.name === 'tag' ? '?force=true' : ''}`, {
              as: 'administrator',
              headers: { 'If-Match': ifMatch },
            })
            expect(del.status, `DELETE ${target} If-Match ${ifMatch}: ${del.text}`).toBe(412)
          }
        }
        const after = await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })
        expect(after.status).toBe(200)
        expect(after.text).toBe(before.text)
        expect(after.headers.get('etag')).toBe(before.headers.get('etag'))
      })

      it(`${kind.name}: If-Match * or the current tag lets updates and deletes through, by id and by slug`, async () => {
        const app = await open(makeStorage)
        const rec = await kind.make(app)
        const starred = await app.put(`${kind.path}/${rec.id}`, kind.update, { as: 'administrator', headers: { 'If-Match': '*' } })
        expect(starred.status, starred.text).toBe(200)
        const tag = starred.headers.get('etag')!
        // A list of tags matches when one of them does.
        const listed = await app.post(
          `${kind.path}/${rec.id}`,
          { description: 'x' },
          { as: 'administrator', headers: { 'If-Match': `"other", ${tag}` } },
        )
        expect(listed.status, listed.text).toBe(200)
        if (kind.bySlug) {
          const bySlug = await app.patch(
            `${kind.path}/by-slug/${listed.body.slug}`,
            { description: 'y' },
            {
              as: 'administrator',
              headers: { 'If-Match': listed.headers.get('etag')! },
            },
          )
          expect(bySlug.status, bySlug.text).toBe(200)
          expect(bySlug.headers.get('etag')).toMatch(STRONG)
        }
        const current = (await app.get(`${kind.path}/${rec.id}`, { as: 'administrator' })).headers.get('etag')!
        const force = kind.name === 'category' || kind.name === 'tag' ? '?force=true' : ''
        const gone = await app.del(`${kind.path}/${rec.id}${force}`, { as: 'administrator', headers: { 'If-Match': current } })
        expect(gone.status, gone.text).toBe(200)
        // `*` on a record that no longer exists matches nothing.
        const missing = await app.patch(`${kind.path}/999999`, kind.update, { as: 'administrator', headers: { 'If-Match': '*' } })
        expect([400, 404, 412]).toContain(missing.status)
      })
    }

    it('an imported record: the administrator’s fresh tag (from a read or a write reply, with import_source) lets an update through', async () => {
      const app = await open(makeStorage)
      const links = app.storage.importLinks
      if (!links) throw new Error('every backend of the suites keeps import links')
      const event = await app.seed({ title: 'Imported' })
      const venue = (await app.post('/venues', { venue: 'Imported hall', status: 'publish' }, { as: 'administrator' })).body
      const link = { source: 'ics:https://example.org/cal.ics', fingerprint: 'f', importedFields: {}, importedAt: '2026-11-20 10:00:00' }
      await links.putLink({ ...link, kind: 'event', sourceId: 'uid-1', recordId: event.id })
      await links.putLink({ ...link, kind: 'venue', sourceId: 'venue-1', recordId: venue.id })
      for (const [path, update] of [
        [`/events/${event.id}`, { title: 'Edited here' }],
        [`/venues/${venue.id}`, { venue: 'Edited hall' }],
      ] as const) {
        const read = await app.get(path, { as: 'administrator' })
        expect(read.body.import_source.source_id).toMatch(/-1$/)
        const written = await app.patch(path, update, { as: 'administrator', headers: { 'If-Match': read.headers.get('etag')! } })
        expect(written.status, `${path}: ${written.text}`).toBe(200)
        expect(written.body.import_source.source).toBe(link.source)
        // The write reply's tag chains into the next conditional write, the delete included.
        const again = await app.patch(
          path,
          { description: 'local' },
          { as: 'administrator', headers: { 'If-Match': written.headers.get('etag')! } },
        )
        expect(again.status, `${path}: ${again.text}`).toBe(200)
        const gone = await app.del(path, { as: 'administrator', headers: { 'If-Match': again.headers.get('etag')! } })
        expect(gone.status, `${path}: ${gone.text}`).toBe(200)
      }
    })

    it('a create reply carries the tag of the record’s first read, for every kind and caller who may write', async () => {
      const app = await open(makeStorage)
      const day = { start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' }
      const venue = { venue: 'Hall', status: 'publish', address: '1 Main St', show_map: true }
      const creates: Array<[string, Record<string, unknown>]> = [
        ['/events', { title: 'Published', status: 'publish', ...day, venue, organizer: { organizer: 'Org' }, categories: ['Music'] }],
        ['/events', { title: 'Draft', status: 'draft', ...day }],
        ['/events', { title: 'Weekly', status: 'publish', ...day, recurrence: 'FREQ=WEEKLY;COUNT=3' }],
        ['/venues', venue],
        ['/organizers', { organizer: 'Org', status: 'publish', email: 'org@example.com' }],
        ['/categories', { name: 'Film' }],
      ]
      for (const as of ['administrator', 'author'] as const)
        for (const [path, body] of creates) {
          if (as === 'author' && path === '/categories') continue
          const made = await app.post(path, body, { as })
          expect(made.status, made.text).toBe(201)
          const tag = made.headers.get('etag')
          expect(tag, `${as} ${path}`).toMatch(STRONG)
          expect(
            (await app.get(`${path}/${made.body.id}`, { as })).headers.get('etag'),
            `${as} ${path} ${JSON.stringify(body.title)}`,
          ).toBe(tag)
        }
    })

    it('two editors load one event: the second conditional PATCH is refused instead of overwriting the first', async () => {
      const app = await open(makeStorage)
      const event = await app.seed({ title: 'Shared', description: 'original' })
      const [a, b] = await Promise.all([
        app.get(`/events/${event.id}`, { as: 'editor' }),
        app.get(`/events/${event.id}`, { as: 'administrator' }),
      ])
      const [first, second] = await Promise.all([
        app.patch(`/events/${event.id}`, { description: 'by A' }, { as: 'editor', headers: { 'If-Match': a.headers.get('etag')! } }),
        app.patch(`/events/${event.id}`, { description: 'by B' }, { as: 'administrator', headers: { 'If-Match': b.headers.get('etag')! } }),
      ])
      expect([first.status, second.status].sort()).toEqual([200, 412])
      const winner = first.status === 200 ? 'by A' : 'by B'
      expect((await app.get(`/events/${event.id}`)).body.description).toContain(winner)
    })

    it('a tag depends on what the caller reads: an editor’s tag does not match for the anonymous reader’s view', async () => {
      const app = await open(makeStorage)
      const venue = (await app.post('/venues', { venue: 'Secret', status: 'draft' }, { as: 'administrator' })).body
      const event = await app.seed({ title: 'With venue', venue: venue.id })
      const editor = (await app.get(`/events/${event.id}`, { as: 'editor' })).headers.get('etag')
      const anonymous = (await app.get(`/events/${event.id}`)).headers.get('etag')
      expect(editor).toMatch(STRONG)
      expect(anonymous).toMatch(STRONG)
      expect(editor).not.toBe(anonymous)
    })
  })
}
