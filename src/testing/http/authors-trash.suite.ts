/**
 * Who a record belongs to and how it leaves: `author` must name a user (the `users` option),
 * trash semantics of updates, permanent delete (`force=true`) and emptying the trash, as the
 * reference records them. Runs unchanged on every storage backend; data is seeded through the
 * API only.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { CalendarOptions } from '../../options.js'
import type { Change } from '../../cache/observed.js'
import type { Storage } from '../../storage/types.js'
import { NS, makeApp, NOW, ORIGIN, USERS, type App, expectError, expectInvalid, createOk, adminTotal } from './harness.js'

const EVENT = { start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' }
const KNOWN_IDS = new Set<number>(Object.values(USERS).map((u) => u.id))
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const
const NAME_FIELD = { venue: 'venue', organizer: 'organizer' } as const

const tick = () => new Promise((r) => setTimeout(r, 0))

export function authorsTrashSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }
  const create = createOk

  describe(`author must name a user [${name}]`, () => {
    const users = { exists: (id: number) => KNOWN_IDS.has(id) }

    it('answers 400 naming author for an unknown user on every create and update, storing nothing', async () => {
      const app = await open({ users })
      const event = await app.seed({ title: 'Kept' })
      const venue = await create(app, '/venues', { venue: 'Kept Hall' })
      const organizer = await create(app, '/organizers', { organizer: 'Kept Org' })
      const before = {
        events: await adminTotal(app, '/events'),
        venues: await adminTotal(app, '/venues'),
        organizers: await adminTotal(app, '/organizers'),
      }
      const bad = { author: 987654321 }
      expectInvalid(await app.post('/events', { title: 'X', ...EVENT, ...bad }, { as: 'administrator' }), ['author'])
      expectInvalid(await app.post('/venues', { venue: 'X', ...bad }, { as: 'administrator' }), ['author'])
      expectInvalid(await app.post('/organizers', { organizer: 'X', ...bad }, { as: 'administrator' }), ['author'])
      expectInvalid(await app.patch(`/events/${event.id}`, { title: 'Changed', ...bad }, { as: 'administrator' }), ['author'])
      expectInvalid(await app.put(`/venues/${venue.id}`, { venue: 'Changed', ...bad }, { as: 'editor' }), ['author'])
      expectInvalid(
        await app.post(`/organizers/${organizer.id}`, { organizer: 'Changed', author: '987654321' }, { as: 'administrator', form: true }),
        ['author'],
      )
      expect({
        events: await adminTotal(app, '/events'),
        venues: await adminTotal(app, '/venues'),
        organizers: await adminTotal(app, '/organizers'),
      }).toEqual(before)
      expect((await app.get(`/events/${event.id}`)).body).toMatchObject({ title: 'Kept', author: '1' })
      expect((await app.get(`/venues/${venue.id}`)).body).toMatchObject({ venue: 'Kept Hall', author: '1' })
      expect((await app.get(`/organizers/${organizer.id}`)).body).toMatchObject({ organizer: 'Kept Org', author: '1' })
    })

    it('accepts existing users (the directory may answer asynchronously); others need editor and up', async () => {
      const asked: number[] = []
      const app = await open({ users: { exists: (id) => (asked.push(id), Promise.resolve(KNOWN_IDS.has(id))) } })
      const byAdmin = await create(app, '/events', { title: 'For the editor', ...EVENT, author: USERS.editor.id })
      expect(byAdmin.author).toBe(String(USERS.editor.id))
      expect(asked).toEqual([USERS.editor.id])
      // Oneself is always fine and needs no look-up.
      const own = await create(app, '/venues', { venue: 'Mine', author: USERS.author.id }, 'author')
      expect(own.author).toBe(String(USERS.author.id))
      expect(asked).toEqual([USERS.editor.id])
      // An author may not write as someone else, existing or not.
      expectError(
        await app.post('/organizers', { organizer: 'Theirs', author: USERS.author2.id }, { as: 'author' }),
        403,
        'rest_cannot_edit_others',
      )
      expectError(await app.patch(`/venues/${own.id}`, { author: USERS.author2.id }, { as: 'author' }), 403, 'rest_cannot_edit_others')
      expectInvalid(await app.patch(`/venues/${own.id}`, { author: 987654321 }, { as: 'author' }), ['author'])
      // An editor may reassign to an existing user.
      const moved = await app.patch(`/venues/${own.id}`, { author: USERS.author2.id }, { as: 'editor' })
      expect(moved.status, moved.text).toBe(200)
      expect(moved.body.author).toBe(String(USERS.author2.id))
    })

    it('without the option, any positive id is accepted as before', async () => {
      const app = await open()
      expect((await create(app, '/events', { title: 'Anyone', ...EVENT, author: 987654321 })).author).toBe('987654321')
    })

    it('a failing directory is a 500 reported to onError, and nothing is stored', async () => {
      const errors: unknown[] = []
      const app = await open({ users: { exists: () => Promise.reject(new Error('directory down')) }, onError: (e) => void errors.push(e) })
      const res = await app.post('/events', { title: 'X', ...EVENT, author: 2 }, { as: 'administrator' })
      expectError(res, 500, 'internal_error')
      expect(errors.map((e) => (e as Error).message)).toEqual(['directory down'])
      expect(await adminTotal(app, '/events')).toBe(0)
    })
  })

  describe(`trash through updates [${name}]`, () => {
    it('status trash on a live event trashes it exactly like DELETE; a trashed event stays editable and is restored by another status', async () => {
      const seen: Change[] = []
      const app = await open({ onChange: (c) => void seen.push(c) })
      const event = await app.seed({ title: 'Picnic' })
      const trashed = await app.patch(`/events/${event.id}`, { status: 'trash', title: 'Picnic (cancelled)' }, { as: 'administrator' })
      expect(trashed.status, trashed.text).toBe(200)
      expect(trashed.body).toMatchObject({
        status: 'trash',
        slug: 'picnic__trashed',
        title: 'Picnic (cancelled)',
        url: `${ORIGIN}/?p=${event.id}`,
      })
      expectError(await app.get(`/events/${event.id}`, { as: 'administrator' }), 403, 'event-no-longer-available')
      expectError(await app.del(`/events/${event.id}`, { as: 'administrator' }), 410, 'event-is-in-trash')
      expect((await app.get('/events')).body.events).toEqual([])
      // Its slug is free while it is in the trash.
      expect((await app.seed({ title: 'Other', slug: 'picnic' })).slug).toBe('picnic')

      // Editing in the trash, with or without status trash again, keeps it there.
      const edited = await app.patch(`/events/${event.id}`, { status: 'trash', description: 'Rain' }, { as: 'administrator' })
      expect(edited.status, edited.text).toBe(200)
      expect(edited.body).toMatchObject({ status: 'trash', slug: 'picnic__trashed', description: 'Rain' })
      const edited2 = await app.put(`/events/${event.id}`, { excerpt: 'Soon' }, { as: 'administrator' })
      expect(edited2.body).toMatchObject({ status: 'trash', slug: 'picnic__trashed', excerpt: 'Soon' })

      // Restoring: the original slug if free, else the next free one.
      const restored = await app.patch(`/events/${event.id}`, { status: 'publish' }, { as: 'administrator' })
      expect(restored.status, restored.text).toBe(200)
      expect(restored.body).toMatchObject({ status: 'publish', slug: 'picnic-2', description: 'Rain', url: `${ORIGIN}/event/picnic-2/` })
      expect((await app.get(`/events/${event.id}`)).status).toBe(200)
      expect((await app.get('/events')).body.events.map((e: { id: number }) => e.id)).toContain(event.id)
      await tick()
      expect(seen.filter((c) => c.type === 'event' && c.id === event.id).map((c) => c.action)).toEqual([
        'create',
        // Moved to the trash: a deletion to readers. Edits of the trashed event and its
        // restoration are updates, one per committed write, as the journal has them.
        'delete',
        'update',
        'update',
        'update',
      ])
    })

    it('restores the original slug when it is still free, and a restored translation rejoins its group only if its language is free', async () => {
      const app = await open()
      const en = await app.seed({ title: 'Festival' })
      const ja = await app.seed({ title: 'Matsuri', translation_of: en.id }, { lang: 'ja' })
      await app.patch(`/events/${ja.id}`, { status: 'trash' }, { as: 'administrator', lang: 'ja' })
      expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({})
      const back = await app.patch(`/events/${ja.id}`, { status: 'draft' }, { as: 'administrator', lang: 'ja' })
      expect(back.body).toMatchObject({ status: 'draft', slug: 'matsuri' })
      // Back as a draft: in the group for those who may read it, not for anonymous readers.
      expect((await app.get(`/events/${en.id}`, { as: 'editor' })).body.translations).toEqual({ ja: ja.id })
      expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({})
      // Trashed again, replaced by another ja translation: restoring keeps the replacement.
      await app.del(`/events/${ja.id}`, { as: 'administrator' })
      const ja2 = await app.seed({ title: 'Matsuri 2', translation_of: en.id }, { lang: 'ja' })
      const again = await app.patch(`/events/${ja.id}`, { status: 'publish' }, { as: 'administrator', lang: 'ja' })
      expect(again.status, again.text).toBe(200)
      expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({ ja: ja2.id })
      expect(again.body.translations).toEqual({})
    })

    for (const kind of ['venue', 'organizer'] as const) {
      it(`status trash on a live ${kind} unlinks it from its events like DELETE; restoring brings the slug back, not the links`, async () => {
        const app = await open()
        const rec = await create(app, `/${PLURAL[kind]}`, { [NAME_FIELD[kind]]: 'Side Room' })
        const event = await app.seed({ title: 'Linked', [kind]: rec.id })
        const key = kind === 'venue' ? 'venue' : 'organizer'
        expect(event[key]).not.toEqual([])
        const trashed = await app.patch(`/${PLURAL[kind]}/${rec.id}`, { status: 'trash' }, { as: 'editor' })
        expect(trashed.status, trashed.text).toBe(200)
        expect(trashed.body).toMatchObject({ status: 'trash', slug: 'side-room__trashed' })
        expect((await app.get(`/events/${event.id}`)).body[key]).toEqual([])
        expectError(await app.del(`/${PLURAL[kind]}/${rec.id}`, { as: 'editor' }), 410, `${kind}-is-in-trash`)
        const restored = await app.patch(`/${PLURAL[kind]}/${rec.id}`, { status: 'publish' }, { as: 'editor' })
        expect(restored.body).toMatchObject({ status: 'publish', slug: 'side-room' })
        expect((await app.get(`/events/${event.id}`)).body[key]).toEqual([])
      })
    }

    it('creates still refuse status trash; trashing by update needs the right to modify the record', async () => {
      const app = await open()
      expectInvalid(await app.post('/events', { title: 'X', ...EVENT, status: 'trash' }, { as: 'administrator' }), ['status'])
      expectInvalid(await app.post('/venues', { venue: 'X', status: 'trash' }, { as: 'administrator' }), ['status'])
      const others = await app.seed({ title: 'Not yours', status: 'draft' })
      expectInvalid(await app.patch(`/events/${others.id}`, { status: 'bin' }, { as: 'administrator' }), ['status'])
      expectError(await app.patch(`/events/${others.id}`, { status: 'trash' }, { as: 'contributor' }), 403, 'rest_forbidden')
      expectError(await app.patch(`/events/${others.id}`, { status: 'trash' }), 401, 'rest_forbidden')
      expect((await app.get(`/events/${others.id}`, { as: 'administrator' })).body.status).toBe('draft')
      const mine = await create(app, '/events', { title: 'Mine', ...EVENT }, 'contributor')
      const res = await app.patch(`/events/${mine.id}`, { status: 'trash' }, { as: 'contributor' })
      expect(res.status, res.text).toBe(200)
      expect(res.body.status).toBe('trash')
    })
  })

  describe(`permanent delete [${name}]`, () => {
    it('DELETE ?force=true erases an event: 200 with the record as it was, then 404, its slug free and term counts down', async () => {
      const seen: Change[] = []
      const app = await open({ onChange: (c) => void seen.push(c), cache: {} })
      const event = await app.seed({ title: 'Gone', categories: ['Music'], tags: ['Loud'] })
      const cat = event.categories[0].id
      expect((await app.get(`/categories/${cat}`)).body.count).toBe(1)
      // An anonymous read, cached, must not survive the delete.
      expect((await app.get(`/events/${event.id}`)).status).toBe(200)
      const res = await app.del(`/events/${event.id}?force=true`, { as: 'administrator' })
      expect(res.status, res.text).toBe(200)
      expect(res.body).toMatchObject({ id: event.id, title: 'Gone', status: 'publish', slug: 'gone' })
      for (const as of [undefined, 'administrator'] as const)
        expectError(await app.get(`/events/${event.id}`, { as }), 404, 'rest-event-not-found')
      expectError(await app.del(`/events/${event.id}`, { as: 'administrator' }), 404, 'rest-event-not-found')
      expectError(await app.del(`/events/${event.id}?force=true`, { as: 'administrator' }), 404, 'rest-event-not-found')
      expectError(await app.patch(`/events/${event.id}`, { title: 'Back?' }, { as: 'administrator' }), 404, 'rest-event-not-found')
      expect((await app.get(`/categories/${cat}`)).body.count).toBe(0)
      expect((await app.get(`/tags/${event.tags[0].id}`)).body.count).toBe(0)
      expect(await adminTotal(app, '/events')).toBe(0)
      expect((await app.get('/events?status=trash', { as: 'administrator' })).body.events).toEqual([])
      expect((await app.seed({ title: 'Gone' })).slug).toBe('gone')
      await tick()
      expect(seen.filter((c) => c.type === 'event' && c.id === event.id)).toEqual([
        { type: 'event', action: 'create', id: event.id, language: 'en', revision: 0 },
        { type: 'event', action: 'delete', id: event.id, language: 'en', revision: 0 },
      ])
    })

    it('erases a trashed event too, and by slug; without force the trash-then-410 behaviour stays', async () => {
      const app = await open()
      const a = await app.seed({ title: 'First' })
      const trashed = await app.del(`/events/${a.id}?force=false`, { as: 'administrator' })
      expect(trashed.body).toMatchObject({ status: 'trash', slug: 'first__trashed' })
      expectError(await app.del(`/events/${a.id}`, { as: 'administrator' }), 410, 'event-is-in-trash')
      const erased = await app.del(`/events/${a.id}?force=1`, { as: 'administrator' })
      expect(erased.status, erased.text).toBe(200)
      expect(erased.body).toMatchObject({ id: a.id, status: 'trash' })
      expectError(await app.get(`/events/${a.id}`, { as: 'administrator' }), 404, 'rest-event-not-found')
      const b = await app.seed({ title: 'Second' })
      const bySlug = await app.del('/events/by-slug/second?force=true', { as: 'administrator' })
      expect(bySlug.status, bySlug.text).toBe(200)
      expect(bySlug.body.id).toBe(b.id)
      expectError(await app.get(`/events/${b.id}`), 404, 'rest-event-not-found')
      expectInvalid(await app.get('/events/by-slug/second'), ['slug'])
    })

    it('only callers who may delete the record may erase it; a bad force is a 400 and erases nothing', async () => {
      const app = await open()
      const others = await app.seed({ title: 'Admin draft', status: 'draft' })
      const mine = await create(app, '/events', { title: 'My draft', ...EVENT }, 'contributor')
      expectError(await app.del(`/events/${others.id}?force=true`), 401, 'rest_forbidden')
      expectError(await app.del(`/events/${others.id}?force=true`, { as: 'subscriber' }), 403, 'rest_forbidden')
      expectError(await app.del(`/events/${others.id}?force=true`, { as: 'contributor' }), 403, 'rest_forbidden')
      expectInvalid(await app.del(`/events/${others.id}?force=perhaps`, { as: 'administrator' }), ['force'])
      expect((await app.get(`/events/${others.id}`, { as: 'administrator' })).body.status).toBe('draft')
      const own = await app.del(`/events/${mine.id}?force=true`, { as: 'contributor' })
      expect(own.status, own.text).toBe(200)
      expectError(await app.get(`/events/${mine.id}`, { as: 'administrator' }), 404, 'rest-event-not-found')
    })

    for (const kind of ['venue', 'organizer'] as const) {
      it(`erases a ${kind}: unlinked from its events, the id then answers as one that never existed, the slug is free`, async () => {
        const seen: Change[] = []
        const app = await open({ onChange: (c) => void seen.push(c) })
        const rec = await create(app, `/${PLURAL[kind]}`, { [NAME_FIELD[kind]]: 'Main Hall' })
        const event = await app.seed({ title: 'Linked', [kind]: rec.id })
        const res = await app.del(`/${PLURAL[kind]}/${rec.id}?force=true`, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expect(res.body).toMatchObject({ id: rec.id, [NAME_FIELD[kind]]: 'Main Hall', status: 'publish' })
        expect((await app.get(`/events/${event.id}`)).body[kind]).toEqual([])
        expect((await app.get(`/${PLURAL[kind]}?event=${event.id}`, { as: 'administrator' })).body[PLURAL[kind]] ?? []).toEqual([])
        // Exactly what an id that never existed answers (the reference validates ids: 400).
        const never = await app.get(`/${PLURAL[kind]}/999999`, { as: 'administrator' })
        const gone = await app.get(`/${PLURAL[kind]}/${rec.id}`, { as: 'administrator' })
        expectInvalid(gone, ['id'])
        expect(gone.body).toEqual(never.body)
        expectInvalid(await app.del(`/${PLURAL[kind]}/${rec.id}`, { as: 'administrator' }), ['id'])
        expect((await create(app, `/${PLURAL[kind]}`, { [NAME_FIELD[kind]]: 'Main Hall' })).slug).toBe('main-hall')
        // By slug, from the trash.
        const other = await create(app, `/${PLURAL[kind]}`, { [NAME_FIELD[kind]]: 'Annex' })
        await app.del(`/${PLURAL[kind]}/${other.id}`, { as: 'administrator' })
        const bySlug = await app.del(`/${PLURAL[kind]}/by-slug/annex__trashed?force=true`, { as: 'administrator' })
        expect(bySlug.status, bySlug.text).toBe(200)
        expectInvalid(await app.get(`/${PLURAL[kind]}/${other.id}`, { as: 'administrator' }), ['id'])
        expectError(await app.del(`/${PLURAL[kind]}/${rec.id + 1000}?force=true`, { as: 'contributor' }), 400, 'rest_invalid_param')
        await tick()
        expect(seen.filter((c) => c.type === kind && c.id === rec.id).map((c) => c.action)).toEqual(['create', 'delete'])
      })
    }

    it(`a contributor may not erase someone else's venue`, async () => {
      const app = await open()
      const v = await create(app, '/venues', { venue: 'Admin Hall', status: 'draft' })
      expectError(await app.del(`/venues/${v.id}?force=true`, { as: 'contributor' }), 403, 'rest_forbidden')
      expect((await app.get(`/venues/${v.id}`, { as: 'administrator' })).body.status).toBe('draft')
    })
  })

  describe(`emptying the trash [${name}]`, () => {
    it('router.emptyTrash erases what has been in the trash longer than N days, and nothing else', async () => {
      let now = NOW.getTime()
      const seen: Change[] = []
      const app = await open({ now: () => new Date(now), onChange: (c) => void seen.push(c), cache: {} })
      const old = await app.seed({ title: 'Old', categories: ['Music'] })
      const oldVenue = await create(app, '/venues', { venue: 'Old Hall' })
      const recent = await app.seed({ title: 'Recent' })
      const live = await app.seed({ title: 'Live', categories: ['Music'] })
      await app.del(`/events/${old.id}`, { as: 'administrator' })
      await app.del(`/venues/${oldVenue.id}`, { as: 'administrator' })
      now += 20 * 86_400_000
      await app.del(`/events/${recent.id}`, { as: 'administrator' })
      now += 11 * 86_400_000
      expect(await app.router.emptyTrash({ olderThanDays: 30 })).toEqual({ deleted: 2 })
      expectError(await app.get(`/events/${old.id}`, { as: 'administrator' }), 404, 'rest-event-not-found')
      expectInvalid(await app.get(`/venues/${oldVenue.id}`, { as: 'administrator' }), ['id'])
      expectError(await app.get(`/events/${recent.id}`, { as: 'administrator' }), 403, 'event-no-longer-available')
      expect((await app.get(`/events/${live.id}`)).status).toBe(200)
      expect((await app.get(`/categories/${live.categories[0].id}`)).body.count).toBe(1)
      // The freed slug is visible through the (cached) anonymous by-slug read at once.
      expect((await app.get('/venues/by-slug/old-hall')).status).toBe(400)
      const hall = await create(app, '/venues', { venue: 'Old Hall' })
      expect(hall.slug).toBe('old-hall')
      expect((await app.get('/venues/by-slug/old-hall')).body.id).toBe(hall.id)
      expect((await app.seed({ title: 'Old' })).slug).toBe('old')
      expect(await app.router.emptyTrash({ olderThanDays: 30 })).toEqual({ deleted: 0 })
      expect(await app.router.emptyTrash({ olderThanDays: 0 })).toEqual({ deleted: 1 })
      expectError(await app.get(`/events/${recent.id}`, { as: 'administrator' }), 404, 'rest-event-not-found')
      await tick()
      expect(
        seen.filter((c) => c.type !== 'category' && c.action === 'delete' && [old.id, oldVenue.id, recent.id].includes(c.id)).length,
      ).toBe(6)
      for (const bad of [-1, Number.NaN, Infinity, '30', 1e9]) {
        await expect(app.router.emptyTrash({ olderThanDays: bad as number })).rejects.toThrow(TypeError)
      }
    })

    it('erases a trash larger than one batch completely', async () => {
      let now = NOW.getTime()
      const app = await open({ now: () => new Date(now) })
      const ids: number[] = []
      for (let i = 0; i < 105; i++) ids.push((await create(app, '/organizers', { organizer: `Org ${i}` })).id)
      for (const id of ids) await app.del(`/organizers/${id}`, { as: 'administrator' })
      // Trashed at this very moment: not strictly older than a cutoff of now.
      expect(await app.router.emptyTrash({ olderThanDays: 0 })).toEqual({ deleted: 0 })
      now += 86_400_000 + 1000
      expect(await app.router.emptyTrash({ olderThanDays: 1 })).toEqual({ deleted: 105 })
      expect((await app.get('/organizers?status=trash', { as: 'administrator' })).headers.get('x-tec-total')).toBe('0')
    })
  })
}

/**
 * Storage-free, run once (test/http-once.test.ts): an options check that throws before any
 * storage call, and what discovery and /doc say of the new parameters.
 */
