/**
 * Events in several languages: scoping by path segment or parameter, per-language slugs and translation groups.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { LANG, NS, ORIGIN, expectInvalid, expectNoRoute } from './harness.js'
import { WINDOW, ids, eventsOpener } from './events-shared.js'

/** Languages: the path segment or parameter scopes writes, lists and slugs; translations form groups. */
export function eventsLanguagesSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('languages', () => {
      it('stores the language of the request and keeps it in links', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'Konsāto', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00' },
          { as: 'administrator', lang: 'ja' },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.body.language).toBe('ja')
        expect(res.body.translations).toEqual({})
        expect(res.body.rest_url).toBe(`${ORIGIN}/ja/wp-json/${NS}/events/${res.body.id}`)
        const list = await app.get('/events', { lang: 'ja' })
        expect(ids(list)).toEqual([res.body.id])
        expect(list.body.rest_url).toBe(`${ORIGIN}/ja/wp-json/${NS}/events/?page=1&per_page=120&${WINDOW}&status=publish`)
      })

      it('scopes lists to the language; the parameter wins over the path', async () => {
        const app = await open()
        const en = await app.seed({ title: 'English' })
        const ja = await app.seed({ title: 'Japanese', [LANG]: 'ja' })
        const ko = await app.seed({ title: 'Korean' }, { lang: 'ko' })
        expect(ja.language).toBe('ja')
        expect(ko.language).toBe('ko')
        expect(ids(await app.get('/events'))).toEqual([en.id])
        expect(ids(await app.get('/events', { lang: 'ja' }))).toEqual([ja.id])
        expect(ids(await app.get(`/events?${LANG}=ja`))).toEqual([ja.id])
        expect(ids(await app.get(`/events?${LANG}=ko`, { lang: 'ja' }))).toEqual([ko.id])
        expect(ids(await app.get(`/events?${LANG}=zh-hans`))).toEqual([])
        // A path segment that is not a served language is not ours at all.
        expectNoRoute(await app.get('/events', { lang: 'fr' }))
      })

      it('scopes slugs to the language; ids are global', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Concert' })
        const ja = await app.seed({ title: 'Concert' }, { lang: 'ja' })
        expect(en.slug).toBe('concert')
        expect(ja.slug).toBe('concert')
        expect((await app.get('/events/by-slug/concert')).body.id).toBe(en.id)
        expect((await app.get('/events/by-slug/concert', { lang: 'ja' })).body.id).toBe(ja.id)
        expect((await app.get(`/events/by-slug/concert?${LANG}=ja`)).body.id).toBe(ja.id)
        expectInvalid(await app.get('/events/by-slug/concert', { lang: 'ko' }), ['slug'])
        const byId = await app.get(`/events/${ja.id}`)
        expect(byId.status).toBe(200)
        expect(byId.body.language).toBe('ja')
        const second = await app.seed({ title: 'Concert' })
        expect(second.slug).toBe('concert-2')
      })

      it('rejects an unknown language with rest_not_in_enum', async () => {
        const app = await open()
        const message = `${LANG} is not one of en, ja, ko, and zh-hans.`
        for (const res of [
          await app.get(`/events?${LANG}=fr`),
          await app.get(`/events/1?${LANG}=fr`),
          await app.post(
            '/events',
            { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', [LANG]: 'fr' },
            { as: 'administrator' },
          ),
        ]) {
          expectInvalid(res, [LANG])
          expect(res.body.data.params[LANG]).toBe(message)
          expect(res.body.data.details[LANG]).toEqual({
            code: 'rest_not_in_enum',
            message,
            data: { param: LANG },
          })
        }
        const typed = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', [LANG]: 5 },
          { as: 'administrator' },
        )
        expectInvalid(typed, [LANG])
        expect(typed.body.data.params[LANG]).toBe(`${LANG} is not of type string.`)
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
      })

      it('links translations with translation_of', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Festival' })
        const ja = await app.post(
          '/events',
          { title: 'Matsuri', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: en.id },
          { as: 'administrator', lang: 'ja' },
        )
        expect(ja.status, ja.text).toBe(201)
        expect(ja.body.language).toBe('ja')
        expect(ja.body.translations).toEqual({ en: en.id })
        const enAgain = await app.get(`/events/${en.id}`)
        expect(enAgain.body.translations).toEqual({ ja: ja.body.id })
        const ko = await app.seed({ title: 'Chukje', translation_of: ja.body.id }, { lang: 'ko' })
        expect(ko.translations).toEqual({ en: en.id, ja: ja.body.id })

        expectInvalid(
          await app.post(
            '/events',
            { title: 'Again', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: en.id },
            { as: 'administrator', lang: 'ja' },
          ),
          ['translation_of'],
        )
        expectInvalid(
          await app.post(
            '/events',
            { title: 'Nothing', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: 9999 },
            { as: 'administrator', lang: 'ja' },
          ),
          ['translation_of'],
        )
        // A trashed translation leaves the group, and its language is free again.
        await app.del(`/events/${ja.body.id}`, { as: 'administrator' })
        expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({ ko: ko.id })
        const again = await app.seed({ title: 'Matsuri 2', translation_of: en.id }, { lang: 'ja' })
        expect(again.translations).toEqual({ en: en.id, ko: ko.id })
      })

      it('takes a language slot of a record only for a caller who may edit it, events and venues alike', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Festival' })
        const venue = (await app.post('/venues', { venue: 'Hall', status: 'publish' }, { as: 'administrator' })).body
        const squat = await app.post(
          '/events',
          { title: 'Squat', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: en.id },
          { as: 'contributor', lang: 'ja' },
        )
        expect(squat.status, squat.text).toBe(403)
        expect(squat.body.code).toBe('rest_cannot_edit')
        const venueSquat = await app.post('/venues', { venue: 'Salle', translation_of: venue.id }, { as: 'author', lang: 'ja' })
        expect(venueSquat.status, venueSquat.text).toBe(403)
        // Nothing was written, and the slots stay free for those who may take them.
        expect((await app.get('/events', { as: 'administrator', lang: 'ja' })).body.total ?? 0).toBe(0)
        const ja = await app.seed({ title: 'Matsuri', translation_of: en.id }, { lang: 'ja' })
        expect(ja.translations).toEqual({ en: en.id })
        const fr = await app.post('/venues', { venue: 'Salle', translation_of: venue.id }, { as: 'administrator', lang: 'ja' })
        expect(fr.status, fr.text).toBe(201)
        // A contributor may translate a record of their own that they may still edit.
        const own = await app.post('/events', { title: 'Mine', start_date: '2026-12-01', end_date: '2026-12-01' }, { as: 'contributor' })
        const ownJa = await app.post(
          '/events',
          { title: 'Watashi no', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: own.body.id },
          { as: 'contributor', lang: 'ja' },
        )
        expect(ownJa.status, ownJa.text).toBe(201)
      })

      it('shows in translations only the records the caller may read', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Festival' })
        const ja = await app.seed({ title: 'Matsuri', translation_of: en.id, status: 'draft' }, { lang: 'ja' })
        const ko = await app.seed({ title: 'Chukje', translation_of: en.id }, { lang: 'ko' })
        expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({ ko: ko.id })
        expect((await app.get(`/events/${en.id}`, { as: 'subscriber' })).body.translations).toEqual({ ko: ko.id })
        expect((await app.get(`/events/${en.id}`, { as: 'editor' })).body.translations).toEqual({ ja: ja.id, ko: ko.id })
        const list = await app.get('/events')
        expect(list.body.events.find((e: { id: number }) => e.id === en.id).translations).toEqual({ ko: ko.id })
        expect(list.text).not.toContain(`"ja":${ja.id}`)
        // Once published, the translation shows (the anonymous response cache must not hold the old map).
        expect((await app.post(`/events/${ja.id}`, { status: 'publish' }, { as: 'administrator' })).status).toBe(200)
        expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({ ja: ja.id, ko: ko.id })
      })
    })
  })
}
