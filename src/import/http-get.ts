/**
 * Every GET the importer sends (feeds, CSV files, TEC sites), with the rules of
 * docs/importing.md, "Addresses, credentials and redirects":
 * - the address the operator configured is trusted as given (an intranet or loopback feed is
 *   normal); every other address, one a source names (`next_rest_url`) or redirects to, must pass
 *   the webhook sender's address guard (webhooks/address.ts) unless private ones are allowed;
 * - credentials (Authorization and the other secret headers) go to the configured origin only:
 *   never to another host or port, never over `http:` when it was `https:`;
 * - redirects are followed by hand, each hop checked, at most `redirects` of them;
 * - the answer is read as a stream and abandoned past `maxBytes`.
 */
import { ipVersion, isBlockedAddress } from '../webhooks/address.js'
import { BudgetError } from './budget.js'
import { readLimited } from '../http/read-limited.js'

export interface GetPolicy {
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** The origin the operator configured (scheme, host, port): trusted, and the only one that gets `credentials`. */
  origin: string
  /** Headers for every request. */
  headers: Record<string, string>
  /** Headers for the configured origin only (Authorization...). */
  credentials: Record<string, string>
  timeoutMs: number
  maxBytes: number
  redirects: number
  /** Let a source name or redirect to private, loopback and link-local addresses. */
  allowPrivate: boolean
  /** Resolves a host name to its addresses (default node:dns); tests replace it. */
  resolve?: (host: string) => Promise<string[]>
  /**
   * When the source's whole budget (`sourceMs`) runs out: a request still going then is
   * abandoned with a BudgetError saying `message`, whatever `timeoutMs` would allow.
   */
  deadline?: { at: number; message: string }
}

export interface GetAnswer {
  status: number
  headers: Headers
  /** The body as UTF-8 (what JSON is). */
  text: string
  /** The body as it came, for a file whose encoding is to be found out. */
  bytes: Uint8Array
  /** The URL that answered, after redirects. */
  url: string
}

export const originOf = (url: string) => new URL(url).origin

async function systemResolve(host: string): Promise<string[]> {
  const { lookup } = await import('node:dns/promises')
  return (await lookup(host, { all: true })).map((a) => a.address)
}

/** Refuses an address the configured one did not name when it is private (unless allowed). */
async function guard(url: URL, p: GetPolicy): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`refused: ${url.href} is not an http(s) address`)
  if (url.origin === p.origin || p.allowPrivate) return
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addresses = ipVersion(host) ? [host] : await (p.resolve ?? systemResolve)(host)
  const bad = addresses.find((a) => isBlockedAddress(a))
  if (bad !== undefined)
    throw new Error(
      `refused: ${url.href} (named by the source, not configured) is at ${bad}, a private, loopback, link-local or reserved address; allow it with allowPrivateAddresses (--allow-private)`,
    )
}

/** A macrotask's pause: the server's other work runs. */
const pause = () => new Promise<void>((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)))

/** The body, read chunk by chunk and given up past `maxBytes`. */
async function readCapped(response: Response, url: string, maxBytes: number): Promise<Uint8Array> {
  const tooBig = () => new BudgetError(`the answer of ${url} is larger than ${maxBytes} bytes (budget.bytes)`)
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw tooBig()
  }
  // Chunks already buffered resolve as microtasks: without a pause between them a fast download
  // of tens of MiB would hold every other request of the server until it ends.
  return readLimited(response.body, maxBytes, tooBig, pause)
}

/**
 * @example
 * const got = await guardedGet('https://example.org/cal.ics', { origin: 'https://example.org', headers: {}, credentials: {}, timeoutMs: 60_000, maxBytes: 50 << 20, redirects: 5, allowPrivate: false })
 */
export async function guardedGet(start: string, p: GetPolicy): Promise<GetAnswer> {
  const left = p.deadline ? p.deadline.at - Date.now() : Infinity
  if (p.deadline && left <= 0) throw new BudgetError(p.deadline.message)
  // The source's deadline, when it comes before the request's own timeout, ends the request.
  const byDeadline = left < p.timeoutMs
  const signal = AbortSignal.timeout(Math.max(1, Math.min(p.timeoutMs, left)))
  const overDeadline = (e: unknown) => (byDeadline && signal.aborted ? new BudgetError(p.deadline!.message, { cause: e }) : null)
  let url = new URL(start)
  for (let hop = 0; ; hop++) {
    await guard(url, p)
    const headers = url.origin === p.origin ? { ...p.headers, ...p.credentials } : { ...p.headers }
    let response: Response
    try {
      response = await (p.fetch ?? fetch)(url.href, { headers, redirect: 'manual', signal })
    } catch (e) {
      const over = overDeadline(e)
      if (over) throw over
      const cause = (e as { cause?: { code?: string; message?: string } }).cause
      throw new Error(`${url.href} is unreachable: ${cause?.code ?? cause?.message ?? (e as Error).message}`, { cause: e })
    }
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      await response.body?.cancel().catch(() => undefined)
      if (hop >= p.redirects) throw new Error(`${start} redirects more than ${p.redirects} times`)
      url = new URL(location, url)
      continue
    }
    let bytes: Uint8Array
    try {
      bytes = await readCapped(response, url.href, p.maxBytes)
    } catch (e) {
      if (e instanceof BudgetError) throw e
      throw overDeadline(e) ?? new Error(`${url.href} stopped answering: ${(e as Error).message}`, { cause: e })
    }
    return { status: response.status, headers: response.headers, text: new TextDecoder().decode(bytes), bytes, url: url.href }
  }
}
