/**
 * Incremental sync over HTTP: `sync_token=*` lists everything (no date window) page by page and
 * hands out a token; the token answers what changed since, with deletions. Bad, foreign and
 * expired tokens; filters that must stay the same; changes committed while a client pages.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { overlay } from '../support/overlay.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, NS_PATH, type App, type Caller, type Res } from './harness.js'
import { pathOf, sync, type SyncResult } from '../../src/testing/http/sync-pages.js'

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage)
  onTestFinished(() => app.close())
  return app
}

const ids = (r: SyncResult) => r.items.map((x) => x.id).sort((a, b) => a - b)

export function syncSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`incremental sync [${name}]`, () => {
    it('a full sync lists every visible event with no date window, by id, page by page, and ends with a token', async () => {
      const app = await open(makeStorage)
      const past = await app.seed({ title: 'Long ago', start_date: '2019-03-01 10:00', end_date: '2019-03-01 11:00' })
      const far = await app.seed({ title: 'Far ahead', start_date: '2035-03-01 10:00', end_date: '2035-03-01 11:00' })
      const made = [past.id, far.id]
      for (let i = 0; i < 5; i++) made.push((await app.seed({ title: `Event ${i}` })).id)
      const draft = await app.seed({ title: 'Draft', status: 'draft' })
      const all = await sync(app, '/events', '*', { perPage: 3 })
      expect(all.pages).toBe(3)
      expect(ids(all)).toEqual(made.sort((a, b) => a - b))
      expect(all.deleted).toEqual([])
      // An editor sees the draft too.
      const editor = await sync(app, '/events', '*', { as: 'editor', perPage: 50 })
      expect(ids(editor)).toContain(draft.id)
      // Nothing changed: an empty answer and a token again.
      const none = await sync(app, '/events', all.token)
      expect(none.items).toEqual([])
      expect(none.deleted).toEqual([])
      expect(none.pages).toBe(1)
    })

    it('a token answers what changed: new, edited, trashed, unpublished and deleted events, as the caller may see them', async () => {
      const app = await open(makeStorage)
      const keep = await app.seed({ title: 'Keep' })
      const edit = await app.seed({ title: 'Edit' })
      const trash = await app.seed({ title: 'Trash' })
      const hide = await app.seed({ title: 'Hide' })
      const gone = await app.seed({ title: 'Gone' })
      const start = await sync(app, '/events', '*')
      const editorStart = await sync(app, '/events', '*', { as: 'editor' })
      const added = await app.seed({ title: 'Added' })
      await app.patch(`/events/${edit.id}`, { title: 'Edited' }, { as: 'administrator' })
      await app.del(`/events/${trash.id}`, { as: 'administrator' })
      await app.patch(`/events/${hide.id}`, { status: 'draft' }, { as: 'administrator' })
      await app.del(`/events/${gone.id}?force=true`, { as: 'administrator' })
      const changes = await sync(app, '/events', start.token)
      expect(ids(changes)).toEqual([edit.id, added.id].sort((a, b) => a - b))
      expect(changes.items.find((e) => e.id === edit.id)?.title).toBe('Edited')
      expect(changes.deleted.sort((a, b) => a - b)).toEqual([trash.id, hide.id, gone.id].sort((a, b) => a - b))
      expect(ids(changes)).not.toContain(keep.id)
      // The editor still sees the draft: a change, not a deletion.
      const editorChanges = await sync(app, '/events', editorStart.token, { as: 'editor' })
      expect(ids(editorChanges)).toContain(hide.id)
      expect(editorChanges.deleted.sort((a, b) => a - b)).toEqual([trash.id, gone.id].sort((a, b) => a - b))
    })

    it('an event whose venue, organizer or category changed counts as changed', async () => {
      const app = await open(makeStorage)
      const venue = (await app.post('/venues', { venue: 'Hall', status: 'publish' }, { as: 'administrator' })).body
      const at = await app.seed({ title: 'At the hall', venue: venue.id, categories: ['Music'] })
      const other = await app.seed({ title: 'Elsewhere' })
      const start = await sync(app, '/events', '*')
      await app.patch(`/venues/${venue.id}`, { venue: 'Great Hall' }, { as: 'administrator' })
      const changes = await sync(app, '/events', start.token)
      expect(ids(changes)).toEqual([at.id])
      expect((changes.items[0]!.venue as { venue: string }).venue).toBe('Great Hall')
      expect(ids(changes)).not.toContain(other.id)
      await app.patch(`/categories/${at.categories[0].id}`, { name: 'Live music' }, { as: 'administrator' })
      const renamed = await sync(app, '/events', changes.token)
      expect(ids(renamed)).toEqual([at.id])
    })

    it('a filtered sync reports records that stop matching as deleted, and keeps its filters', async () => {
      const app = await open(makeStorage)
      const jazz = await app.seed({ title: 'Jazz night', categories: ['Jazz'] })
      await app.seed({ title: 'Rock night', categories: ['Rock'] })
      const start = await sync(app, '/events?categories=jazz', '*')
      expect(ids(start)).toEqual([jazz.id])
      await app.patch(`/events/${jazz.id}`, { categories: ['Rock'] }, { as: 'administrator' })
      const changes = await sync(app, '/events?categories=jazz', start.token)
      expect(changes.items).toEqual([])
      // Ids the client never had may be listed too (the rock event's embedded category count moved).
      expect(changes.deleted).toContain(jazz.id)
      // Other filters than the token's: 400 naming sync_token.
      const mixed = await app.get(`/events?categories=rock&sync_token=${encodeURIComponent(changes.token)}`)
      expect(mixed.status).toBe(400)
      expect(mixed.body.data.params).toHaveProperty('sync_token')
    })

    it('refuses date filters, paging by page, malformed and foreign tokens (400) and expired ones (410)', async () => {
      const app = await open(makeStorage)
      await app.seed({ title: 'One' })
      for (const param of [
        'start_date=2026-01-01',
        'end_date=2027-01-01',
        'starts_before=2027-01-01',
        'starts_after=2020-01-01',
        'ends_before=2027-01-01',
        'ends_after=2020-01-01',
        'hide_subsequent_recurrences=true',
        'page=2',
      ]) {
        const res = await app.get(`/events?sync_token=*&${param}`)
        expect(res.status, param).toBe(400)
        expect(Object.keys(res.body.data.params)).toEqual([param.split('=')[0]])
      }
      const { token } = await sync(app, '/events', '*')
      for (const bad of ['garbage', 'e30', token.slice(0, -3), btoa('{"v":1}'), '!!!', token + 'x']) {
        const res = await app.get(`/events?sync_token=${encodeURIComponent(bad)}`)
        expect(res.status, bad).toBe(400)
        expect(res.body.code).toBe('rest_invalid_param')
        expect(res.body.data.params).toHaveProperty('sync_token')
      }
      // A token of another list, or of another site's journal, is not this list's.
      expect((await app.get(`/venues?sync_token=${encodeURIComponent(token)}`)).status).toBe(400)
      const otherSite = await open(makeStorage)
      expect((await otherSite.get(`/events?sync_token=${encodeURIComponent(token)}`)).status).toBe(400)
      // Expired: the journal was compacted past it.
      await app.seed({ title: 'Two' })
      await app.storage.compactJournal('9999-01-01 00:00:00')
      const expired = await app.get(`/events?sync_token=${encodeURIComponent(token)}`)
      expect(expired.status).toBe(410)
      expect(expired.body.code).toBe('rest_sync_token_expired')
      // Starting over works.
      expect((await sync(app, '/events', '*')).items.length).toBe(2)
    })

    it('router.compactJournal keeps the retention (30 days by default) and expires tokens from before the cut', async () => {
      const app = await open(makeStorage)
      await app.seed({ title: 'One' })
      const { token } = await sync(app, '/events', '*')
      await app.seed({ title: 'Two' })
      // Everything is younger than 30 days: nothing goes, the token still works.
      expect(await app.router.compactJournal()).toEqual({ removed: 0, deliveriesRemoved: 0 })
      expect((await sync(app, '/events', token)).items.map((e) => e.title)).toEqual(['Two'])
      await expect(app.router.compactJournal({ olderThanDays: -1 })).rejects.toThrow(TypeError)
      // Entries carry whole seconds: a second later, a zero-day retention removes them all.
      await new Promise((r) => setTimeout(r, 1100))
      expect((await app.router.compactJournal({ olderThanDays: 0 })).removed).toBeGreaterThanOrEqual(2)
      expect((await app.get(`/events?sync_token=${encodeURIComponent(token)}`)).status).toBe(410)
    })

    it('a change committed while a client pages is delivered by the next sync, never lost', async () => {
      const app = await open(makeStorage)
      const events: Array<{ id: number }> = []
      for (let i = 0; i < 7; i++) events.push(await app.seed({ title: `E${i}` }))
      let n = 0
      // Full sync: between pages, the first event (already delivered) and the last (not yet) change,
      // one is deleted and a new one is created.
      const full = await sync(app, '/events', '*', {
        perPage: 2,
        between: async () => {
          n++
          if (n === 1) {
            await app.patch(`/events/${events[0]!.id}`, { title: 'E0 changed' }, { as: 'administrator' })
            await app.del(`/events/${events[2]!.id}?force=true`, { as: 'administrator' })
          }
          if (n === 2) await app.seed({ title: 'Created meanwhile' })
        },
      })
      const next = await sync(app, '/events', full.token, { perPage: 2 })
      const mirror = new Map(full.items.map((e) => [e.id, e]))
      for (const id of next.deleted) mirror.delete(id)
      for (const e of next.items) mirror.set(e.id, e)
      const fresh = await sync(app, '/events', '*', { perPage: 50 })
      expect([...mirror.keys()].sort((a, b) => a - b)).toEqual(ids(fresh))
      for (const e of fresh.items) expect(mirror.get(e.id)).toEqual(e)
    })

    it("a sync's later pages take the changes the first page read: the journal is read once", async () => {
      let reads = 0
      const app = await open(async () => {
        const storage = await makeStorage()
        return overlay(storage, {
          readJournal: (after, limit, until) => {
            reads++
            return storage.readJournal(after, limit, until)
          },
        })
      })
      const events: Array<{ id: number }> = []
      for (let i = 0; i < 6; i++) events.push(await app.seed({ title: `E${i}` }))
      const { token } = await sync(app, '/events', '*', { perPage: 50 })
      for (const e of events.slice(1)) await app.patch(`/events/${e.id}`, { title: 'changed' }, { as: 'administrator' })
      await app.del(`/events/${events[0]!.id}?force=true`, { as: 'administrator' })
      reads = 0
      const next = await sync(app, '/events', token, { perPage: 2 })
      expect(next.pages).toBe(3)
      expect(ids(next)).toEqual(events.slice(1).map((e) => e.id))
      expect(next.deleted).toEqual([events[0]!.id])
      expect(reads).toBe(1)
    })

    it('two routers on one storage share nothing: the changes one holds for a sync’s later pages are its own', async () => {
      let reads = 0
      const storage = await makeStorage()
      const counted = overlay(storage, {
        readJournal: (after, limit, until) => {
          reads++
          return storage.readJournal(after, limit, until)
        },
      })
      const a = await makeApp(() => counted)
      const b = await makeApp(() => counted)
      onTestFinished(() => a.close())
      const events: Array<{ id: number }> = []
      for (let i = 0; i < 4; i++) events.push(await a.seed({ title: `E${i}` }))
      const { token } = await sync(a, '/events', '*', { perPage: 50 })
      for (const e of events) await a.patch(`/events/${e.id}`, { title: 'changed' }, { as: 'administrator' })
      const first = await a.get(`/events?sync_token=${encodeURIComponent(token)}&per_page=2`)
      expect(first.status, first.text).toBe(200)
      const nextPage = pathOf(first.body.next_rest_url)
      // Router A answers its next page from the list its first page made; router B, handed the
      // same link, holds no such list and reads the journal itself, with the same answer.
      reads = 0
      const fromA = await a.get(nextPage)
      expect(reads).toBe(0)
      const fromB = await b.get(nextPage)
      expect(reads).toBe(1)
      expect(fromB.status, fromB.text).toBe(200)
      expect(fromB.body.events.map((e: { id: number }) => e.id)).toEqual(fromA.body.events.map((e: { id: number }) => e.id))
      expect((await a.get(`/events/${events[0]!.id}`)).headers.get('etag')).toBe(
        (await b.get(`/events/${events[0]!.id}`)).headers.get('etag'),
      )
      // Each router's response cache is its own: B's reads neither hit nor fill A's.
      const hitsOfA = a.router.cacheStats()?.hits ?? 0
      await b.get(`/events/${events[1]!.id}`)
      await b.get(`/events/${events[1]!.id}`)
      expect(a.router.cacheStats()?.hits ?? 0).toBe(hitsOfA)
    })

    it('venues, organizers, categories and tags sync too; a term whose count moves counts as changed', async () => {
      const app = await open(makeStorage)
      const venue = (await app.post('/venues', { venue: 'Hall', status: 'publish' }, { as: 'administrator' })).body
      const org = (await app.post('/organizers', { organizer: 'Org', status: 'publish' }, { as: 'administrator' })).body
      const event = await app.seed({ title: 'Gig', categories: ['Music'], tags: ['Loud'] })
      const starts: Record<string, SyncResult> = {}
      for (const list of ['/venues', '/organizers', '/categories', '/tags']) starts[list] = await sync(app, list, '*')
      expect(ids(starts['/venues']!)).toEqual([venue.id])
      expect(ids(starts['/organizers']!)).toEqual([org.id])
      expect(ids(starts['/categories']!)).toEqual([event.categories[0].id])
      await app.patch(`/venues/${venue.id}`, { city: 'Oslo' }, { as: 'administrator' })
      await app.del(`/organizers/${org.id}`, { as: 'administrator' })
      // Unpublishing the event empties its terms: hidden from the default (hide_empty) lists.
      await app.patch(`/events/${event.id}`, { status: 'draft' }, { as: 'administrator' })
      expect(ids(await sync(app, '/venues', starts['/venues']!.token))).toEqual([venue.id])
      expect((await sync(app, '/organizers', starts['/organizers']!.token)).deleted).toEqual([org.id])
      expect((await sync(app, '/categories', starts['/categories']!.token)).deleted).toEqual([event.categories[0].id])
      expect((await sync(app, '/tags', starts['/tags']!.token)).deleted).toEqual([event.tags[0].id])
      const withEmpty = await sync(app, '/categories?hide_empty=0', '*')
      expect(withEmpty.items[0]?.count).toBe(0)
      await app.patch(`/events/${event.id}`, { status: 'publish' }, { as: 'administrator' })
      const counted = await sync(app, '/categories?hide_empty=0', withEmpty.token)
      expect(counted.items.map((t) => t.count)).toEqual([1])
      // Filters that depend on other records or on time are refused.
      for (const bad of ['/venues?has_events=true', '/organizers?only_with_upcoming=true', `/tags?post=${event.id}`]) {
        expect((await app.get(`${bad}&sync_token=*`)).status, bad).toBe(400)
      }
    })
  })
}
