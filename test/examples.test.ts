/**
 * The examples as a newcomer runs them: express-mount and cms-prefix in process (their exported
 * factories), bun and deno through their exact `npm run example:<name>` commands on PORT=0,
 * with a SQLite file that must survive a restart. (node-server: test/example-node-server.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../examples/express-mount/server.js'
import { createCmsServer } from '../examples/cms-prefix/server.js'
import { installRuntimes, RUNTIME_BIN } from './support/runtimes.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
const dir = mkdtempSync(join(tmpdir(), 'calendar-examples-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const EVENT = { title: 'Launch party', start_date: 'tomorrow 7pm', end_date: 'tomorrow 10pm', status: 'publish' }
const json = { 'content-type': 'application/json' }

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

describe('examples/express-mount', () => {
  let site = ''
  let stop: () => Promise<void>
  beforeAll(async () => {
    const started = await createApp({
      CALENDAR_STORAGE: 'memory',
      CALENDAR_USERS: 'ed:pw:editor,sub:pw2:subscriber',
      CALENDAR_API_TOKENS: 'tok:administrator',
    })
    const server = started.app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    stop = async () => {
      await close(server)
      await started.storage.close?.()
    }
  })
  afterAll(() => stop())
  const api = () => `${site}/wp-json/calendar/events/v1`

  async function login(username: string, password: string) {
    const res = await fetch(`${site}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${username}&password=${password}`,
    })
    return {
      status: res.status,
      cookie: (res.headers.get('set-cookie') ?? '').split(';', 1)[0]!,
      body: (await res.json()) as { nonce?: string },
    }
  }

  it("keeps the host's own routes", async () => {
    expect(await (await fetch(`${site}/`)).text()).toContain('Not signed in')
    expect(await (await fetch(`${site}/wp-json/site/v1/status`)).json()).toEqual({ ok: true })
    expect((await fetch(`${site}/elsewhere`)).status).toBe(404)
  })

  it('signs calendar callers in from the host session; cookie writes need the nonce', async () => {
    expect((await login('ed', 'wrong')).status).toBe(401)
    const { cookie, body } = await login('ed', 'pw')
    expect(cookie).toMatch(/^sid=/)
    expect(await (await fetch(`${site}/`, { headers: { cookie } })).text()).toContain('Signed in as ed')
    const withoutNonce = await fetch(`${api()}/events`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify(EVENT) })
    expect(withoutNonce.status).toBe(401)
    const created = await fetch(`${api()}/events`, {
      method: 'POST',
      headers: { ...json, cookie, 'x-wp-nonce': body.nonce! },
      body: JSON.stringify(EVENT),
    })
    expect(created.status).toBe(201)
    const event = (await created.json()) as { id: number; author: string }
    expect(event.author).toBe('1000')
    // A draft is visible to its signed-in editor through the session, not to anonymous callers.
    const draft = await fetch(`${api()}/events`, {
      method: 'POST',
      headers: { ...json, cookie, 'x-wp-nonce': body.nonce! },
      body: JSON.stringify({ ...EVENT, status: 'draft' }),
    })
    const draftId = ((await draft.json()) as { id: number }).id
    expect((await fetch(`${api()}/events/${draftId}`, { headers: { cookie } })).status).toBe(200)
    expect((await fetch(`${api()}/events/${draftId}`)).status).toBe(403)
    const { cookie: subscriber, body: subBody } = await login('sub', 'pw2')
    const denied = await fetch(`${api()}/events`, {
      method: 'POST',
      headers: { ...json, cookie: subscriber, 'x-wp-nonce': subBody.nonce! },
      body: JSON.stringify(EVENT),
    })
    expect(denied.status).toBe(403)
    await fetch(`${site}/logout`, { method: 'POST', headers: { cookie } })
    expect((await fetch(`${api()}/events/${draftId}`, { headers: { cookie } })).status).toBe(403)
  })

  it('accepts bearer tokens as npm start does, with the host having parsed the body (JSON and form)', async () => {
    const auth = { authorization: 'Bearer tok' }
    const created = await fetch(`${api()}/events`, {
      method: 'POST',
      headers: { ...json, ...auth },
      body: JSON.stringify({ ...EVENT, title: 'By token' }),
    })
    expect(created.status).toBe(201)
    const form = await fetch(`${api()}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
      body: 'title=By+form&start_date=tomorrow+9am&end_date=tomorrow+10am&categories[]=Music&categories[]=Free',
    })
    expect(form.status).toBe(201)
    expect(((await form.json()) as { categories: Array<{ name: string }> }).categories.map((c) => c.name).sort()).toEqual(['Free', 'Music'])
    const bad = await fetch(`${api()}/events`, { method: 'POST', headers: { ...json, ...auth }, body: '{oops' })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { code: string }).code).toBe('rest_invalid_json')
  })
})

describe('examples/cms-prefix', () => {
  let site = ''
  let stop: () => Promise<void>
  beforeAll(async () => {
    const started = await createCmsServer({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'tok:administrator' })
    site = await listen(started.server)
    stop = async () => {
      await close(started.server)
      await started.storage.close?.()
    }
  })
  afterAll(() => stop())

  it('serves the calendar under /api/rest, with language segments and CMS permalinks', async () => {
    const headers = { ...json, authorization: 'Bearer tok' }
    const en = await fetch(`${site}/api/rest/calendar/events/v1/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...EVENT, slug: 'launch' }),
    })
    expect(en.status).toBe(201)
    expect(((await en.json()) as { url: string }).url).toBe(`${site}/events/launch/`)
    const ja = await fetch(`${site}/ja/api/rest/calendar/events/v1/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...EVENT, title: '発表会', slug: 'happyoukai' }),
    })
    expect(ja.status).toBe(201)
    expect(((await ja.json()) as { url: string }).url).toBe(`${site}/ja/events/happyoukai/`)
    const list = (await (await fetch(`${site}/ja/api/rest/calendar/events/v1/events`)).json()) as {
      events: Array<{ title: string }>
      rest_url: string
    }
    expect(list.events.map((e) => e.title)).toEqual(['発表会'])
    expect(list.rest_url.startsWith(`${site}/ja/api/rest/calendar/events/v1/events/`)).toBe(true)
    const index = (await (await fetch(`${site}/api/rest/calendar/events/v1/`)).json()) as { namespace: string }
    expect(index.namespace).toBe('calendar/events/v1')
  })

  it("with CALENDAR_TEC_NAMES=1 also serves TEC's names under the CMS prefix, and the CMS keeps its API", async () => {
    const started = await createCmsServer({ CALENDAR_STORAGE: 'memory', CALENDAR_API_TOKENS: 'tok:administrator', CALENDAR_TEC_NAMES: '1' })
    const tecSite = await listen(started.server)
    try {
      const created = await fetch(`${tecSite}/ja/api/rest/tribe/events/v1/events`, {
        method: 'POST',
        headers: { ...json, authorization: 'Bearer tok' },
        body: JSON.stringify({ ...EVENT, title: '発表会', slug: 'happyoukai' }),
      })
      expect(created.status).toBe(201)
      const event = (await created.json()) as { id: number; rest_url: string; url: string }
      expect(event.rest_url).toBe(`${tecSite}/ja/api/rest/tribe/events/v1/events/${event.id}`)
      expect(event.url).toBe(`${tecSite}/ja/events/happyoukai/`)
      const index = (await (await fetch(`${tecSite}/api/rest/tribe/events/v1`)).json()) as { namespace: string }
      expect(index.namespace).toBe('tribe/events/v1')
      const ours = (await (await fetch(`${tecSite}/ja/api/rest/calendar/events/v1/events/${event.id}`)).json()) as { rest_url: string }
      expect(ours.rest_url).toBe(`${tecSite}/ja/api/rest/calendar/events/v1/events/${event.id}`)
      expect(await (await fetch(`${tecSite}/api/rest/cms/v1/pages`)).json()).toEqual([{ id: 1, lang: 'en', title: 'Home' }])
    } finally {
      await close(started.server)
      await started.storage.close?.()
    }
  })

  it('leaves everything else to the CMS, /wp-json included', async () => {
    expect(await (await fetch(`${site}/api/rest/cms/v1/pages`)).json()).toEqual([{ id: 1, lang: 'en', title: 'Home' }])
    expect(await (await fetch(`${site}/ja/api/rest/cms/v1/pages`)).json()).toEqual([{ id: 1, lang: 'ja', title: 'Home' }])
    expect(await (await fetch(`${site}/ja/`)).text()).toContain('CMS home (ja)')
    const wp = await fetch(`${site}/wp-json/calendar/events/v1/events`)
    expect([wp.status, await wp.text()]).toEqual([404, 'Not found'])
    const other = await fetch(`${site}/api/rest/shop/v1/items`)
    expect([other.status, await other.json()]).toEqual([404, { error: 'no such API route' }])
  })
})

/** Starts `npm run <script>`'s command (the test runtimes and node_modules/.bin on PATH) and waits for its listening line. */
async function startScript(name: string, env: Record<string, string>): Promise<{ api: string; child: ChildProcess; output: () => string }> {
  const command = scripts[name]
  if (!command) throw new Error(`package.json has no script ${name}`)
  const child = spawn(command, {
    cwd: ROOT,
    shell: true,
    detached: true, // its own process group, so stop() ends the runtime and not just the shell
    env: {
      ...process.env,
      PATH: `${RUNTIME_BIN}:${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
      PORT: '0',
      HOST: '127.0.0.1',
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const api = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 30 s:\n${out}`)), 30_000)
    const check = () => {
      const m = /listening on (http:\/\/\S+?)\/?$/m.exec(out)
      if (m && /^storage: .*$/m.test(out)) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on('data', check)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}:\n${out}`))
    })
  })
  return { api, child, output: () => out }
}

async function stopScript(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  process.kill(-child.pid!, 'SIGTERM')
  await exited
}

describe.each([
  { name: 'example:bun', engine: 'bun:sqlite' },
  { name: 'example:deno', engine: 'node:sqlite' },
])('npm run $name', ({ name, engine }) => {
  // Bun and Deno are installed on demand (test/support/runtimes.ts), not by npm ci.
  beforeAll(() => installRuntimes(), 600_000)
  it(`serves the calendar from a SQLite file (${engine}) that survives a restart`, async () => {
    const env = { CALENDAR_DB: join(dir, `${name.replace(':', '-')}.db`), CALENDAR_API_TOKENS: 'tok:administrator,reader:subscriber' }
    const first = await startScript(name, env)
    try {
      expect(first.output()).toContain(engine)
      const created = await fetch(`${first.api}/events`, {
        method: 'POST',
        headers: { ...json, authorization: 'Bearer tok' },
        body: JSON.stringify(EVENT),
      })
      expect(created.status).toBe(201)
      const denied = await fetch(`${first.api}/events`, {
        method: 'POST',
        headers: { ...json, authorization: 'Bearer reader' },
        body: JSON.stringify(EVENT),
      })
      expect(denied.status).toBe(403)
      expect((await fetch(`${first.api}/events/999`)).status).toBe(404)
    } finally {
      await stopScript(first.child)
    }
    const second = await startScript(name, env)
    try {
      const list = (await (await fetch(`${second.api}/events`)).json()) as { events: Array<{ title: string }> }
      expect(list.events.map((e) => e.title)).toEqual(['Launch party'])
      const ja = await fetch(`${second.api.replace('/wp-json', '/ja/wp-json')}/events`)
      expect(((await ja.json()) as { events: unknown[] }).events).toEqual([])
    } finally {
      await stopScript(second.child)
    }
  })
})
