/**
 * The `npm start` server as a newcomer uses it: token auth from the environment, SQLite by
 * default with data surviving a restart, memory on request, CORS from the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { corsOrigins, startServer } from '../examples/node-server/server.js'
import { tokenAuth } from '../examples/node-server/auth.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-example-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function run(env: NodeJS.ProcessEnv) {
  const started = await startServer({ PORT: '0', HOST: '127.0.0.1', ...env })
  const root = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1`
  const stop = async () => {
    await new Promise<void>((resolve) => started.server.close(() => resolve()))
    await started.storage.close?.()
  }
  return { ...started, root, stop }
}

const EVENT = { title: 'Launch party', start_date: 'tomorrow 7pm', end_date: 'tomorrow 10pm' }

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

  it('rejects unknown roles and storage kinds with a clear message', async () => {
    expect(() => tokenAuth({ CALENDAR_API_TOKENS: 'x:superuser' })).toThrow(/unknown role "superuser"/)
    await expect(startServer({ PORT: '0', CALENDAR_STORAGE: 'oracle' })).rejects.toThrow(/memory, sqlite or postgres/)
    await expect(startServer({ PORT: '0', CALENDAR_STORAGE: 'postgres' })).rejects.toThrow(/CALENDAR_DATABASE_URL/)
    expect(corsOrigins('https://a.example, https://b.example')).toEqual(['https://a.example', 'https://b.example'])
    expect(corsOrigins(undefined)).toBe('*')
  })
})
