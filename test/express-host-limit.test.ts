/**
 * A body the host's `express.json()` refused as too large: the 413 quotes the limit the client
 * actually ran into (the parser's), not the router's larger one.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import express5 from 'express'
import express4 from 'express4'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { calendarMiddleware } from '../adapters/express/index.js'

const HOST_LIMIT = 2048
const ROUTER_LIMIT = 64 * 1024

describe.each([4, 5] as const)('Express %i: 413 behind the host body parser', (version) => {
  let server: Server
  let base: string

  beforeAll(async () => {
    const express = version === 4 ? express4 : express5
    const calendar = createCalendarRouter(createMemoryStorage(), {
      maxBodyBytes: ROUTER_LIMIT,
      authenticate: (r) => (r.headers.get('authorization') === 'Bearer t' ? { id: 1, role: 'administrator' } : null),
    })
    const app = express()
    app.use(express.json({ limit: HOST_LIMIT }), express.urlencoded({ extended: true, limit: HOST_LIMIT }))
    app.use(calendarMiddleware(calendar))
    server = await new Promise((resolve) => {
      const s: Server = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/calendar/events/v1`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const post = (body: string, type: string) =>
    fetch(`${base}/events`, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': type }, body })

  it.each([
    [
      'application/json',
      JSON.stringify({ title: 'x', start_date: 'tomorrow', end_date: 'tomorrow', description: 'd'.repeat(HOST_LIMIT * 2) }),
    ],
    ['application/x-www-form-urlencoded', `title=x&start_date=tomorrow&end_date=tomorrow&description=${'d'.repeat(HOST_LIMIT * 2)}`],
  ])('%s over the parser limit: JSON 413 quoting that limit', async (type, body) => {
    const res = await post(body, type)
    expect(res.status).toBe(413)
    const error = await res.json()
    expect(error).toMatchObject({ code: 'rest_payload_too_large', data: { status: 413 } })
    expect(error.message).toContain(`${HOST_LIMIT} bytes`)
    expect(error.message).not.toContain(String(ROUTER_LIMIT))
  })

  it('a body under both limits is stored', async () => {
    const res = await post(JSON.stringify({ title: 'Small', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am' }), 'application/json')
    expect(res.status).toBe(201)
  })
})
