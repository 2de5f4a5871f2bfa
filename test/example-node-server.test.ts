/**
 * The `npm start` server as a newcomer uses it: token auth from the environment, SQLite by
 * default with data surviving a restart, memory on request, CORS from the environment.
 */
import { spawn } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { corsOrigins, startServer } from '../examples/node-server/server.js'
import { tokenAuth } from '../examples/node-server/auth.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-example-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// CALENDAR_DEMO=off: these tests count the events they wrote, so the database starts empty.
async function run(env: NodeJS.ProcessEnv) {
  const started = await startServer({ PORT: '0', HOST: '127.0.0.1', CALENDAR_DEMO: 'off', ...env })
  const root = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1`
  const stop = async () => {
    await new Promise<void>((resolve) => started.server.close(() => resolve()))
    await started.storage.close?.()
  }
  return { ...started, root, stop }
}

const EVENT = { title: 'Launch party', start_date: 'tomorrow 7pm', end_date: 'tomorrow 10pm' }

/**
 * A GET sent as written: fetch() would normalise the target (`//evil.test/`) and refuses to set
 * Host, and a client may send either as it likes.
 */
function rawGet(port: number, path: string, host = `127.0.0.1:${port}`, method = 'GET') {
  return new Promise<{ status: number; body: string; allow?: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow }))
    })
    req.on('error', reject).end()
  })
}

