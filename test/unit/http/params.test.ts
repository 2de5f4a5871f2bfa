import { describe, expect, it } from 'vitest'
import { effectiveMethod, parseFormEncoded, readBody } from '../../../src/http/params.js'
import { ApiError } from '../../../src/http/errors.js'
import { PayloadTooLargeError } from '../../../src/http/types.js'
import { fakeRequest } from './fake-request.js'

/** Plain copies, so results compare with object literals whatever their prototype. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v))

describe('parseFormEncoded', () => {
  const cases: Array<[string, unknown]> = [
    ['', {}],
    ['a=1&b=two', { a: '1', b: 'two' }],
    ['title=Jazz+Night&city=S%C3%A3o%20Paulo', { title: 'Jazz Night', city: 'São Paulo' }],
    // Malformed percent-encoding keeps the raw text instead of failing the request.
    ['search=%E0%A4%A&page=%', { search: '%E0%A4%A', page: '%' }],
    ['flag&empty=', { flag: '', empty: '' }],
    ['a=1&&b=2&', { a: '1', b: '2' }],
    // A repeated plain key keeps the last value, as PHP does.
    ['a=1&a=2', { a: '2' }],
    ['tags[]=x&tags[]=y', { tags: ['x', 'y'] }],
    ['venue[venue]=Hall&venue[city]=Paris', { venue: { venue: 'Hall', city: 'Paris' } }],
    // PHP indexes 0..n-1 are a list; other keys stay an object.
    ['organizer[0][organizer]=A&organizer[1][organizer]=B', { organizer: [{ organizer: 'A' }, { organizer: 'B' }] }],
    ['cost[0]=5&cost[1]=10', { cost: ['5', '10'] }],
    ['a[0]=x&a[2]=y', { a: { 0: 'x', 2: 'y' } }],
    // Indexes 0..n-1 sent out of order still make a list, in index order.
    ['a[1]=x&a[0]=y', { a: ['y', 'x'] }],
    ['o[][name]=A', { o: [{ name: 'A' }] }],
    // A far index is one key, never a list that long; `[]` appends after the largest index, as in PHP.
    ['zz[]=1&zz[4294967294]=2', { zz: { 0: '1', 4294967294: '2' } }],
    ['zz[]=1&zz[100000000]=2&zz[]=3', { zz: { 0: '1', 100000000: '2', 100000001: '3' } }],
    ['a[x]=1&a[]=2&a[5]=3&a[]=4', { a: { x: '1', 0: '2', 5: '3', 6: '4' } }],
    ['a[b][]=1&a[b][99999999]=2', { a: { b: { 0: '1', 99999999: '2' } } }],
    ['a[]=1&a[1]=2&a[]=3', { a: ['1', '2', '3'] }],
    // A key starting with a bracket is a plain key.
    ['[x]=1', { '[x]': '1' }],
  ]
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      expect(plain(parseFormEncoded(input))).toEqual(expected)
    })
  }

  it('keeps __proto__ and constructor as plain data in prototype-free objects', () => {
    const out = parseFormEncoded('__proto__[polluted]=1&constructor=x&a[__proto__]=y')
    expect(Object.getPrototypeOf(out)).toBeNull()
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor', 'a'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(out.a)).toBeNull()
  })

  it('reads at most 1000 pairs', () => {
    const input = Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&')
    const out = parseFormEncoded(input)
    expect(Object.keys(out)).toHaveLength(1000)
    expect(out.k999).toBe('999')
    expect(out.k1000).toBeUndefined()
  })

  it('follows at most 8 brackets, ignoring deeper ones', () => {
    const out = plain(parseFormEncoded('a[1][2][3][4][5][6][7][8][9][10]=v'))
    expect(out).toEqual({ a: { 1: { 2: { 3: { 4: { 5: { 6: { 7: { 8: 'v' } } } } } } } } })
  })
})

describe('readBody', () => {
  const read = (headers: Record<string, string>, body: string, max = 1024) => readBody(fakeRequest('POST', headers, body), max)
  const rejection = async (promise: Promise<unknown>): Promise<ApiError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    )
    if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
    return error
  }

  it('parses a JSON object, with or without parameters or a +json suffix', async () => {
    expect(await read({ 'content-type': 'application/json' }, '{"title":"x","n":1}')).toEqual({ title: 'x', n: 1 })
    expect(await read({ 'content-type': 'Application/JSON; charset=UTF-8' }, '{"a":true}')).toEqual({ a: true })
    expect(await read({ 'content-type': 'application/merge-patch+json' }, '{"a":null}')).toEqual({ a: null })
  })

  it('gives no parameters for an empty body or JSON that is not an object', async () => {
    for (const body of ['', '[1,2]', '"text"', '42', 'null']) {
      expect(plain(await read({ 'content-type': 'application/json' }, body))).toEqual({})
    }
  })

  it('reads form bodies, and bodies without a Content-Type as form', async () => {
    expect(plain(await read({ 'content-type': 'application/x-www-form-urlencoded' }, 'a[]=1&b=2'))).toEqual({ a: ['1'], b: '2' })
    expect(plain(await read({}, 'title=No+Type'))).toEqual({ title: 'No Type' })
  })

  it('ignores text/plain bodies', async () => {
    expect(plain(await read({ 'content-type': 'text/plain' }, 'title=x'))).toEqual({})
  })

  it('rejects malformed JSON with rest_invalid_json', async () => {
    const e = await rejection(read({ 'content-type': 'application/json' }, '{"title": "x", '))
    expect(e.toBody()).toEqual({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' },
    })
  })

  it('rejects JSON nested deeper than 8 levels, and accepts 8', async () => {
    const nest = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
    expect(await read({ 'content-type': 'application/json' }, nest(8))).toBeTruthy()
    const e = await rejection(read({ 'content-type': 'application/json' }, nest(9)))
    expect(e.status).toBe(400)
    expect(e.extra.json_error_message).toBe('Nesting deeper than 8 levels')
  })

  it('rejects other media types with 415', async () => {
    const e = await rejection(read({ 'content-type': 'application/xml' }, '<event/>'))
    expect(e.status).toBe(415)
    expect(e.code).toBe('rest_unsupported_media_type')
    expect(e.message).toContain('application/xml')
  })

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    const req = fakeRequest('POST', { 'content-type': 'application/json', 'content-length': '2048' }, '{}')
    const e = await rejection(readBody(req, 1024))
    expect(e.status).toBe(413)
    expect(e.message).toContain('1024')
    expect(req.reads).toBe(0)
  })

  it('reports the limit the body reader hit, which may be the host parser’s smaller one', async () => {
    const req = fakeRequest('POST', { 'content-type': 'application/json' }, () => Promise.reject(new PayloadTooLargeError(100)))
    const e = await rejection(readBody(req, 1024))
    expect(e.status).toBe(413)
    expect(e.code).toBe('rest_payload_too_large')
    expect(e.message).toContain('100 bytes')
  })

  it('lets other read failures through unchanged', async () => {
    const boom = new Error('socket closed')
    const req = fakeRequest('POST', {}, () => Promise.reject(boom))
    await expect(readBody(req, 1024)).rejects.toBe(boom)
  })
})

describe('effectiveMethod', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
    ['GET', {}, {}, 'GET'],
    ['post', {}, {}, 'POST'],
    ['POST', { _method: 'patch' }, {}, 'PATCH'],
    ['POST', {}, { 'x-http-method-override': 'delete' }, 'DELETE'],
    // The query parameter wins over the header.
    ['POST', { _method: 'PUT' }, { 'x-http-method-override': 'DELETE' }, 'PUT'],
    // A bracketed _method[] is not a method name: the header (if any) decides.
    ['POST', { _method: ['PUT'] }, {}, 'POST'],
    ['POST', { _method: ['PUT'] }, { 'x-http-method-override': 'PATCH' }, 'PATCH'],
    // Overrides are honoured on POST only.
    ['GET', { _method: 'DELETE' }, { 'x-http-method-override': 'DELETE' }, 'GET'],
    ['PUT', { _method: 'DELETE' }, {}, 'PUT'],
  ]
  for (const [method, query, headers, expected] of cases) {
    it(`${method} ${JSON.stringify(query)} ${JSON.stringify(headers)} → ${expected}`, () => {
      expect(effectiveMethod(fakeRequest(method, headers), query)).toBe(expected)
    })
  }
})
