/**
 * CalDAV clients nobody here wrote against the example server (`npm start`, in a process of its
 * own) on memory, SQLite and PostgreSQL: `tsdav` (npm), Debian's `python3-caldav` and
 * `vdirsyncer` (two-way: created locally appears on the server, changed on the server appears
 * locally, a local delete removes it on the server, and a second sync is a no-op). The Debian
 * clients are installed by .ci/run; outside CI a missing one skips its block under a name that
 * says so. Their timings are printed (not asserted).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createDAVClient } from 'tsdav'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { admin as pgAdmin, url as pgUrl } from './support/pg-schema.js'
import { startExample } from './support/example-server.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'calendar-caldav-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const PYTHON = '/usr/bin/python3'
const hasPythonCaldav = existsSync('/usr/lib/python3/dist-packages/caldav/__init__.py') && existsSync(PYTHON)
const hasVdirsyncer = existsSync('/usr/bin/vdirsyncer')
const TOKENS = 'caltoken:administrator:1,readtoken:subscriber:2'

interface Server {
  origin: string
  api: string
}

/** `npm start` in a process of its own, with this file's tokens; resolves once it listens. */
async function startCaldavExample(env: Record<string, string>): Promise<Server> {
  const { root } = await startExample({ CALENDAR_API_TOKENS: TOKENS, CALENDAR_DEMO: 'off', ...env })
  return { origin: new URL(root).origin, api: root }
}

