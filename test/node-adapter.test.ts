import { describe, it, expect, afterAll } from 'vitest'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from '../adapters/node/index.js'
import { PayloadTooLargeError, type RawResponse, type RequestLike } from '../src/http/types.js'

const LIMIT = 1024

/** Bounds every wait so a broken adapter fails the test instead of hanging it. */
function within<T>(promise: Promise<T>, ms = 3000, label = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

const json = (status: number, data: unknown): RawResponse => ({
  status,
  headers: { 'Content-Type': 'application/json; charset=UTF-8' },
  body: JSON.stringify(data),
})

const seen = {
  errors: [] as unknown[],
  abortEntered: deferred(),
  aborted: deferred<boolean>(),
  signal: undefined as AbortSignal | undefined,
}

const fake = {
  async handle(r: RequestLike): Promise<RawResponse & { passthrough?: boolean }> {
    const path = new URL(r.url).pathname
    if (path === '/throw') throw new Error('boom')
    if (path === '/empty') return { status: 204, headers: {}, body: null }
    if (path === '/outside') return { ...json(404, { code: 'rest_no_route' }), passthrough: true }
    if (path === '/completes') return ((seen.signal = r.signal), json(200, {}))
    if (path === '/ignore-body') return json(404, { code: 'rest_no_route' })
    if (path === '/abort') {
      const signal = r.signal!
      seen.abortEntered.resolve()
      const aborted = await within(
        new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(signal.aborted))),
        3000,
        'abort signal',
      ).catch(() => false)
      seen.aborted.resolve(aborted)
      return json(200, { aborted })
    }
    if (r.method === 'HEAD') return { status: 200, headers: { 'Content-Type': 'application/json', 'Content-Length': '42' }, body: null }
    let body: string | null = null
    if (r.method === 'POST') {
      try {
        body = await r.text(LIMIT)
      } catch (error) {
        seen.errors.push(error)
        if (error instanceof PayloadTooLargeError) return json(413, { code: 'too_large', limit: error.limit })
        throw error
      }
    }
    return json(200, {
      method: r.method,
      url: r.url,
      contentType: r.headers.get('Content-Type'),
      custom: r.headers.get('x-CUSTOM-header'),
      missing: r.headers.get('x-missing'),
      raw: typeof (r.raw as http.IncomingMessage | undefined)?.on === 'function',
      body,
    })
  },
}

async function listen(server: http.Server): Promise<string> {
  await within(new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)), 3000, 'listen')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const server = http.createServer(toNodeHandler(fake))
const proxied = http.createServer(toNodeHandler(fake, { trustProxy: true }))
const base = await listen(server)
const proxiedBase = await listen(proxied)

afterAll(async () => {
  for (const s of [server, proxied]) {
    s.closeAllConnections()
    await within(new Promise((resolve) => s.close(resolve)), 3000, 'close')
  }
})

interface RawResult {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
  reusedSocket: boolean
}

/** http.request with a body written as separate chunks, each after a pause so they arrive apart. */
function request(url: string, options: http.RequestOptions, chunks: Buffer[] = []): Promise<RawResult> {
  return within(
    new Promise<RawResult>((resolve, reject) => {
      const req = http.request(url, options, (res) => {
        const parts: Buffer[] = []
        res.on('data', (c: Buffer) => parts.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
            reusedSocket: req.reusedSocket,
          }),
        )
        res.on('error', reject)
      })
      // The server may close after answering 413 while we still write; the response is what counts.
      req.on('error', (error) => (req.writableEnded ? undefined : reject(error)))
      void (async () => {
        for (const [i, chunk] of chunks.entries()) {
          if (i > 0) await new Promise((r) => setTimeout(r, 20))
          if (req.destroyed) return
          req.write(chunk)
        }
        if (!req.destroyed) req.end()
      })()
    }),
    3000,
    `${options.method ?? 'GET'} ${url}`,
  )
}

