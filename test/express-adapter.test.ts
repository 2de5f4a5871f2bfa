/**
 * calendar-events-router/express on real Express 4 and 5 servers (app.listen(0) + fetch):
 * mounted at the root and under /wp-json, with and without the host's body parsers.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express5 from 'express'
import express4 from 'express4'
import { createCalendarRouter, type AuthRequest } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { calendarMiddleware } from '../adapters/express/index.js'
import { bodyText, formEncode } from '../adapters/express/body.js'

const NS = '/wp-json/calendar/events/v1'
const TOKEN = 'Bearer secret'
const LIMIT = 4096
const event = (title: string) => ({ title, start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', status: 'publish' })

interface Setup {
  version: 4 | 5
  mount: 'root' | 'wp-json'
  parsers: boolean
}
const setups: Setup[] = []
for (const version of [4, 5] as const)
  for (const mount of ['root', 'wp-json'] as const) for (const parsers of [false, true]) setups.push({ version, mount, parsers })

async function start({ version, mount, parsers }: Setup) {
  const express = version === 4 ? express4 : express5
  const seen: { raw?: unknown } = {}
  const calendar = createCalendarRouter(createMemoryStorage(), {
    maxBodyBytes: LIMIT,
    authenticate(request: AuthRequest) {
      seen.raw = request.raw
      if (request.headers.get('x-explode')) throw new Error('authenticate failed')
      const session = (request.raw as { session?: { role: 'editor' } }).session
      if (session) return { id: 7, role: session.role }
      return request.headers.get('authorization') === TOKEN ? { id: 1, role: 'administrator' } : null
    },
  })
  const app = express()
  app.set('trust proxy', 'loopback')
  if (parsers) app.use(express.json(), express.urlencoded({ extended: true }), express.text())
  app.use((req, _res, next) => {
    if (req.headers['x-session'] === 'editor') (req as { session?: unknown }).session = { role: 'editor' }
    next()
  })
  app.get('/hello', (_req, res) => void res.json({ host: true }))
  app.get('/wp-json/site/v1/status', (_req, res) => void res.json({ site: true }))
  if (mount === 'root') app.use(calendarMiddleware(calendar))
  else app.use('/wp-json', calendarMiddleware(calendar))
  app.use((_req, res) => void res.status(404).send('host 404'))
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const post = (base: string, body: string, type: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${NS}/events`, { method: 'POST', headers: { authorization: TOKEN, 'content-type': type, ...headers }, body })

describe.each(setups)('Express $version, mounted at $mount, host body parsers: $parsers', (setup) => {
  let ctx: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    ctx = await start(setup)
  })
  afterAll(async () => {
    ctx.server.closeAllConnections()
    await new Promise((resolve) => ctx.server.close(resolve))
  })

  it('creates from JSON, reads it back and lists it', async () => {
    const created = await post(ctx.base, JSON.stringify(event('Launch – 日本')), 'application/json')
    expect(created.status).toBe(201)
    const { id, title, rest_url } = await created.json()
    expect(title).toBe('Launch – 日本')
    expect(rest_url).toBe(`${ctx.base}${NS}/events/${id}`) // the origin and path Express saw
    const read = await fetch(`${ctx.base}${NS}/events/${id}`)
    expect(read.status).toBe(200)
    expect((await read.json()).id).toBe(id)
    const list = await fetch(`${ctx.base}${NS}/events?per_page=5`)
    expect(list.headers.get('x-tec-total')).not.toBe('0')
    expect((await list.json()).rest_url.startsWith(`${ctx.base}${NS}/events/?page=1&per_page=5&`)).toBe(true)
  })

  it('reads a form body with PHP brackets', async () => {
    const form =
      'title=Form+event&start_date=tomorrow+10am&end_date=tomorrow+11am&status=publish' +
      '&venue[venue]=Hall&venue[city]=Tokyo&tags[]=a&tags[]=b'
    const res = await post(ctx.base, form, 'application/x-www-form-urlencoded')
    expect(res.status).toBe(201)
    const data = await res.json()
    expect([data.title, data.venue.venue, data.venue.city]).toEqual(['Form event', 'Hall', 'Tokyo'])
    expect(data.tags.map((t: { name: string }) => t.name)).toEqual(['a', 'b'])
  })

  it('answers malformed JSON with the JSON 400, after the 401 for anonymous writes', async () => {
    const bad = await post(ctx.base, '{"title": ', 'application/json')
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toContain('application/json')
    expect((await bad.json()).code).toBe('rest_invalid_json')
    const anonymous = await post(ctx.base, '{"title": ', 'application/json', { authorization: '' })
    expect(anonymous.status).toBe(401)
    expect((await anonymous.json()).code).toBe('rest_forbidden')
  })

  it('answers a body over the limit with the JSON 413', async () => {
    const big = JSON.stringify({ ...event('x'), description: 'd'.repeat(LIMIT) })
    const res = await post(ctx.base, big, 'application/json')
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toContain('application/json')
    // Past express.json()'s own 100 kB limit: the parser fails first, the answer is still ours.
    const huge = await post(ctx.base, JSON.stringify({ description: 'd'.repeat(150_000) }), 'application/json')
    expect(huge.status).toBe(413)
    expect((await huge.json()).data.status).toBe(413)
  })

  it('answers 415 for a body type it does not read', async () => {
    const res = await post(ctx.base, 'hello', 'text/csv')
    expect(res.status).toBe(415)
  })

  it("lets the host's routes answer, beside and under the prefix", async () => {
    expect(await (await fetch(`${ctx.base}/hello`)).json()).toEqual({ host: true })
    expect(await (await fetch(`${ctx.base}/wp-json/site/v1/status`)).json()).toEqual({ site: true })
    const other = await fetch(`${ctx.base}/nowhere`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' })
    // Without parsers the host's 404 answers; with them the host's own error handling does (not ours).
    expect(other.status).toBe(setup.parsers ? 400 : 404)
  })

  it('answers unknown routes in the namespace itself with rest_no_route', async () => {
    const res = await fetch(`${ctx.base}${NS}/nothing-here`)
    expect(res.status).toBe(404)
    expect((await res.json()).code).toBe('rest_no_route')
  })

  it('serves the language path segment', async () => {
    const created = await post(ctx.base, JSON.stringify(event('イベント')), 'application/json', {}).then((r) => r.json())
    const res = await fetch(`${ctx.base}/ja${NS}/events?per_page=1`)
    // Under a language segment Express mounted at /wp-json does not match: only a root mount serves it.
    if (setup.mount === 'wp-json') return void expect(res.status).toBe(404)
    expect(res.status).toBe(200)
    const data = await res.json()
    expect(data.rest_url).toContain(`/ja${NS}/events/`)
    expect(created.id).toBeGreaterThan(0)
  })

  it('hands the Express request to authenticate as request.raw (host sessions)', async () => {
    const res = await fetch(`${ctx.base}${NS}/events`, {
      method: 'POST',
      headers: { 'x-session': 'editor', 'content-type': 'application/json' },
      body: JSON.stringify(event('By session')),
    })
    expect(res.status).toBe(201)
    expect((await res.json()).author).toBe('7')
    expect((ctx.seen.raw as { originalUrl?: string }).originalUrl).toBe(`${NS}/events`)
  })

  it('keeps errors JSON: a throwing authenticate is a JSON 500, never the HTML error page', async () => {
    const res = await fetch(`${ctx.base}${NS}/events`, { headers: { 'x-explode': '1' } })
    expect(res.status).toBe(500)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect((await res.json()).code).toBe('internal_error')
  })

  it("follows the app's trust proxy setting for the origin", async () => {
    const res = await fetch(`${ctx.base}${NS}/events?per_page=1`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cal.example' },
    })
    expect((await res.json()).rest_url.startsWith(`https://cal.example${NS}/events/?page=1`)).toBe(true)
  })
})

describe('re-serializing a parsed body', () => {
  it('writes JSON for JSON and PHP brackets for forms', () => {
    expect(bodyText({ a: [1, { b: 'x' }] }, 'application/json; charset=utf-8')).toBe('{"a":[1,{"b":"x"}]}')
    expect(bodyText({ a: ['1', '2'], v: { city: 'T k' }, o: [{ n: 'x' }] }, 'application/x-www-form-urlencoded')).toBe(
      'a%5B%5D=1&a%5B%5D=2&v%5Bcity%5D=T%20k&o%5B0%5D%5Bn%5D=x',
    )
    // express.urlencoded({ extended: false }) keeps bracketed keys as they came.
    expect(formEncode({ 'tags[]': ['a', 'b'] }).join('&')).toBe('tags%5B%5D=a&tags%5B%5D=b')
    expect(bodyText('raw text', 'text/plain')).toBe('raw text')
    expect(bodyText(Buffer.from('bytes'), 'application/octet-stream')).toBe('bytes')
    expect(bodyText(undefined, 'application/json')).toBe('')
  })
})
