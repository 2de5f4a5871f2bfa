/**
 * The `npm start` server sends webhooks: its runner is started with the server (no host task
 * needed), and CALENDAR_WEBHOOK_ALLOW_PRIVATE=1 is what lets a receiver on this machine be an
 * endpoint (without it such a URL is refused, as in production).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startServer } from '../examples/node-server/server.js'

async function start(env: NodeJS.ProcessEnv) {
  const s = await startServer({
    PORT: '0',
    HOST: '127.0.0.1',
    CALENDAR_STORAGE: 'memory',
    CALENDAR_API_TOKENS: 'admintoken:administrator',
    // No demo data: the receiver expects exactly the change this test makes.
    CALENDAR_DEMO: 'off',
    ...env,
  })
  onTestFinished(async () => {
    await new Promise<void>((resolve) => s.server.close(() => resolve()))
    await s.storage.close?.()
  })
  const root = `http://127.0.0.1:${s.port}/wp-json/calendar/events/v1`
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${root}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer admintoken', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  return { post }
}

describe('examples/node-server webhooks', () => {
  it('delivers a change to a local receiver when CALENDAR_WEBHOOK_ALLOW_PRIVATE=1, and refuses the URL otherwise', async () => {
    const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
    const receiver = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString('utf8')))
      req.on('end', () => {
        got.push({ headers: req.headers, body })
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

    const strict = await start({})
    const refused = await strict.post('/webhooks', { url })
    expect(refused.status).toBe(400)
    expect(Object.keys(refused.body.data.params)).toEqual(['url'])
    // The refusal names the option that allows such a receiver, so a developer knows the way out.
    expect(refused.body.data.params.url).toMatch(/webhooks\.allowPrivate/)

    const dev = await start({ CALENDAR_WEBHOOK_ALLOW_PRIVATE: '1' })
    const endpoint = await dev.post('/webhooks', { url, events: ['tag.*'] })
    expect(endpoint.status).toBe(201)
    const tag = await dev.post('/tags', { name: 'Sent by the example' })
    expect(tag.status).toBe(201)
    // No run() call: the server's own runner sends it.
    const t0 = Date.now()
    while (got.length === 0 && Date.now() - t0 < 5000) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(got.length).toBe(1)
    const payload = new Webhook(endpoint.body.secret as string).verify(got[0]!.body, got[0]!.headers as Record<string, string>)
    expect(payload).toMatchObject({ type: 'tag.created', data: { id: tag.body.id, name: 'Sent by the example' } })
  })
})
