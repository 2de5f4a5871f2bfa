import { describe, expect, it } from 'vitest'
import { errorResponse, jsonResponse, textResponse, type ResponseMeta } from '../../../src/http/response.js'
import { ApiError } from '../../../src/http/errors.js'

const anonymous: ResponseMeta = { apiRoot: 'http://h.test/wp-json/', loggedIn: false }
const PRIVATE = 'no-cache, must-revalidate, max-age=0, no-store, private'

describe('jsonResponse', () => {
  it('serialises the body with the standard WordPress headers', () => {
    const res = jsonResponse(200, { url: 'https://a.example/x' }, anonymous)
    expect(res.status).toBe(200)
    expect(res.body).toBe('{"url":"https://a.example/x"}')
    expect(res.headers['Content-Type']).toBe('application/json; charset=UTF-8')
    expect(res.headers.Link).toBe('<http://h.test/wp-json/>; rel="https://api.w.org/"')
    expect(res.headers['X-Content-Type-Options']).toBe('nosniff')
    expect(res.headers['Access-Control-Expose-Headers']?.split(', ')).toEqual(
      expect.arrayContaining(['X-WP-Total', 'X-WP-TotalPages', 'X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'ETag']),
    )
  })

  it('sends no Link without an API root, and no caching headers for anonymous callers', () => {
    const res = jsonResponse(200, [], { apiRoot: null, loggedIn: false })
    expect(res.headers.Link).toBeUndefined()
    expect(res.headers['Cache-Control']).toBeUndefined()
    expect(res.headers.Expires).toBeUndefined()
    expect(res.headers.Allow).toBeUndefined()
  })

  it('marks responses to signed-in callers private and expired', () => {
    const res = jsonResponse(200, [], { ...anonymous, loggedIn: true })
    expect(res.headers['Cache-Control']).toBe(PRIVATE)
    expect(res.headers.Expires).toBe('Wed, 11 Jan 1984 05:00:00 GMT')
  })

  it('lists Allow in the given order, and lets extra headers override', () => {
    const res = jsonResponse(201, {}, { ...anonymous, allow: ['GET', 'POST'] }, { Location: '/x', 'Content-Type': 'application/vnd.x' })
    expect(res.headers.Allow).toBe('GET, POST')
    expect(res.headers.Location).toBe('/x')
    expect(res.headers['Content-Type']).toBe('application/vnd.x')
  })

  it('writes null as the JSON text null', () => {
    expect(jsonResponse(200, null, anonymous).body).toBe('null')
  })
})

describe('errorResponse', () => {
  it('sends the error envelope with the error status', () => {
    const res = errorResponse(new ApiError(404, 'rest_no_route', 'No route.'), { ...anonymous, loggedIn: true })
    expect(res.status).toBe(404)
    expect(JSON.parse(String(res.body))).toEqual({ code: 'rest_no_route', message: 'No route.', data: { status: 404 } })
    expect(res.headers['Cache-Control']).toBe(PRIVATE)
  })
})

describe('textResponse', () => {
  it('keeps the standard headers with its own type and body', () => {
    const res = textResponse(200, 'BEGIN:VCALENDAR\r\n', 'text/calendar; charset=utf-8', anonymous, { 'X-Calendar-Truncated': '1' })
    expect(res.body).toBe('BEGIN:VCALENDAR\r\n')
    expect(res.headers['Content-Type']).toBe('text/calendar; charset=utf-8')
    expect(res.headers.Link).toBe('<http://h.test/wp-json/>; rel="https://api.w.org/"')
    expect(res.headers['X-Calendar-Truncated']).toBe('1')
  })
})
