/** A RequestLike for unit specs: headers from a plain object, a body that records being read. */
import type { RequestLike } from '../../../src/http/types.js'

export interface FakeRequest extends RequestLike {
  /** How many times `text()` was called. */
  reads: number
}

export function fakeRequest(
  method: string,
  headers: Record<string, string> = {},
  body: string | (() => Promise<string>) = '',
): FakeRequest {
  const h = new Headers(headers)
  const req: FakeRequest = {
    method,
    url: 'http://example.test/wp-json/calendar/events/v1/events',
    headers: { get: (name) => h.get(name) },
    reads: 0,
    text: async () => {
      req.reads++
      return typeof body === 'string' ? body : body()
    },
  }
  return req
}
