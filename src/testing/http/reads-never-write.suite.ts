/**
 * A read never writes: every GET and HEAD the namespace serves, for anonymous readers and for
 * an administrator, over a store holding an open-ended series, lone events, venues, organizers
 * and terms, opens no storage transaction — including lists and feeds reaching years past the
 * written horizon, a provisional occurrence read by id, sync pages and the reference document.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp } from './harness.js'

/** The storage with its transactions counted (every write of the contract runs in one). */
async function counted(makeStorage: () => Storage | Promise<Storage>) {
  const storage = await makeStorage()
  const counter = { transactions: 0 }
  const open = storage.transaction.bind(storage)
  storage.transaction = ((fn: Parameters<Storage['transaction']>[0]) => {
    counter.transactions++
    return open(fn)
  }) as Storage['transaction']
  return { storage, counter }
}

export function readsNeverWriteSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`reads never write [${name}]`, () => {
    it('no GET or HEAD opens a transaction, whatever it asks for', async () => {
      const { storage, counter } = await counted(makeStorage)
      const a = await makeApp(() => storage, { recurrence: { horizonMonths: 3 } })
      onTestFinished(() => a.close())
      const admin = { as: 'administrator' as const }
      const series = await a.post(
        '/events',
        {
          title: 'Weekly',
          start_date: '2026-12-02 18:00:00',
          end_date: '2026-12-02 19:00:00',
          recurrence: 'FREQ=WEEKLY',
          venue: { venue: 'Hall', city: 'Oslo' },
          organizer: { organizer: 'Club' },
          categories: ['Music'],
          tags: ['Open'],
        },
        admin,
      )
      expect(series.status).toBe(201)
      const lone = await a.post('/events', { title: 'Lone', start_date: '2027-01-10 10:00', end_date: '2027-01-10 11:00' }, admin)
      expect(lone.status).toBe(201)
      const far = (await a.get('/events?start_date=2031-01-01&end_date=2031-01-31', admin)).body.events as Array<{ id: number }>
      expect(far.length).toBeGreaterThan(3)
      const token = (await a.get('/events?sync_token=*&per_page=50', admin)).body.sync_token as string
      counter.transactions = 0

      const paths = [
        '/',
        '/doc',
        '/events',
        '/events?start_date=2026-01-01&end_date=2031-12-31&per_page=50',
        '/events?start_date=2030-06-01&end_date=2030-06-30&hide_subsequent_recurrences=true',
        '/events?start_date=2030-06-01&end_date=2030-06-30&categories=music&page=2&per_page=2',
        '/events?start_date=2026-01-01&end_date=2031-12-31&ical=1',
        '/events?start_date=2026-01-01&end_date=2031-12-31&format=ics',
        `/events/${series.body.id}`,
        `/events/${lone.body.id}`,
        `/events/${far[0]!.id}`,
        `/events/${far[0]!.id}?format=ics`,
        `/events/by-slug/${lone.body.slug}`,
        `/events?sync_token=${encodeURIComponent(token)}`,
        '/events?sync_token=*&per_page=2',
        '/venues',
        `/venues/${series.body.venue.id}`,
        '/organizers',
        `/organizers/${series.body.organizer[0].id}`,
        '/categories',
        '/tags',
        '/events/999999',
        '/events?start_date=nonsense',
      ]
      for (const as of [undefined, 'administrator'] as const) {
        for (const path of paths) {
          const res = await a.get(path, as ? { as } : {})
          expect(res.status, `${as ?? 'anonymous'} GET ${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500)
          const head = await a.head(path, as ? { as } : {})
          expect(head.status).toBe(res.status)
        }
      }
      expect(counter.transactions).toBe(0)
      const after = await a.get(`/events?sync_token=${encodeURIComponent(token)}`, admin)
      expect(after.body.events).toEqual([])
      expect(after.body.deleted).toEqual([])
    })
  })
}
