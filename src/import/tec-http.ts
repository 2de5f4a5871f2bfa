/**
 * Reading a TEC site's REST API over HTTP: one GET that answers parsed JSON or says plainly why
 * not (401/403 with TEC's own message, an HTML page where JSON was expected, a network failure),
 * and the API root a base URL names. tec.ts reads the records; this only talks to the site.
 */

export interface TecHttpOptions {
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** `name:application-password`: sent as HTTP Basic auth (WordPress application passwords). */
  auth?: string
  /** Extra request headers. */
  headers?: Record<string, string>
  /** Abort a request that has not answered in this many ms (default 60,000). */
  timeoutMs?: number
}

/** Why a request to the site gave no JSON; `status` is 0 for a network failure. */
export class TecHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The JSON error body when the site sent one (TEC's `{ code, message, data }`). */
    readonly body: any = null,
  ) {
    super(message)
  }
}

export interface TecGet {
  (url: string): Promise<{ body: any; headers: Headers }>
}

/**
 * @example
 * const get = tecGetter({ auth: 'editor:abcd efgh ijkl' })
 * const { body } = await get('https://site.example/wp-json/tribe/events/v1/events?page=1')
 */
export function tecGetter(o: TecHttpOptions = {}): TecGet {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers }
  if (o.auth) headers.authorization = `Basic ${Buffer.from(o.auth, 'utf8').toString('base64')}`
  return async (url) => {
    let response: Response
    try {
      response = await (o.fetch ?? fetch)(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(o.timeoutMs ?? 60_000) })
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause
      throw new TecHttpError(`${url} is unreachable: ${cause?.code ?? cause?.message ?? (e as Error).message}`, 0)
    }
    const text = await response.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      // WordPress behind a login wall, a maintenance page, a 404 theme page: HTML, not the API.
      const type = response.headers.get('content-type') ?? 'no content type'
      const what = /<html|<!doctype/i.test(text.slice(0, 500)) ? 'an HTML page' : `a body that is not JSON (${type})`
      throw new TecHttpError(`${url} answered HTTP ${response.status} with ${what}, not TEC's JSON`, response.status)
    }
    if (!response.ok) {
      const said =
        body && typeof body === 'object' && typeof body.message === 'string' ? `: ${body.code ?? ''} ${body.message}`.trimEnd() : ''
      const hint =
        response.status === 401 || response.status === 403
          ? o.auth
            ? ' (the credentials were refused or may not read this)'
            : ' (this needs credentials: --user name:application-password)'
          : ''
      throw new TecHttpError(`${url} answered HTTP ${response.status}${said}${hint}`, response.status, body)
    }
    return { body, headers: response.headers }
  }
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
