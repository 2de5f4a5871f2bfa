/**
 * Reading a TEC site's REST API over HTTP: one GET that answers parsed JSON or says plainly why
 * not (401/403 with TEC's own message, an HTML page where JSON was expected, a network failure),
 * and the API root a base URL names. tec.ts reads the records; this only talks to the site.
 */
import { BudgetError, resolveBudget, type ImportBudget } from './budget.js'
import { guardedGet, type GetAnswer } from './http-get.js'
import { policyFor } from './read-source.js'

export interface TecHttpOptions {
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** `name:application-password`: sent as HTTP Basic auth (WordPress application passwords), to the site's own origin only. */
  auth?: string
  /** Extra request headers, sent to the site's own origin only. */
  headers?: Record<string, string>
  /** Abort a request that has not answered in full in this many ms (default 60,000). */
  timeoutMs?: number
  /** Let a redirect lead to a private, loopback or link-local address (the site's own address is always trusted). */
  allowPrivateAddresses?: boolean
  /** Replaces name resolution for the address guard (tests). */
  resolveHost?: (host: string) => Promise<string[]>
  /** Bytes per answer, pages per listing, time for the whole site (see ImportBudget). */
  budget?: ImportBudget
}

/** Why a request to the site gave no JSON; `status` is 0 for a network failure. */
export class TecHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The JSON error body when the site sent one (TEC's `{ code, message, data }`). */
    readonly body: unknown = null,
  ) {
    super(message)
  }
}

export interface TecGet {
  /** `size`: the answer's bytes, for the budget of what a listing keeps. */
  (url: string): Promise<{ body: unknown; headers: Headers; size: number }>
}

/**
 * @example
 * const get = tecGetter('https://site.example', { auth: 'editor:abcd efgh ijkl' })
 * const { body } = await get('https://site.example/wp-json/tribe/events/v1/events?page=1')
 */
export function tecGetter(site: string, o: TecHttpOptions = {}, deadline?: number): TecGet {
  const credentials: Record<string, string> = {}
  if (o.auth) credentials.authorization = `Basic ${Buffer.from(o.auth, 'utf8').toString('base64')}`
  const budget = resolveBudget(o.budget)
  // Every request ends by the site's deadline (budget.sourceMs), a page that never answers included.
  const until =
    deadline === undefined
      ? undefined
      : { at: deadline, message: `reading the site took more than ${budget.sourceMs} ms (budget.sourceMs)` }
  const policy = policyFor(site, o, budget, 'application/json', credentials, until)
  return async (url) => {
    let response: GetAnswer
    try {
      response = await guardedGet(url, policy)
    } catch (e) {
      if (e instanceof BudgetError) throw e
      throw new TecHttpError((e as Error).message, 0)
    }
    const text = response.text
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      // WordPress behind a login wall, a maintenance page, a 404 theme page: HTML, not the API.
      const type = response.headers.get('content-type') ?? 'no content type'
      const what = /<html|<!doctype/i.test(text.slice(0, 500)) ? 'an HTML page' : `a body that is not JSON (${type})`
      throw new TecHttpError(`${url} answered HTTP ${response.status} with ${what}, not TEC's JSON`, response.status)
    }
    if (response.status < 200 || response.status > 299) {
      const said = tecErrorText(body)
      const hint =
        response.status === 401 || response.status === 403
          ? o.auth
            ? ' (the credentials were refused or may not read this)'
            : ' (this needs credentials: --user name:application-password)'
          : ''
      throw new TecHttpError(`${url} answered HTTP ${response.status}${said}${hint}`, response.status, body)
    }
    return { body, headers: response.headers, size: response.bytes.byteLength }
  }
}

/** ` code message` of a TEC error body (`{ code, message, data }`), or '' for any other body. */
function tecErrorText(body: unknown): string {
  if (!body || typeof body !== 'object') return ''
  const { code, message } = body as { code?: unknown; message?: unknown }
  if (typeof message !== 'string') return ''
  return `: ${typeof code === 'string' ? code : ''} ${message}`.trimEnd()
}

const NAMESPACES = ['tribe/events/v1', 'calendar/events/v1']

/**
 * The API root a base URL names: the URL itself when it already ends in one of the two
 * namespaces, else `{base}/wp-json/tribe/events/v1` if the site answers there, else our own
 * `{base}/wp-json/calendar/events/v1`.
 *
 * @example
 * await apiRoot('https://site.example', get) // 'https://site.example/wp-json/tribe/events/v1'
 */
export async function apiRoot(base: string, get: TecGet): Promise<string> {
  const trimmed = base.replace(/\/+$/, '')
  if (NAMESPACES.some((ns) => trimmed.endsWith(`/${ns}`))) return trimmed
  let first: unknown
  for (const ns of NAMESPACES) {
    const root = `${trimmed}/wp-json/${ns}`
    try {
      const { body } = await get(`${root}/`)
      if (body && typeof body === 'object' && !Array.isArray(body)) return root
    } catch (e) {
      // A 401 or an HTML page is the answer the user needs to see, not "no namespace found".
      if (e instanceof TecHttpError && e.status !== 404) throw e
      first ??= e
    }
  }
  throw new Error(
    `${base} serves neither tribe/events/v1 nor calendar/events/v1 under /wp-json/${first ? ` (${(first as Error).message})` : ''}`,
  )
}