describe('toNodeHandler', () => {
  it('passes method, absolute url with query and case-insensitive headers', async () => {
    const res = await within(fetch(`${base}/wp-json/x/events?per_page=10&search=a%20b`, { headers: { 'X-Custom-Header': 'yes' } }))
    expect(res.status).toBe(200)
    const data = await res.json()
    expect(data).toMatchObject({
      method: 'GET',
      url: `${base}/wp-json/x/events?per_page=10&search=a%20b`,
      custom: 'yes',
      missing: null,
      body: null,
    })
  })

  it('sets Content-Length instead of chunking', async () => {
    const res = await request(`${base}/echo`, {})
    expect(res.headers['transfer-encoding']).toBeUndefined()
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body))
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8')
  })

  it('round-trips a UTF-8 JSON body', async () => {
    const payload = JSON.stringify({ title: 'Café – 日本語 🎉' })
    const res = await within(
      fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from(payload) }),
    )
    expect(await res.json()).toMatchObject({ method: 'POST', contentType: 'application/json', body: payload })
  })

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = Buffer.from('{"t":"🎉日本"}')
    const cut = bytes.indexOf(Buffer.from('🎉')) + 2 // inside the 4-byte emoji
    const res = await request(`${base}/echo`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, [
      bytes.subarray(0, cut),
      bytes.subarray(cut, cut + 3), // ends inside 日
      bytes.subarray(cut + 3),
    ])
    expect(JSON.parse(res.body).body).toBe('{"t":"🎉日本"}')
  })

  it('rejects an oversized body announced by Content-Length', async () => {
    seen.errors.length = 0
    const res = await within(fetch(`${base}/echo`, { method: 'POST', body: 'x'.repeat(LIMIT + 1) }))
    expect(res.status).toBe(413)
    expect(res.headers.get('connection')).toBe('close')
    expect(seen.errors[0]).toBeInstanceOf(PayloadTooLargeError)
  })

  it('accepts a body of exactly the limit', async () => {
    const res = await within(fetch(`${base}/echo`, { method: 'POST', body: 'x'.repeat(LIMIT) }))
    expect(res.status).toBe(200)
    expect((await res.json()).body).toHaveLength(LIMIT)
  })

  it('rejects an oversized chunked body as soon as it crosses the limit', async () => {
    seen.errors.length = 0
    const chunk = Buffer.alloc(400, 'y')
    const res = await request(`${base}/echo`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, [
      chunk,
      chunk,
      chunk,
      chunk,
      chunk,
      chunk,
    ])
    expect(res.status).toBe(413)
    expect(res.headers.connection).toBe('close')
    expect(seen.errors[0]).toBeInstanceOf(PayloadTooLargeError)
  })

  it('sends no body for HEAD and 204', async () => {
    const head = await request(`${base}/echo`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe('42')
    expect(head.body).toBe('')
    const empty = await request(`${base}/empty`, {})
    expect(empty.status).toBe(204)
    expect(empty.body).toBe('')
    expect(empty.headers['transfer-encoding']).toBeUndefined()
  })

  it('keeps the connection usable when the handler ignores the body', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const first = await request(`${base}/ignore-body`, { method: 'POST', agent, headers: { 'content-length': '5000' } }, [
        Buffer.alloc(5000, 'z'),
      ])
      expect(first.status).toBe(404)
      const second = await request(`${base}/echo`, { agent })
      expect(second.status).toBe(200)
      expect(second.reusedSocket).toBe(true)
    } finally {
      agent.destroy()
    }
  })

  it('answers 500 JSON when the handler throws', async () => {
    const res = await within(fetch(`${base}/throw`))
    expect(res.status).toBe(500)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.json()).toEqual({ code: 'internal_error', message: 'Internal error', data: { status: 500 } })
  })

  it('aborts the signal when the client goes away', async () => {
    const req = http.request(`${base}/abort`)
    req.on('error', () => {}) // the destroy below surfaces here
    req.end()
    await within(seen.abortEntered.promise, 3000, 'handler start')
    req.destroy()
    expect(await within(seen.aborted.promise, 3000, 'abort')).toBe(true)
  })

  it('leaves the signal alone when the response completes', async () => {
    await request(`${base}/completes`, {})
    await new Promise((r) => setTimeout(r, 50))
    expect(seen.signal?.aborted).toBe(false)
  })

  it('honours X-Forwarded-* only with trustProxy', async () => {
    const headers = { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'example.org, proxy.local' }
    const trusted = JSON.parse((await request(`${proxiedBase}/echo?a=1`, { headers })).body)
    expect(trusted.url).toBe('https://example.org/echo?a=1')
    const untrusted = JSON.parse((await request(`${base}/echo?a=1`, { headers })).body)
    expect(untrusted.url).toBe(`${base}/echo?a=1`)
  })

  it('hands requests outside the namespace to next() when mounted as middleware', async () => {
    const handler = toNodeHandler(fake)
    const host = http.createServer((req, res) => handler(req, res, () => res.writeHead(200, { 'content-type': 'text/plain' }).end('host')))
    const hostBase = await listen(host)
    try {
      const outside = await request(`${hostBase}/outside`, {})
      expect([outside.status, outside.body]).toEqual([200, 'host'])
      const ours = await request(`${hostBase}/echo`, {})
      expect(JSON.parse(ours.body).raw).toBe(true)
      // Without next (plain http.createServer), the API's own 404 answers.
      expect((await request(`${base}/outside`, {})).status).toBe(404)
    } finally {
      host.closeAllConnections()
      await within(new Promise((resolve) => host.close(resolve)), 3000, 'close')
    }
  })

  it('falls back to 127.0.0.1 without a Host header', async () => {
    const { port } = server.address() as AddressInfo
    const raw = await within(
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end('GET /echo HTTP/1.0\r\n\r\n'))
        let text = ''
        socket.on('data', (c) => (text += c.toString('utf8')))
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      }),
    )
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).url).toBe('http://127.0.0.1/echo')
  })
})
