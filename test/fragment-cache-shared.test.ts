/**
 * Two routers, each with its own fragment cache and its own connection, on ONE database (a
 * SQLite file; a PostgreSQL schema): a write through router A is seen by router B's next read,
 * with no cache lifetime to wait for, because every fragment is keyed by the record's revision.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { authenticate, makeApp, NOW, NS_PATH, ORIGIN } from './http/harness.js'
import { admin as pgAdmin, pgDescribe, schemaStorage } from './support/pg-schema.js'

afterAll(() => pgAdmin?.end())

const admin = { as: 'administrator' as const }

async function read(router: CalendarRouter, path: string, as?: 'editor') {
  const headers = new Headers(as ? { Authorization: `Bearer ${as}` } : {})
  const res = await router.fetch(new Request(`${ORIGIN}${NS_PATH}${path}`, { headers }))
  return { status: res.status, text: await res.text() }
}

/** `first` is router A's storage; `second()` opens another connection to the same database. */
function sharedDatabase(first: () => Promise<Storage>, second: () => Promise<Storage>) {
  it('a write through router A is seen by router B on its next read, single and list, for every caller', async () => {
    const a = await makeApp(first)
    const storageB = await second()
    try {
      const b = createCalendarRouter(storageB, { authenticate, now: () => new Date(NOW) })
      const plainB = createCalendarRouter(storageB, { authenticate, now: () => new Date(NOW), fragmentCache: false })
      const venue = (await a.post('/venues', { venue: 'Harbour Hall', city: 'Portsmouth', status: 'publish' }, admin)).body
      const organizer = (await a.post('/organizers', { organizer: 'Friends', status: 'publish' }, admin)).body
      const event = await a.seed({ title: 'Harbour evening', venue: venue.id, organizer: [organizer.id], categories: ['Music'] })
      const paths = [`/events/${event.id}`, '/events', `/venues/${venue.id}`, '/venues']
      const callers = [undefined, 'editor'] as const
      const check = async () => {
        for (const path of paths)
          for (const as of callers) {
            const got = await read(b, path, as)
            expect(got.text, `${as ?? 'anonymous'} ${path}`).toBe((await read(plainB, path, as)).text)
          }
      }
      await check()
      await check() // the second pass is served from B's fragments
      expect(b.fragmentCacheStats()!.hits).toBeGreaterThan(0)

      expect((await a.post(`/events/${event.id}`, { title: 'Renamed evening' }, admin)).status).toBe(200)
      expect((await a.post(`/venues/${venue.id}`, { venue: 'Renamed Hall' }, admin)).status).toBe(200)
      expect((await a.post(`/organizers/${organizer.id}`, { organizer: 'Renamed Friends' }, admin)).status).toBe(200)
      for (const path of [`/events/${event.id}`, '/events']) {
        const got = (await read(b, path)).text
        expect(got).toContain('Renamed evening')
        expect(got).toContain('Renamed Hall')
        expect(got).toContain('Renamed Friends')
        expect(got).not.toContain('Harbour Hall')
      }
      await check()

      // A venue made a draft through A leaves B's anonymous embeds at once; editors still see it.
      expect((await a.post(`/venues/${venue.id}`, { status: 'draft' }, admin)).status).toBe(200)
      expect((await read(b, `/events/${event.id}`)).text).not.toContain('Renamed Hall')
      expect((await read(b, `/events/${event.id}`, 'editor')).text).toContain('Renamed Hall')
      await check()
    } finally {
      await storageB.close?.()
      await a.close()
    }
  })
}

describe('fragment cache, two routers on one SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-fragments-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'shared.sqlite')
  sharedDatabase(
    async () => createSqlStorage({ driver: await openSqliteFile(file) }),
    async () => createSqlStorage({ driver: await openSqliteFile(file) }),
  )
})

pgDescribe('fragment cache, two routers on one PostgreSQL database', () => {
  let schema = ''
  sharedDatabase(
    async () => {
      const s = await schemaStorage()
      schema = s.schema
      return s
    },
    () => schemaStorage(schema),
  )
})