describe('examples/node-server', () => {
  it('stores in a SQLite file by default: an acknowledged create survives a restart', async () => {
    const env = { CALENDAR_DB: join(dir, 'calendar.db'), CALENDAR_API_TOKENS: 'admintoken:administrator,readtoken:subscriber' }
    const first = await run(env)
    expect(first.storageDescription).toContain('SQLite')
    const created = await fetch(`${first.root}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
      body: JSON.stringify(EVENT),
    })
    expect(created.status).toBe(201)
    const id = ((await created.json()) as { id: number }).id
    const denied = await fetch(`${first.root}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer readtoken', 'content-type': 'application/json' },
      body: JSON.stringify(EVENT),
    })
    expect(denied.status).toBe(403)
    await first.stop()

    const second = await run(env)
    const list = (await (await fetch(`${second.root}/events`)).json()) as { events: Array<{ id: number; title: string }> }
    expect(list.events.map((e) => [e.id, e.title])).toEqual([[id, 'Launch party']])
    await second.stop()
  })

  it('fills an empty database with demo events once, unless CALENDAR_DEMO=off', async () => {
    const env = { CALENDAR_DB: join(dir, 'demo.db'), CALENDAR_API_TOKENS: 'admintoken:administrator' }
    const count = async (root: string) => ((await (await fetch(`${root}/events?per_page=1`)).json()) as { total: number }).total
    const first = await run({ ...env, CALENDAR_DEMO: 'on' })
    expect(first.demoEvents).toBeGreaterThan(0)
    const seeded = await count(first.root)
    expect(seeded).toBeGreaterThan(first.demoEvents)
    await first.stop()
    // Not empty any more: a restart adds nothing.
    const second = await run({ ...env, CALENDAR_DEMO: 'on' })
    expect(second.demoEvents).toBe(0)
    expect(await count(second.root)).toBe(seeded)
    await second.stop()
    const off = await run({ CALENDAR_STORAGE: 'memory' })
    expect([off.demoEvents, await count(off.root)]).toEqual([0, 0])
    await off.stop()
  })

  it('uses memory when asked, prints a generated admin token when none is configured, and allows CORS', async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory' })
    expect(s.storageDescription).toContain('memory')
    expect(s.generatedToken).toMatch(/^[\w-]{20,}$/)
    const created = await fetch(`${s.root}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.generatedToken}`, 'content-type': 'application/json', origin: 'https://app.example' },
      body: JSON.stringify(EVENT),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe('*')
    await s.stop()
  })

  it("serves TEC's names beside ours with CALENDAR_TEC_NAMES=1, and only then", async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'admintoken:administrator', CALENDAR_TEC_NAMES: '1' })
    const tec = s.root.replace('calendar/events/v1', 'tribe/events/v1')
    const created = await fetch(`${tec}/events?wpml_language=ja`, {
      method: 'POST',
      headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
      body: JSON.stringify({ ...EVENT, status: 'publish' }),
    })
    expect(created.status).toBe(201)
    const event = (await created.json()) as { id: number; rest_url: string }
    // The links keep the language as a path segment (languagePathSegment), in each namespace.
    const ja = (root: string) => root.replace('/wp-json/', '/ja/wp-json/')
    expect(event.rest_url).toBe(`${ja(tec)}/events/${event.id}`)
    const ours = (await (await fetch(`${s.root}/events/${event.id}?multilingual_language=ja`)).json()) as { rest_url: string }
    expect(ours.rest_url).toBe(`${ja(s.root)}/events/${event.id}`)
    await s.stop()
    const off = await run({ CALENDAR_STORAGE: 'memory' })
    expect((await fetch(off.root.replace('calendar/events/v1', 'tribe/events/v1') + '/events')).status).toBe(404)
    await off.stop()
  })

  it('reads a request target as a path: `//evil.test/` and absolute forms never become the origin of its links', async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'admintoken:administrator' })
    const get = (path: string) => rawGet(s.port, path)
    // The pages and the API behind them (the Node adapter) alike.
    for (const path of ['//evil.test/', '//evil.test/calendar/', '//evil.test', '//evil.test/wp-json/calendar/events/v1/events']) {
      const page = await get(path)
      expect(page.status, path).toBe(404)
      expect(page.body, path).not.toContain('evil.test')
    }
    // An absolute-form target (proxies send them) names the path; the origin stays this server's.
    const absolute = await get('http://evil.test/')
    expect(absolute.status).toBe(200)
    expect(absolute.body).not.toContain('evil.test')
    expect(absolute.body).toContain(`http://127.0.0.1:${s.port}/wp-json/calendar/events/v1/events?format=ics`)
    await s.stop()
  })

  it('answers a method the fetch API refuses (TRACE) with a 4xx, never a 500', async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory' })
    // TRACE: Node parses it and hands it on (TRACK it refuses with its own 400, CONNECT it hands to a
    // 'connect' listener, which this server has not).
    for (const method of ['TRACE']) {
      // The pages: 405 with the methods they answer.
      for (const path of ['/', '/calendar/']) {
        const page = await rawGet(s.port, path, undefined, method)
        expect(page.status, `${method} ${path}`).toBe(405)
        expect(page.allow, `${method} ${path}`).toBe('GET, HEAD')
      }
      // The API: no route answers that method, as WordPress says it.
      const api = await rawGet(s.port, '/wp-json/calendar/events/v1/events', undefined, method)
      expect(api.status, method).toBe(404)
      expect(JSON.parse(api.body)).toMatchObject({ code: 'rest_no_route' })
    }
    await s.stop()
  })

  it('names the site by its own address or CALENDAR_SITE_URL: UIDs and global_id ignore the Host header', async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'admintoken:administrator' })
    expect(s.siteUrl).toBe(`http://127.0.0.1:${s.port}`)
    const created = await fetch(`${s.root}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
      body: JSON.stringify({ ...EVENT, status: 'publish' }),
    })
    const id = ((await created.json()) as { id: number }).id
    const feedPath = '/wp-json/calendar/events/v1/events?format=ics'
    const uids = async (host: string) => (await rawGet(s.port, feedPath, host)).body.split('\r\n').filter((l) => l.startsWith('UID:'))
    expect(await uids(`127.0.0.1:${s.port}`)).toEqual([`UID:${id}@127.0.0.1`])
    expect(await uids(`localhost:${s.port}`)).toEqual([`UID:${id}@127.0.0.1`])
    // The home page's feed link is the site's, not the Host header's.
    expect((await rawGet(s.port, '/', 'evil.test')).body).not.toContain('evil.test')
    await s.stop()

    const named = await run({ CALENDAR_STORAGE: 'memory', CALENDAR_SITE_URL: 'https://events.example.org/' })
    expect(named.siteUrl).toBe('https://events.example.org')
    expect((await rawGet(named.port, '/')).body).toContain('webcal://events.example.org/wp-json/calendar/events/v1/events?format=ics')
    await named.stop()
    await expect(run({ CALENDAR_STORAGE: 'memory', CALENDAR_SITE_URL: 'events.example.org' })).rejects.toThrow(/siteUrl/)
  })

  it("shows costs in CALENDAR_CURRENCY, in the API and in the editor's hint", async () => {
    const s = await run({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'admintoken:administrator', CALENDAR_CURRENCY: '€:postfix' })
    const created = await fetch(`${s.root}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
      body: JSON.stringify({ ...EVENT, cost: '12' }),
    })
    const event = (await created.json()) as { cost: string; url: string }
    expect(event.cost).toBe('12€')
    // The event page shows the API's cost, so the site's currency too.
    expect((await rawGet(s.port, new URL(event.url).pathname)).body).toMatch(/<dd>12€<\/dd>/)
    expect((await rawGet(s.port, '/editor/')).body).toContain('For example 12 (shown as 12€)')
    await s.stop()
    await expect(run({ CALENDAR_STORAGE: 'memory', CALENDAR_CURRENCY: '12' })).rejects.toThrow(/currency/)
  })

  it('rejects unknown roles and storage kinds with a clear message', async () => {
    expect(() => tokenAuth({ CALENDAR_API_TOKENS: 'x:superuser' })).toThrow(/unknown role "superuser"/)
    await expect(startServer({ PORT: '0', CALENDAR_STORAGE: 'oracle' })).rejects.toThrow(/memory, sqlite or postgres/)
    await expect(startServer({ PORT: '0', CALENDAR_STORAGE: 'postgres' })).rejects.toThrow(/CALENDAR_DATABASE_URL/)
    expect(corsOrigins('https://a.example, https://b.example')).toEqual(['https://a.example', 'https://b.example'])
    expect(corsOrigins(undefined)).toBe('*')
  })

  it('on SIGTERM finishes the requests in flight, closes the SQLite storage (no -wal left) and exits 0', async () => {
    const file = join(dir, 'sigterm.db')
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        CALENDAR_DB: file,
        CALENDAR_API_TOKENS: 'admintoken:administrator',
        CALENDAR_DEMO: 'off',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    )
    let out = ''
    try {
      const root = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString()
          const m = /listening on (http:\/\/\S+?)\/?\s/.exec(out)
          if (m) resolve(m[1]!)
        })
        void exited.then(() => reject(new Error(`the server exited before listening:\n${out}`)))
      })
      const create = (i: number) =>
        fetch(`${root}/events`, {
          method: 'POST',
          headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
          body: JSON.stringify({ ...EVENT, title: `Before the stop ${i}` }),
        }).then(
          (res) => res.status,
          () => 0, // refused or cut once the server stopped listening
        )
      // Some writes done, then more in flight when the signal arrives.
      const done = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i)))
      expect(done.every((status) => status === 201)).toBe(true)
      const inFlight = Array.from({ length: 24 }, (_, i) => create(40 + i))
      await new Promise((resolve) => setTimeout(resolve, 5))
      child.kill('SIGTERM')
      const late = await Promise.all(inFlight)
      expect(await exited).toEqual({ code: 0, signal: null })
      // The start says which address names the site, and how to change it.
      expect(out).toContain(
        `site address (UIDs, global ids, webhook links): ${root.replace(/\/wp-json.*$/, '')} (this server; set CALENDAR_SITE_URL`,
      )
      // And how to let webhooks reach a receiver on this machine: the API's 400 names the router
      // option (webhooks.allowPrivate), which this server takes from the environment.
      expect(out).toContain('webhooks: public addresses only (CALENDAR_WEBHOOK_ALLOW_PRIVATE=1 lets them reach loopback and private ones')
      // Closed: the log checkpointed into the database and removed (or at least emptied).
      expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0)
      const db = new Database(file, { readonly: true })
      const stored = (db.prepare(`SELECT count(*) AS n FROM posts WHERE type = 'event'`).get() as { n: number }).n
      db.close()
      // Every acknowledged create is in the file; none was cut half-way by the exit.
      expect(late.every((status) => status === 201 || status === 0)).toBe(true)
      expect(stored).toBe(40 + late.filter((status) => status === 201).length)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  }, 30_000)
})
