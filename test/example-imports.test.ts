/**
 * The example server's scheduled re-imports (examples/node-server/imports.ts): started with a
 * local .ics file as CALENDAR_IMPORT_SOURCES, its event appears in the API; a bad variable stops
 * the server from starting with the reason; an administrator edits an imported event with
 * If-Match on the default SQLite storage (issue 37 finding 1, as the issue met it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startServer } from '../examples/node-server/server.js'
import { importSourcesFromEnv } from '../examples/node-server/imports.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-example-imports-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//example//EN',
  'BEGIN:VEVENT',
  'UID:scheduled-1@example.org',
  'DTSTART:20270315T180000Z',
  'DTEND:20270315T200000Z',
  'SUMMARY:Imported on a schedule',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n')

describe('examples/node-server scheduled re-imports', () => {
  it('imports CALENDAR_IMPORT_SOURCES on start: the event appears in the API', async () => {
    const file = join(dir, 'team.ics')
    writeFileSync(file, ICS)
    const started = await startServer({
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_DEMO: 'off',
      CALENDAR_STORAGE: 'memory',
      CALENDAR_API_TOKENS: 'admintoken:administrator',
      CALENDAR_IMPORT_SOURCES: JSON.stringify([{ format: 'ics', location: file, deleteMissing: true }]),
      CALENDAR_IMPORT_EVERY: '5',
    })
    try {
      expect(started.imports.sources).toBe(1)
      await started.imports.running()
      const root = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1`
      const list = (await (await fetch(`${root}/events?start_date=2027-03-01&end_date=2027-03-31`)).json()) as {
        events: Array<{ title: string; start_date: string }>
      }
      expect(list.events.map((e) => [e.title, e.start_date])).toEqual([['Imported on a schedule', '2027-03-15 18:00:00']])
    } finally {
      await new Promise<void>((resolve) => started.server.close(() => resolve()))
      await started.storage.close?.()
    }
  })

  it('an administrator edits an imported event with If-Match on the default SQLite storage (issue 37 finding 1)', async () => {
    // As the issue met it: the example server's own storage, an event the importer wrote, the
    // ETag of the administrator's read (with import_source) sent back; it answered 412.
    const file = join(dir, 'conditional.ics')
    writeFileSync(file, ICS)
    const started = await startServer({
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_DEMO: 'off',
      CALENDAR_DB: join(dir, 'conditional.db'),
      CALENDAR_API_TOKENS: 'admintoken:administrator',
      CALENDAR_IMPORT_SOURCES: JSON.stringify([{ format: 'ics', location: file }]),
    })
    try {
      expect(started.storageDescription).toContain('SQLite')
      await started.imports.running()
      const root = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1`
      const admin = { authorization: 'Bearer admintoken', 'content-type': 'application/json' }
      const list = (await (await fetch(`${root}/events?start_date=2027-03-01&end_date=2027-03-31`)).json()) as {
        events: Array<{ id: number }>
      }
      const url = `${root}/events/${list.events[0]!.id}`
      const read = await fetch(url, { headers: admin })
      expect(((await read.json()) as { import_source?: { source_id: string } }).import_source?.source_id).toBe('scheduled-1@example.org')
      const edited = await fetch(url, {
        method: 'POST',
        headers: { ...admin, 'if-match': read.headers.get('etag')! },
        body: JSON.stringify({ title: 'Edited after the import' }),
      })
      expect(edited.status, await edited.clone().text()).toBe(200)
      // The write reply's tag is good for the next conditional write, the delete included.
      const trashed = await fetch(url, { method: 'DELETE', headers: { ...admin, 'if-match': edited.headers.get('etag')! } })
      expect(trashed.status, await trashed.clone().text()).toBe(200)
      // A stale tag is still refused.
      const stale = await fetch(url, {
        method: 'POST',
        headers: { ...admin, 'if-match': read.headers.get('etag')! },
        body: '{"title":"x"}',
      })
      expect(stale.status).toBe(412)
    } finally {
      await new Promise<void>((resolve) => started.server.close(() => resolve()))
      await started.storage.close?.()
    }
  })

  it('refuses a variable that is not a list of sources, naming what is wrong', () => {
    expect(() => importSourcesFromEnv('[{"format":"ics"')).toThrow(/not JSON/)
    expect(() => importSourcesFromEnv('[{"format":"xls","location":"a.xls"}]')).toThrow(/\[0\]: "format" must be ics, csv or tec/)
    expect(() => importSourcesFromEnv('[{"format":"ics"}]')).toThrow(/"location"/)
    expect(importSourcesFromEnv(undefined)).toEqual([])
  })
})
