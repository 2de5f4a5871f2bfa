/**
 * HTTP-level test harness: a router over a fresh storage, callers identified by
 * `Authorization: Bearer <role>`, and request helpers that go through `router.fetch` with real
 * standard Request/Response objects. Nothing here looks inside the storage, so the same suites
 * run against every backend.
 */
import { expect } from './expect.js'
import { createCalendarRouter, type CalendarRouter } from '../../router.js'
import type { CalendarOptions } from '../../options.js'
import type { Principal } from '../../auth/principal.js'
import type { Storage } from '../../storage/types.js'

/** Saturday 2026-11-21 22:54:48 UTC: the moment the reference recordings were made. */
export const NOW = new Date('2026-11-21T22:54:48Z')
export const ORIGIN = 'http://127.0.0.1:8080'
/**
 * The names the suites speak: the namespace their requests go to and expect in every link, and
 * the language parameter they send. Ours by default; `speakTecNames()` switches them to TEC's.
 * Live bindings: read them when a test runs (or in a suite module evaluated after the switch).
 */
export let NS = 'calendar/events/v1'
export let LANG = 'multilingual_language'
export let NS_PATH = `/wp-json/${NS}`
export let API = `${ORIGIN}${NS_PATH}`
/** Every namespace the router under test serves (the API index lists them), ours first. */
export let SERVED: string[] = [NS]
/** Options every router a suite builds gets, so that it serves the names the suites speak. */
export let WIRE_OPTIONS: CalendarOptions = {}

/**
 * Switches the suites to TEC's names: routers built with `tecNames`, requests sent to
 * `/wp-json/tribe/events/v1` with `wpml_language`. It must run before the suite modules are
 * evaluated (some build URLs at load time): test/http/tec-names-wire.ts calls it as an import
 * placed before test/http/all.ts.
 *
 * @example
 * import './http/tec-names-wire.js' // first
 * import { httpSuites } from './http/all.js'
 */
export function speakTecNames() {
  NS = 'tribe/events/v1'
  LANG = 'wpml_language'
  NS_PATH = `/wp-json/${NS}`
  API = `${ORIGIN}${NS_PATH}`
  SERVED = ['calendar/events/v1', NS]
  WIRE_OPTIONS = { tecNames: true }
}

/** Callers the harness knows; `author2`/`contributor2` are second users of those roles. */
export const USERS = {
  administrator: { id: 1, role: 'administrator' },
  editor: { id: 2, role: 'editor' },
  author: { id: 3, role: 'author' },
  contributor: { id: 4, role: 'contributor' },
  subscriber: { id: 5, role: 'subscriber' },
  author2: { id: 6, role: 'author' },
  contributor2: { id: 7, role: 'contributor' },
} as const satisfies Record<string, Principal>

export type Caller = keyof typeof USERS

export interface RequestOptions {
  /** Who calls; anonymous when omitted. */
  as?: Caller
  /** Send the body form-encoded (PHP bracket syntax for arrays) instead of JSON. */
  form?: boolean
  /** Language path segment: `/{lang}/wp-json/...`. */
  lang?: string
  headers?: Record<string, string>
}

export interface Res {
  status: number
  headers: Headers
  /** Parsed JSON, or null for an empty body. */
  body: any
  text: string
}

export interface App {
  router: CalendarRouter
  storage: Storage
  // The request helpers are closures over the app (no `this`), declared as properties so that a
  // suite may pass `app.post` around on its own.
  /** Any absolute URL (e.g. the `?rest_route=` form), with a caller. */
  fetch: (url: string, init?: RequestInit & { as?: Caller }) => Promise<Res>
  get: (path: string, opts?: RequestOptions) => Promise<Res>
  head: (path: string, opts?: RequestOptions) => Promise<Res>
  del: (path: string, opts?: RequestOptions) => Promise<Res>
  /** `body` as a string is sent verbatim (as JSON unless `form`). */
  post: (path: string, body?: unknown, opts?: RequestOptions) => Promise<Res>
  put: (path: string, body?: unknown, opts?: RequestOptions) => Promise<Res>
  patch: (path: string, body?: unknown, opts?: RequestOptions) => Promise<Res>
  /** Creates an event as administrator (published, starting in a week unless overridden); fails loudly. */
  seed(fields?: Record<string, unknown>, opts?: RequestOptions): Promise<any>
  close(): Promise<void>
}

export function authenticate(request: { headers: { get(name: string): string | null } }): Principal | null {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')
  if (!m) return null
  const user = USERS[m[1] as Caller]
  return user ? { ...user } : null
}

