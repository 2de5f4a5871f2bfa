/**
 * The CalDAV face on each storage backend (memory, SQLite, PostgreSQL), in process: what depends
 * on the backend's transactions and journal. test/caldav-protocol.test.ts covers the protocol on
 * memory; test/caldav-clients.test.ts runs real clients against the example server.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { authenticate, NOW, ORIGIN } from './http/harness.js'
import { admin, reason, schemaStorage, url as pgUrl } from './support/pg-schema.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-caldav-storage-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())
let n = 0

const CAL = `${ORIGIN}/caldav/calendars/en/`

const BACKENDS: Array<[string, () => Promise<Storage>]> = [
  ['memory', async () => createMemoryStorage()],
  ['SQLite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `caldav-${++n}.sqlite`)) })],
]
if (pgUrl) BACKENDS.push(['PostgreSQL', () => schemaStorage()])
// Skip reason: no PostgreSQL server here (outside CI only; in CI the globalSetup fails instead).
else describe.skip(`CalDAV on PostgreSQL: ${reason}`, () => {})

async function app(make: () => Promise<Storage>) {
  const storage = await make()
  onTestFinished(() => storage.close?.())
  return createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), caldav: true, onError: (e) => console.error(e) })
}

async function dav(router: CalendarRouter, method: string, href: string, body?: string, headers: Record<string, string> = {}) {
  const res = await router.fetch(
    new Request(href.startsWith('http') ? href : `${ORIGIN}${href}`, {
      method,
      headers: {
        authorization: 'Bearer administrator',
        ...(body !== undefined && method === 'PUT' ? { 'content-type': 'text/calendar' } : {}),
        ...headers,
      },
      body,
    }),
  )
  return { status: res.status, headers: res.headers, text: await res.text() }
}

export const ics = (uid: string, lines: string[], extra: string[] = []) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    ...lines,
    'END:VEVENT',
    ...extra,
    'END:VCALENDAR',
    '',
  ].join('\r\n')

describe.each(BACKENDS)('CalDAV on %s', (_name, make) => {
  it('If-Match is checked in the transaction that writes: of racing PUTs with one ETag exactly one wins', { timeout: 60_000 }, async () => {
    const router = await app(make)
    const body = ics('race@x', ['DTSTART:20270105T180000Z', 'DTEND:20270105T200000Z', 'SUMMARY:Start'])
    expect((await dav(router, 'PUT', `${CAL}race.ics`, body)).status).toBe(201)
    const got = await dav(router, 'GET', `${CAL}race.ics`)
    const etag = got.headers.get('etag')!
    const racers = ['One', 'Two', 'Three', 'Four']
    const answers = await Promise.all(
      racers.map((title) =>
        dav(router, 'PUT', `${CAL}race.ics`, got.text.replace('SUMMARY:Start', `SUMMARY:${title}`), { 'if-match': etag }),
      ),
    )
    const statuses = answers.map((a) => a.status)
    expect(
      statuses.filter((s) => s === 204),
      statuses.join(),
    ).toHaveLength(1)
    expect(
      statuses.filter((s) => s === 412),
      statuses.join(),
    ).toHaveLength(racers.length - 1)
    const winner = racers[statuses.indexOf(204)]!
    expect((await dav(router, 'GET', `${CAL}race.ics`)).text).toContain(`SUMMARY:${winner}\r\n`)
    // Racing deletes with the winner's ETag: one removes it, the other finds it changed or gone.
    const now = (await dav(router, 'GET', `${CAL}race.ics`)).headers.get('etag')!
    const deletes = await Promise.all([0, 1].map(() => dav(router, 'DELETE', `${CAL}race.ics`, undefined, { 'if-match': now })))
    expect(deletes.map((d) => d.status).sort()).toEqual([204, 412])
  })

  it('rolls back the whole PUT when a later part of it is refused: nothing half-written', { timeout: 60_000 }, async () => {
    const router = await app(make)
    const series = ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=3']
    expect((await dav(router, 'PUT', `${CAL}half.ics`, ics('half@x', [...series, 'SUMMARY:Before']))).status).toBe(201)
    const stray = [
      'BEGIN:VEVENT',
      'UID:half@x',
      'RECURRENCE-ID:20270105T180000Z',
      'DTSTART:20270105T200000Z',
      'SUMMARY:Nowhere',
      'END:VEVENT',
    ]
    const refused = await dav(router, 'PUT', `${CAL}half.ics`, ics('half@x', [...series, 'SUMMARY:After'], stray))
    expect(refused.status).toBe(403)
    expect(refused.text).toContain('valid-calendar-object-resource')
    const got = await dav(router, 'GET', `${CAL}half.ics`)
    expect(got.text).toContain('SUMMARY:Before')
    expect(got.text).not.toContain('SUMMARY:After')
  })
})
