import { describe, expect, it } from 'vitest'
import { appendVary, applyCors, isPreflight, preflight, resolveCors, type Cors } from '../../../src/http/cors.js'
import type { RawResponse } from '../../../src/http/types.js'
import { fakeRequest } from './fake-request.js'

const raw = (headers: Record<string, string> = {}): RawResponse => ({ status: 200, headers, body: '[]' })
const must = (c: Cors | null): Cors => {
  if (!c) throw new Error('CORS should be on')
  return c
}

describe('resolveCors', () => {
  it('is off without options or with false', () => {
    expect(resolveCors(undefined)).toBeNull()
    expect(resolveCors(false)).toBeNull()
  })

  it('defaults to any origin, no credentials, a 600 s preflight cache', () => {
    const cors = must(resolveCors({}))
    expect(cors).toMatchObject({ any: true, credentials: false, maxAge: 600 })
    expect(cors.allows('https://anything.example')).toBe(true)
  })

  it('allows exactly the listed origins', () => {
    const cors = must(resolveCors({ origins: ['https://app.example'], maxAge: 120 }))
    expect(cors).toMatchObject({ any: false, maxAge: 120 })
    expect(cors.allows('https://app.example')).toBe(true)
    expect(cors.allows('https://app.example.evil')).toBe(false)
    expect(cors.allows('http://app.example')).toBe(false)
  })

  it('asks a predicate', () => {
    const cors = must(resolveCors({ origins: (o) => o.endsWith('.example'), credentials: true }))
    expect(cors.credentials).toBe(true)
    expect(cors.allows('https://a.example')).toBe(true)
    expect(cors.allows('https://a.test')).toBe(false)
  })
})

describe('applyCors', () => {
  it('only adds Vary: Origin when the request has no Origin', () => {
    const res = raw()
    applyCors(must(resolveCors({})), fakeRequest('GET'), res)
    expect(res.headers).toEqual({ Vary: 'Origin' })
  })

  it('sends * for any origin without credentials, and exposes the paging headers', () => {
    const res = raw()
    applyCors(must(resolveCors({})), fakeRequest('GET', { origin: 'https://x.example' }), res)
    expect(res.headers['Access-Control-Allow-Origin']).toBe('*')
    expect(res.headers['Access-Control-Allow-Credentials']).toBeUndefined()
    expect(res.headers['Access-Control-Expose-Headers']?.split(', ')).toEqual(
      expect.arrayContaining(['X-TEC-Total', 'X-WP-Total', 'ETag', 'Link', 'Retry-After']),
    )
  })

  it('reflects the origin when credentials are on, since browsers refuse * with them', () => {
    const res = raw()
    applyCors(must(resolveCors({ credentials: true })), fakeRequest('GET', { origin: 'https://x.example' }), res)
    expect(res.headers['Access-Control-Allow-Origin']).toBe('https://x.example')
    expect(res.headers['Access-Control-Allow-Credentials']).toBe('true')
  })

  it('adds nothing but Vary for an origin that is not allowed', () => {
    const res = raw({ Vary: 'Authorization' })
    applyCors(must(resolveCors({ origins: ['https://app.example'] })), fakeRequest('GET', { origin: 'https://evil.example' }), res)
    expect(res.headers).toEqual({ Vary: 'Authorization, Origin' })
  })
})

describe('isPreflight', () => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ['OPTIONS', { origin: 'https://a.example', 'access-control-request-method': 'POST' }, true],
    ['OPTIONS', { origin: 'https://a.example' }, false],
    ['OPTIONS', { 'access-control-request-method': 'POST' }, false],
    ['GET', { origin: 'https://a.example', 'access-control-request-method': 'POST' }, false],
  ]
  for (const [method, headers, expected] of cases) {
    it(`${method} with ${Object.keys(headers).join(' and ') || 'no CORS headers'} → ${expected}`, () => {
      expect(isPreflight(fakeRequest(method, headers), method)).toBe(expected)
    })
  }
})

describe('preflight', () => {
  it('answers an allowed origin with 204, the route methods plus HEAD and OPTIONS, and the asked headers', () => {
    const req = fakeRequest('OPTIONS', {
      origin: 'https://app.example',
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'authorization, content-type',
    })
    const res = preflight(must(resolveCors({ origins: ['https://app.example'], maxAge: 60 })), req, ['GET', 'DELETE', 'PATCH'])
    expect(res).toEqual({
      status: 204,
      headers: {
        Vary: 'Origin, Access-Control-Request-Headers',
        'Access-Control-Allow-Origin': 'https://app.example',
        'Access-Control-Allow-Methods': 'GET, DELETE, PATCH, HEAD, OPTIONS',
        'Access-Control-Allow-Headers': 'authorization, content-type',
        'Access-Control-Max-Age': '60',
      },
      body: null,
    })
  })

  it('adds HEAD only to routes that serve GET, and lists the usual headers when none are asked', () => {
    const req = fakeRequest('OPTIONS', { origin: 'https://a.example', 'access-control-request-method': 'DELETE' })
    const res = preflight(must(resolveCors({})), req, ['DELETE'])
    expect(res.headers['Access-Control-Allow-Methods']).toBe('DELETE, OPTIONS')
    expect(res.headers['Access-Control-Allow-Headers']).toBe(
      'Authorization, Content-Type, X-WP-Nonce, X-HTTP-Method-Override, If-None-Match, If-Match, X-Calendar-Bookmark',
    )
  })

  it('answers a stranger with a bare 204 that grants nothing', () => {
    const req = fakeRequest('OPTIONS', { origin: 'https://evil.example', 'access-control-request-method': 'POST' })
    const res = preflight(must(resolveCors({ origins: ['https://app.example'] })), req, ['GET', 'POST'])
    expect(res).toEqual({ status: 204, headers: { Vary: 'Origin, Access-Control-Request-Headers' }, body: null })
  })
})

describe('appendVary', () => {
  const cases: Array<[string | undefined, string, string]> = [
    [undefined, 'Origin', 'Origin'],
    ['Authorization', 'Origin', 'Authorization, Origin'],
    ['Authorization, origin', 'Origin', 'Authorization, origin'],
    ['Accept,Origin', 'Origin', 'Accept,Origin'],
  ]
  for (const [current, value, expected] of cases) {
    it(`${JSON.stringify(current)} + ${value} → ${expected}`, () => {
      const res = raw(current === undefined ? {} : { Vary: current })
      appendVary(res, value)
      expect(res.headers.Vary).toBe(expected)
    })
  }
})