export function authorsTrashDocSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }

  describe(`author must name a user [${name}]`, () => {
    it('rejects a users option without exists()', async () => {
      await expect(open({ users: {} as never })).rejects.toThrow(/users must be/)
    })
  })

  describe(`discovery and /doc document the new parameters [${name}]`, () => {
    it('force on DELETE, trash among the statuses of updates only', async () => {
      const app = await open()
      const { routes } = (await app.get('')).body
      for (const path of [
        '/events/(?P<id>\\d+)',
        '/events/by-slug/(?P<slug>[^/]+)',
        '/venues/(?P<id>\\d+)',
        '/organizers/by-slug/(?P<slug>[^/]+)',
      ]) {
        const route = routes[`/${NS}${path}`]
        const del = route.endpoints.find((e: { methods: string[] }) => e.methods.includes('DELETE'))
        expect(del.args.force, path).toMatchObject({ type: 'boolean', default: false, required: false })
        const update = route.endpoints.find((e: { methods: string[] }) => e.methods.includes('PATCH'))
        expect(update.args.status.enum, path).toContain('trash')
      }
      expect(routes[`/${NS}/events`].endpoints[1].args.status.enum).not.toContain('trash')
      expect(routes[`/${NS}/venues`].endpoints[1].args.status.enum).not.toContain('trash')
      const doc = (await app.get('/doc')).body
      for (const path of [
        '/events/{id}',
        '/events/by-slug/{slug}',
        '/venues/{id}',
        '/venues/by-slug/{slug}',
        '/organizers/{id}',
        '/organizers/by-slug/{slug}',
      ]) {
        const force = doc.paths[path].delete.parameters.find((p: { name: string }) => p.name === 'force')
        expect(force, path).toMatchObject({ in: 'query', required: false, schema: { type: 'boolean', default: false } })
        expect(doc.paths[path].delete.summary).toMatch(/force=true/)
      }
      expect(doc.components.schemas.eventUpdate.properties.status.enum).toContain('trash')
      expect(doc.components.schemas.eventCreate.properties.status.enum).not.toContain('trash')
    })
  })
}