async function rest(server: Server, method: string, path: string, body?: unknown) {
  const res = await fetch(server.api + path, {
    method,
    headers: { authorization: 'Bearer caltoken', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

const byTitle = async (server: Server, search: string) =>
  (await rest(server, 'GET', `/events?search=${encodeURIComponent(search)}&status=any&start_date=2000-01-01`)).body.events as any[]

const timings: string[] = []
afterAll(() => {
  if (timings.length) console.log(`CalDAV client timings:\n${timings.join('\n')}`)
})

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now()
  const result = await fn()
  timings.push(`  ${label}: ${Math.round(performance.now() - start)} ms`)
  return result
}

const SERIES = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//tsdav test//EN',
  'BEGIN:VEVENT',
  'UID:tsdav-1@client.example',
  'DTSTAMP:20260101T000000Z',
  'DTSTART:20270105T100000Z',
  'DTEND:20270105T110000Z',
  'RRULE:FREQ=WEEKLY;COUNT=3',
  'SUMMARY:From tsdav',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n')

async function tsdavScenario(server: Server) {
  const client = await createDAVClient({
    serverUrl: `${server.origin}/caldav/`,
    credentials: { username: 'tsdav', password: 'caltoken' },
    authMethod: 'Basic',
    defaultAccountType: 'caldav',
  })
  const calendars = await client.fetchCalendars()
  expect(calendars.map((c) => c.url)).toEqual([`${server.origin}/caldav/calendars/all/`])
  const calendar = calendars[0]!
  expect(calendar.components).toContain('VEVENT')
  const created = await client.createCalendarObject({ calendar, filename: 'tsdav-1.ics', iCalString: SERIES })
  expect(created.status).toBe(201)
  expect((await byTitle(server, 'From tsdav')).map((e) => e.start_date)).toEqual([
    '2027-01-05 10:00:00',
    '2027-01-12 10:00:00',
    '2027-01-19 10:00:00',
  ])
  // The second occurrence alone is in this range: the series is found by it.
  const inRange = await client.fetchCalendarObjects({ calendar, timeRange: { start: '2027-01-11T00:00:00Z', end: '2027-01-13T00:00:00Z' } })
  expect(inRange.map((o) => o.url)).toEqual([`${server.origin}/caldav/calendars/all/tsdav-1.ics`])
  const object = inRange[0]!
  expect(object.data).toContain('RRULE:FREQ=WEEKLY;COUNT=3')
  const updated = await client.updateCalendarObject({
    calendarObject: { ...object, data: object.data.replace('SUMMARY:From tsdav', 'SUMMARY:Edited in tsdav') },
  })
  expect(updated.status).toBe(204)
  const stale = await client.updateCalendarObject({
    calendarObject: { ...object, data: object.data.replace('SUMMARY:From tsdav', 'SUMMARY:Stale') },
  })
  expect(stale.status).toBe(412)
  expect(await byTitle(server, 'Edited in tsdav')).toHaveLength(3)
  // A REST edit reaches the sync report, with the object's new ETag.
  const id = (await byTitle(server, 'Edited in tsdav'))[0].id
  await rest(server, 'POST', `/events/${id}?recurrence_scope=all`, { title: 'Edited in REST' })
  const changes = await client.syncCollection({
    url: calendar.url,
    props: { 'd:getetag': {} },
    syncLevel: 1,
    syncToken: calendar.syncToken as string,
  })
  expect(changes.map((r) => r.href)).toEqual(['/caldav/calendars/all/tsdav-1.ics'])
  const [fresh] = await client.calendarMultiGet({
    url: calendar.url,
    props: { 'd:getetag': {}, 'c:calendar-data': {} },
    objectUrls: [object.url],
    depth: '1',
  })
  expect(changes[0]!.props?.getetag).toBe(fresh!.props?.getetag)
  expect(String(fresh!.props?.calendarData?._cdata ?? fresh!.props?.calendarData)).toContain('SUMMARY:Edited in REST')
  const deleted = await client.deleteCalendarObject({ calendarObject: { url: object.url, etag: fresh!.props?.getetag } })
  expect(deleted.status).toBe(204)
  expect(await byTitle(server, 'Edited in REST')).toHaveLength(0)
}

async function pythonScenario(server: Server) {
  const { stdout } = await run(PYTHON, [join(ROOT, 'test/caldav/python-client.py'), `${server.origin}/caldav/`, 'caltoken'])
  const seen = JSON.parse(stdout)
  expect(seen.calendars).toEqual([`${server.origin}/caldav/calendars/all/`])
  expect(seen.before).toBe(0)
  expect(seen.summary).toBe('From python')
  expect(seen.rrule).toBe('FREQ=WEEKLY;COUNT=3')
  expect(seen.search).toEqual([seen.url])
  expect(seen.outside).toEqual([])
  expect(seen.edited).toBe('From python, edited')
  expect(seen.after).toBe(0)
  expect(await byTitle(server, 'From python')).toHaveLength(0)
}

async function vdirsyncer(config: string, ...args: string[]): Promise<string> {
  const child = execFile('/usr/bin/vdirsyncer', ['-c', config, ...args])
  // `discover` asks before it creates the local collection.
  child.stdin?.end('y\n')
  let out = ''
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`vdirsyncer ${args.join(' ')} exited with ${code}: ${out}`)
  return out
}

async function vdirsyncerScenario(server: Server, name: string) {
  const base = join(dir, `vdir-${name}`)
  const local = join(base, 'local')
  const config = join(base, 'config')
  await run('mkdir', ['-p', local])
  writeFileSync(
    config,
    [
      '[general]',
      `status_path = "${join(base, 'status')}/"`,
      '[pair cal]',
      'a = "cal_local"',
      'b = "cal_remote"',
      'collections = ["from b"]',
      '[storage cal_local]',
      'type = "filesystem"',
      `path = "${local}/"`,
      'fileext = ".ics"',
      '[storage cal_remote]',
      'type = "caldav"',
      `url = "${server.origin}/caldav/"`,
      'username = "vdirsyncer"',
      'password = "caltoken"',
      '',
    ].join('\n'),
  )
  await rest(server, 'POST', '/events', {
    title: 'On the server',
    start_date: '2027-02-01 10:00',
    end_date: '2027-02-01 11:00',
    status: 'publish',
  })
  await timed(`vdirsyncer ${name}: discover`, () => vdirsyncer(config, 'discover', 'cal'))
  const first = await timed(`vdirsyncer ${name}: first sync (1 event)`, () => vdirsyncer(config, 'sync'))
  expect(first).toContain('Copying (uploading) item')
  const folder = join(local, 'all')
  const files = () => readdirSync(folder).map((f) => readFileSync(join(folder, f), 'utf8'))
  expect(files().some((t) => t.includes('SUMMARY:On the server'))).toBe(true)

  // Created locally: appears on the server.
  writeFileSync(
    join(folder, 'local-1.ics'),
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//local//EN\r\nBEGIN:VEVENT\r\nUID:local-1@laptop.example\r\nDTSTAMP:20260101T000000Z\r\n' +
      'DTSTART:20270301T090000Z\r\nDTEND:20270301T100000Z\r\nSUMMARY:Made locally\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
  )
  await vdirsyncer(config, 'sync')
  const made = await byTitle(server, 'Made locally')
  expect(made).toHaveLength(1)
  // Changed on the server: appears locally.
  await rest(server, 'POST', `/events/${made[0].id}`, { title: 'Changed on the server' })
  await vdirsyncer(config, 'sync')
  expect(files().some((t) => t.includes('SUMMARY:Changed on the server'))).toBe(true)
  // Deleted locally: removed on the server (to its trash).
  unlinkSync(join(folder, 'local-1.ics'))
  await vdirsyncer(config, 'sync')
  expect(await byTitle(server, 'Changed on the server')).toHaveLength(0)
  // Settled: a further sync copies and deletes nothing.
  const again = await timed(`vdirsyncer ${name}: sync with nothing changed`, () => vdirsyncer(config, 'sync'))
  expect(again).not.toMatch(/Copying|Deleting/)
  expect(files()).toHaveLength(1)
}

function backends(): Array<[string, () => Promise<Record<string, string>>]> {
  const list: Array<[string, () => Promise<Record<string, string>>]> = [
    ['memory', async () => ({ CALENDAR_STORAGE: 'memory' })],
    ['SQLite', async () => ({ CALENDAR_STORAGE: 'sqlite', CALENDAR_DB: join(dir, `db-${Math.random().toString(36).slice(2)}.sqlite`) })],
  ]
  if (pgUrl) {
    list.push([
      'PostgreSQL',
      async () => {
        const schema = `s_caldav_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
        await pgAdmin!.query(`CREATE SCHEMA ${schema}`)
        onTestFinished(async () => {
          await pgAdmin!.query(`DROP SCHEMA ${schema} CASCADE`)
        })
        const database = new URL(pgUrl!)
        database.searchParams.set('options', `-c search_path=${schema}`)
        return { CALENDAR_STORAGE: 'postgres', CALENDAR_DATABASE_URL: database.href }
      },
    ])
  }
  return list
}

afterAll(async () => {
  await pgAdmin?.end()
})

describe.each(backends())('CalDAV clients against the example server on %s', (name, env) => {
  it(
    'tsdav: discovers, creates a series, queries by time, updates with If-Match, syncs a REST edit, deletes',
    { timeout: 60_000 },
    async () => {
      const server = await startCaldavExample(await env())
      await timed(`tsdav ${name}: whole scenario`, () => tsdavScenario(server))
    },
  )

  const withPython = hasPythonCaldav ? it : it.skip
  withPython(
    `python3-caldav: principal, calendars, save, by UID, date search, edit, delete${hasPythonCaldav ? '' : ' (skipped: python3-caldav is not installed; .ci/run installs it)'}`,
    { timeout: 60_000 },
    async () => {
      const server = await startCaldavExample(await env())
      await timed(`python3-caldav ${name}: whole scenario`, () => pythonScenario(server))
    },
  )

  const withVdirsyncer = hasVdirsyncer ? it : it.skip
  withVdirsyncer(
    `vdirsyncer: two-way sync${hasVdirsyncer ? '' : ' (skipped: vdirsyncer is not installed; .ci/run installs it)'}`,
    { timeout: 120_000 },
    async () => {
      const server = await startCaldavExample(await env())
      await vdirsyncerScenario(server, name)
    },
  )
})