/** PHP-style form encoding: arrays as `k[]=v`, objects as `k[sub]=v`. */
export function formEncode(data: Record<string, unknown>): string {
  const pairs: string[] = []
  const add = (key: string, value: unknown) => {
    if (Array.isArray(value)) for (const v of value) add(`${key}[]`, v)
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v)
    else
      pairs.push(
        `${encodeURIComponent(key)}=${encodeURIComponent(typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value))}`,
      )
  }
  for (const [k, v] of Object.entries(data)) add(k, v)
  return pairs.join('&')
}

async function toRes(response: Response): Promise<Res> {
  const text = await response.text()
  let body: unknown = null
  // Only JSON responses are parsed (and must parse); calendars and the like stay text.
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text)
    } catch (cause) {
      throw new Error(`response is not JSON (status ${response.status}): ${text.slice(0, 200)}`, { cause })
    }
  }
  return { status: response.status, headers: response.headers, body, text }
}

export async function makeApp(makeStorage: () => Storage | Promise<Storage>, options: CalendarOptions = {}): Promise<App> {
  const storage = await makeStorage()
  const router = createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS, ...options })

  const send = async (method: string, path: string, body: unknown, opts: RequestOptions = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) }
    if (opts.as) headers.Authorization = `Bearer ${opts.as}`
    let payload: string | undefined
    if (body !== undefined) {
      if (opts.form) {
        payload = typeof body === 'string' ? body : formEncode(body as Record<string, unknown>)
        headers['Content-Type'] ??= 'application/x-www-form-urlencoded'
      } else {
        payload = typeof body === 'string' ? body : JSON.stringify(body)
        headers['Content-Type'] ??= 'application/json'
      }
    }
    const url = `${ORIGIN}${opts.lang ? `/${opts.lang}` : ''}${NS_PATH}${path}`
    const init: RequestInit = { method, headers }
    if (payload !== undefined) init.body = payload
    return toRes(await router.fetch(new Request(url, init)))
  }

  const app: App = {
    router,
    storage,
    async fetch(url, init = {}) {
      const { as, ...rest } = init
      const headers = new Headers(rest.headers)
      if (as) headers.set('Authorization', `Bearer ${as}`)
      return toRes(await router.fetch(new Request(url, { ...rest, headers })))
    },
    get: (path, opts) => send('GET', path, undefined, opts),
    head: (path, opts) => send('HEAD', path, undefined, opts),
    del: (path, opts) => send('DELETE', path, undefined, opts),
    post: (path, body, opts) => send('POST', path, body, opts),
    put: (path, body, opts) => send('PUT', path, body, opts),
    patch: (path, body, opts) => send('PATCH', path, body, opts),
    async seed(fields = {}, opts = {}) {
      const res = await send(
        'POST',
        '/events',
        { title: 'Seeded event', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00', status: 'publish', ...fields },
        { as: 'administrator', ...opts },
      )
      if (res.status !== 201) throw new Error(`seed failed: ${res.status} ${res.text}`)
      return res.body
    },
    async close() {
      await storage.close?.()
    },
  }
  return app
}

/** An error answer: status, the JSON envelope with that code and `data.status`, and the message if given. */
export function expectError(res: Res, status: number, code: string, message?: string) {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8')
  expect(res.body.code).toBe(code)
  expect(res.body.data.status).toBe(status)
  if (message !== undefined) expect(res.body.message).toBe(message)
}

/** A `rest_invalid_param` naming exactly these parameters, in this order. */
export function expectInvalid(res: Res, params: string[]) {
  expectError(res, 400, 'rest_invalid_param', `Invalid parameter(s): ${params.join(', ')}`)
  expect(Object.keys(res.body.data.params)).toEqual(params)
}

/** No route for this path and method: a 404 `rest_no_route` without an Allow header, as WordPress answers. */
export function expectNoRoute(res: Res) {
  expectError(res, 404, 'rest_no_route', 'No route was found matching the URL and request method.')
  expect(res.body.data).toEqual({ status: 404 })
  expect(res.headers.get('allow')).toBeNull()
}

/** Creates a record and returns its JSON; anything but a 201 fails the test with the answer. */
export async function createOk(app: App, path: string, body: Record<string, unknown>, as: Caller = 'administrator') {
  const res = await app.post(path, body, { as })
  if (res.status !== 201) throw new Error(`create ${path} failed: ${res.status} ${res.text}`)
  return res.body
}

/** The total an administrator sees on a list: every status but trash, events over a wide window. */
export async function adminTotal(app: App, path: string): Promise<number> {
  const window = path === '/events' ? '?start_date=2000-01-01&end_date=2100-01-01' : ''
  return Number((await app.get(`${path}${window}`, { as: 'administrator' })).headers.get('x-tec-total'))
}
