/**
 * Event permissions: who may create, edit, publish and read which events, by role and ownership.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { ORIGIN, expectError, expectInvalid } from './harness.js'
import { WINDOW, LIST, ids, eventsOpener } from './events-shared.js'

/** Who may write and read which events, by role and ownership. */
export function eventsPermissionsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('permissions', () => {
      const body = { title: 'Perm', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' }

      it('answers anonymous writes with 401 before looking at the body', async () => {
        const app = await open()
        const e = await app.seed()
        const forbidden = 'Sorry, you are not allowed to do that.'
        expectError(await app.post('/events', body), 401, 'rest_forbidden', forbidden)
        expectError(await app.post('/events', { title: 42, all_day: 'maybe' }), 401, 'rest_forbidden', forbidden)
        expectError(await app.post('/events', '{"broken', {}), 401, 'rest_forbidden')
        expectError(await app.post('/events', {}), 401, 'rest_forbidden')
        expectError(await app.patch(`/events/${e.id}`, { title: 'x' }), 401, 'rest_forbidden')
        expectError(await app.put('/events/9999', { start_date: 'garbage' }), 401, 'rest_forbidden')
        expectError(await app.del(`/events/${e.id}`), 401, 'rest_forbidden')
        expectError(await app.del('/events/by-slug/nothing-here'), 401, 'rest_forbidden')
        expect((await app.get(`/events/${e.id}`)).body.status).toBe('publish')
      })

      it('answers subscribers with 403', async () => {
        const app = await open()
        const e = await app.seed()
        expectError(await app.post('/events', body, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.post('/events', {}, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${e.id}`, { as: 'subscriber' }), 403, 'rest_forbidden')
        expect((await app.get('/events')).body.total).toBe(1)
      })

      it('scales a contributor publish back to pending', async () => {
        const app = await open()
        const res = await app.post('/events', { ...body, status: 'publish' }, { as: 'contributor' })
        expect(res.status).toBe(201)
        expect(res.body.status).toBe('pending')
        expect(res.body.author).toBe('4')
        const plain = await app.post('/events', body, { as: 'contributor' })
        expect(plain.body.status).toBe('draft')
        const draft = await app.post('/events', { ...body, status: 'draft' }, { as: 'contributor' })
        expect(draft.body.status).toBe('draft')
        const pending = await app.post('/events', { ...body, status: 'pending' }, { as: 'contributor' })
        expect(pending.body.status).toBe('pending')
      })

      it('lets contributors edit only their own unpublished events', async () => {
        const app = await open()
        const own = (await app.post('/events', body, { as: 'contributor' })).body
        const others = (await app.post('/events', body, { as: 'contributor2' })).body
        const admins = await app.seed()

        const edited = await app.patch(`/events/${own.id}`, { title: 'Mine' }, { as: 'contributor' })
        expect(edited.status).toBe(200)
        expect(edited.body.title).toBe('Mine')
        expect(edited.body.status).toBe('draft')
        const promoted = await app.patch(`/events/${own.id}`, { status: 'publish' }, { as: 'contributor' })
        expect(promoted.body.status).toBe('pending')

        expectError(await app.patch(`/events/${others.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${others.id}`, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.patch(`/events/${admins.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${admins.id}`, { as: 'contributor' }), 403, 'rest_forbidden')

        // Once published by an editor, it is out of the contributor's hands.
        expect((await app.patch(`/events/${own.id}`, { status: 'publish' }, { as: 'editor' })).body.status).toBe('publish')
        expectError(await app.patch(`/events/${own.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${own.id}`, { as: 'contributor' }), 403, 'rest_forbidden')
        expect((await app.get(`/events/${own.id}`)).body.title).toBe('Mine')

        const deletable = (await app.post('/events', body, { as: 'contributor' })).body
        const trashed = await app.del(`/events/${deletable.id}`, { as: 'contributor' })
        expect(trashed.status).toBe(200)
        expect(trashed.body.status).toBe('trash')
      })

      it("lets authors publish and edit their own events, not others'", async () => {
        const app = await open()
        const own = await app.post('/events', { ...body, status: 'publish' }, { as: 'author' })
        expect(own.body.status).toBe('publish')
        expect(own.body.author).toBe('3')
        const others = (await app.post('/events', body, { as: 'author2' })).body
        expect((await app.patch(`/events/${own.body.id}`, { title: 'Edited' }, { as: 'author' })).status).toBe(200)
        expectError(await app.patch(`/events/${others.id}`, { title: 'x' }, { as: 'author' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${others.id}`, { as: 'author' }), 403, 'rest_forbidden')
        // Nor may an author write as somebody else.
        expect((await app.post('/events', { ...body, author: 6 }, { as: 'author' })).status).toBe(403)
        const del = await app.del(`/events/${own.body.id}`, { as: 'author' })
        expect(del.status).toBe(200)
        expect((await app.get(`/events/${others.id}`)).body.title).toBe('Perm')
      })

      it('lets editors and administrators do everything', async () => {
        const app = await open()
        const byContributor = (await app.post('/events', body, { as: 'contributor' })).body
        const byAuthor = (await app.post('/events', body, { as: 'author' })).body
        const edited = await app.patch(`/events/${byContributor.id}`, { title: 'By editor', status: 'publish' }, { as: 'editor' })
        expect(edited.status).toBe(200)
        expect(edited.body.status).toBe('publish')
        expect(edited.body.author).toBe('4')
        const assigned = await app.patch(`/events/${byAuthor.id}`, { author: 6 }, { as: 'administrator' })
        expect(assigned.body.author).toBe('6')
        expect((await app.del(`/events/${byAuthor.id}`, { as: 'editor' })).status).toBe(200)
        expect((await app.del(`/events/${byContributor.id}`, { as: 'administrator' })).status).toBe(200)
        const created = await app.post('/events', { ...body, status: 'private' }, { as: 'editor' })
        expect(created.body.status).toBe('private')
      })

      it('never shows drafts, pending or private events to anonymous callers or subscribers', async () => {
        const app = await open()
        const pub = await app.seed({ title: 'Public', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const draft = await app.seed({ title: 'Draft', status: 'draft', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        const pending = await app.seed({
          title: 'Pending',
          status: 'pending',
          start_date: '2026-12-03 10:00',
          end_date: '2026-12-03 11:00',
        })
        const priv = await app.seed({ title: 'Private', status: 'private', start_date: '2026-12-04 10:00', end_date: '2026-12-04 11:00' })
        for (const as of [undefined, 'subscriber'] as const) {
          const list = await app.get('/events', as ? { as } : {})
          expect(ids(list)).toEqual([pub.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=publish`)
          for (const hidden of [draft, pending, priv]) {
            const res = await app.get(`/events/${hidden.id}`, as ? { as } : {})
            expectError(res, 403, 'event-not-accessible', 'The requested event is not accessible')
            expect(res.body).not.toHaveProperty('data.params')
            expect(res.text).not.toContain(hidden.title)
            expectError(await app.get(`/events/by-slug/${hidden.slug}`, as ? { as } : {}), 403, 'event-not-accessible')
          }
        }
        for (const as of ['administrator', 'editor'] as const) {
          const list = await app.get('/events', { as })
          expect(ids(list)).toEqual([pub.id, draft.id, pending.id, priv.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=any`)
        }
        // Contributors and authors see every status, but of others' records only the published
        // ones (docs/wire-compatibility.md §5.11; TEC would list other users' drafts to them).
        const mine = await app.post(
          '/events',
          { title: 'My draft', start_date: '2026-12-05 10:00', end_date: '2026-12-05 11:00' },
          { as: 'contributor' },
        )
        expect(mine.body.status).toBe('draft')
        for (const as of ['contributor', 'author'] as const) {
          const list = await app.get('/events', { as })
          expect(ids(list)).toEqual(as === 'contributor' ? [pub.id, mine.body.id] : [pub.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=any`)
          expect(list.text).not.toContain('Private')
        }
        const asAdmin = await app.get(`/events/${draft.id}`, { as: 'administrator' })
        expect(asAdmin.status).toBe(200)
        expect(asAdmin.body.status).toBe('draft')
        expect(asAdmin.body.url).not.toBe(`${ORIGIN}/event/${draft.slug}/`)
      })

      it("lets contributors read their own drafts but not other people's", async () => {
        const app = await open()
        const own = (await app.post('/events', body, { as: 'contributor' })).body
        const others = (await app.post('/events', body, { as: 'contributor2' })).body
        expect((await app.get(`/events/${own.id}`, { as: 'contributor' })).status).toBe(200)
        expectError(await app.get(`/events/${others.id}`, { as: 'contributor' }), 403, 'event-not-accessible')
      })

      it('filters lists by status only for callers who may', async () => {
        const app = await open()
        const pub = await app.seed({ title: 'Public' })
        const draft = await app.seed({ title: 'Draft', status: 'draft' })
        const pending = await app.seed({ title: 'Pending', status: 'pending' })
        const denied = await app.get('/events?status=draft')
        expectInvalid(denied, ['status'])
        expect(denied.body.data.details).toEqual([])
        expectInvalid(await app.get('/events?status=draft', { as: 'subscriber' }), ['status'])
        expectInvalid(await app.get('/events?status=publish,draft'), ['status'])
        const anonPublish = await app.get('/events?status=publish')
        expect(ids(anonPublish)).toEqual([pub.id])

        const drafts = await app.get('/events?status=draft', { as: 'administrator' })
        expect(drafts.status).toBe(200)
        expect(ids(drafts)).toEqual([draft.id])
        expect(drafts.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=draft`)
        const two = await app.get('/events?status=draft,%20pending', { as: 'administrator' })
        expect(ids(two)).toEqual([draft.id, pending.id])
        const arr = await app.get('/events?status[]=publish&status[]=pending', { as: 'editor' })
        expect(ids(arr)).toEqual([pub.id, pending.id])
        expectInvalid(await app.get('/events?status=foo', { as: 'administrator' }), ['status'])
        // `any` (what our own links say for privileged callers) means every visible status.
        expect(ids(await app.get('/events?status=any', { as: 'administrator' }))).toEqual([pub.id, draft.id, pending.id])
      })
    })
  })
}
