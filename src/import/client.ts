/**
 * The importer's way into the router: requests of our own API sent to the router object as a
 * caller the host names (host-request.ts), so an imported record takes the path of any
 * write (validation, the HTML filter of the importing role, one transaction, the change journal,
 * the caches, webhooks). No socket and no standard Request objects: the router's own shapes.
 */
import type { Principal } from '../auth/principal.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { CalendarRouter } from '../router.js'
import { HOST_REQUEST, type HostSend, type InTransaction } from '../host-request.js'
import { NAMESPACE } from '../context.js'

export interface ApiAnswer {
  status: number
  /** Parsed JSON, or null. */
  body: unknown
}

export interface ApiClient {
  /**
   * `path` below the namespace, with its query: `/events/12?recurrence_scope=all`.
   * `inTransaction` runs last inside the write's transaction (host-request.ts).
   */
  send(method: string, path: string, body?: unknown, inTransaction?: InTransaction): Promise<ApiAnswer>
}

function decode(raw: RawResponse): ApiAnswer {
  const text = raw.body === null ? '' : typeof raw.body === 'string' ? raw.body : new TextDecoder().decode(raw.body)
  let body: unknown = null
  if (text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      // Not JSON (an HTML error page, plain text): the text itself is the answer's body.
      body = text
    }
  }
  return { status: raw.status, body }
}

/**
 * `door`: where the requests go, the router's host door by default; a batch's `send`
 * (HostRequest.batch) for requests inside one transaction.
 *
 * @example
 * const api = apiClient(router, { id: 1, role: 'administrator' })
 * const { status, body } = await api.send('POST', '/events', { title: 'Gig', start_date: '2027-01-01 20:00', end_date: '2027-01-01 22:00' })
 * await router[HOST_REQUEST]!.batch(async (send) => {
 *   const inBatch = apiClient(router, { id: 1, role: 'administrator' }, send)
 *   await inBatch.send('POST', '/venues', { venue: 'Hall' })
 * })
 */
export function apiClient(router: CalendarRouter, principal: Principal, door: HostSend | undefined = router[HOST_REQUEST]): ApiClient {
  if (!door) throw new TypeError('calendar-events-router: importing needs a router made by createCalendarRouter')
  const base = `http://import.invalid${router.options.prefix}/${NAMESPACE}`
  return {
    async send(method, path, body, inTransaction) {
      const json = body === undefined ? '' : JSON.stringify(body)
      const headers = new Map<string, string>([
        ['content-type', 'application/json'],
        ['accept', 'application/json'],
      ])
      const request: RequestLike = {
        method,
        url: `${base}${path}`,
        headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
        text: () => Promise.resolve(json),
      }
      return decode(await door(request, principal, inTransaction))
    },
  }
}
