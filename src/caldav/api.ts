/**
 * The CalDAV face's way to the events: requests of the REST namespace sent through the router's
 * host door (host-request.ts) as the signed-in caller, so every read and write takes the
 * path of any REST request (roles, drafts, the HTML filter, the journal, webhooks, `onChange`,
 * the caches) and CalDAV sees REST edits and the other way round.
 */
import type { Principal } from '../auth/principal.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { HostSend } from '../host-request.js'

export interface RestAnswer {
  status: number
  headers: Record<string, string>
  text: string
  /** The parsed JSON body, or null when it was not JSON. */
  json: unknown
}

export interface Rest {
  /** `path` below the namespace, with its query: `/events/12?status=any`. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RestAnswer>
  /** The path below the namespace of a link the REST answer gave (`next_rest_url`), for `send`. */
  below(url: string): string
}

function decode(raw: RawResponse): RestAnswer {
  const text = raw.body === null ? '' : typeof raw.body === 'string' ? raw.body : new TextDecoder().decode(raw.body)
  let json: unknown = null
  if (/json/.test(raw.headers['Content-Type'] ?? raw.headers['content-type'] ?? '')) {
    try {
      json = JSON.parse(text)
    } catch (error) {
      // The router writes its JSON itself: a body it cannot parse is a bug worth seeing.
      throw new Error('calendar-events-router: the REST answer is not JSON', { cause: error })
    }
  }
  return { status: raw.status, headers: raw.headers, text, json }
}

/**
 * `base`: the namespace's absolute URL (`https://site/wp-json/calendar/events/v1`); `namespace`
 * its name, which links start below whatever origin (`baseUrl`) they were written with.
 */
export function restClient(send: HostSend, principal: Principal, base: string, namespace: string): Rest {
  return {
    below(url) {
      const at = url.indexOf(`/${namespace}/`)
      if (at === -1) throw new Error(`calendar-events-router: ${url} is not a link of the namespace`)
      return url.slice(at + namespace.length + 1)
    },
    async send(method, path, body, extra = {}) {
      const json = body === undefined ? '' : JSON.stringify(body)
      const headers = new Map<string, string>([
        ['content-type', 'application/json'],
        ['accept', 'application/json'],
      ])
      for (const [k, v] of Object.entries(extra)) headers.set(k.toLowerCase(), v)
      const request: RequestLike = {
        method,
        url: `${base}${path}`,
        headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
        text: () => Promise.resolve(json),
      }
      return decode(await send(request, principal))
    },
  }
}
