/**
 * One delivery attempt: a POST that follows no redirect, gives up after a timeout, keeps at most
 * the start of the answer (the rest is read and dropped as it arrives, never held), and connects
 * only to an address the SSRF rules allow: the name is resolved by the request itself and each
 * address it would use is checked, so a name that resolves elsewhere later cannot slip through.
 */
import type { LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { ipVersion, isBlockedAddress } from './address.js'
import { builtin } from './builtins.js'

type Dns = typeof import('node:dns')
type Http = typeof import('node:http')

export interface SendOptions {
  timeoutMs: number
  allowPrivate: boolean
  /** Bytes of the answer kept for the delivery log. */
  keepBytes: number
}

export interface SendResult {
  /** The answer's status, or null when there was none (refused, timeout, network error). */
  status: number | null
  /** The start of the answer, or what went wrong. */
  response: string
  /** `Retry-After` of the answer, in milliseconds from now. */
  retryAfterMs: number | null
}

export class BlockedAddressError extends Error {
  constructor(address: string) {
    super(`refused: ${address} is not a global unicast address (private, loopback, link-local, reserved or special-purpose)`)
    this.name = 'BlockedAddressError'
  }
}

/** dns.lookup, failing for an address webhooks may not reach. */
function guardedLookup(dns: Dns, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0)
      const list = addresses
      const bad = allowPrivate ? undefined : list.find((a) => isBlockedAddress(a.address))
      if (bad) return callback(new BlockedAddressError(bad.address), '', 0)
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list)
      const first = list[0]
      if (!first) return callback(new Error(`no address for ${hostname}`), '', 0)
      callback(null, first.address, first.family)
    })
  }
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - now) : null
}

/**
 * Sends one webhook POST.
 *
 * @example
 * const r = await send('https://example.com/hook', { 'content-type': 'application/json' }, '{}', { timeoutMs: 15_000, allowPrivate: false, keepBytes: 1024 })
 */
export function send(url: string, headers: Record<string, string>, body: string, o: SendOptions): Promise<SendResult> {
  const http = builtin<Http>('node:http')
  const https = builtin<Http>('node:https')
  const dns = builtin<Dns>('node:dns')
  if (!http || !https || !dns) return sendWithFetch(url, headers, body, o)
  return new Promise((resolve) => {
    let settled = false
    const done = (r: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(r)
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      // The stored URL does not parse: that is the whole outcome of the attempt.
      return done({ status: null, response: 'invalid URL', retryAfterMs: null })
    }
    const host = target.hostname.replace(/^\[|\]$/g, '')
    if (ipVersion(host) && !o.allowPrivate && isBlockedAddress(host)) {
      return done({ status: null, response: new BlockedAddressError(host).message, retryAfterMs: null })
    }
    const client = target.protocol === 'https:' ? https : http
    const payload = new TextEncoder().encode(body)
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        lookup: guardedLookup(dns, o.allowPrivate),
        // A fresh connection each time: a pooled socket was checked for another name.
        agent: false,
      },
      (res) => {
        const chunks: Uint8Array[] = []
        let kept = 0
        res.on('data', (chunk: Uint8Array) => {
          if (kept < o.keepBytes) {
            const part = chunk.subarray(0, o.keepBytes - kept)
            chunks.push(part)
            kept += part.length
          }
        })
        const finish = () =>
          done({
            status: res.statusCode ?? null,
            response: decode(chunks),
            retryAfterMs: retryAfterMs(res.headers['retry-after']),
          })
        res.on('end', finish)
        res.on('error', finish)
        // A huge answer: what is kept is enough; stop reading the rest.
        res.on('data', () => {
          if (kept >= o.keepBytes) {
            finish()
            res.destroy()
          }
        })
      },
    )
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${o.timeoutMs} ms`))
    }, o.timeoutMs)
    req.on('error', (err) => done({ status: null, response: err.message, retryAfterMs: null }))
    req.end(payload)
  })
}

const decode = (chunks: Uint8Array[]) => {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.length
  }
  return new TextDecoder().decode(all)
}

/**
 * Where the runtime has no node:http (a worker): fetch, without following redirects, cut off at
 * the timeout and after `keepBytes` of the answer. The address check covers IP literals only
 * there: a worker cannot see which address a name resolves to (docs/webhooks.md).
 */
async function sendWithFetch(url: string, headers: Record<string, string>, body: string, o: SendOptions): Promise<SendResult> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  if (ipVersion(host) && !o.allowPrivate && isBlockedAddress(host)) {
    return { status: null, response: new BlockedAddressError(host).message, retryAfterMs: null }
  }
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${o.timeoutMs} ms`)), o.timeoutMs)
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: controller.signal })
    const chunks: Uint8Array[] = []
    let kept = 0
    const reader = res.body?.getReader()
    while (reader && kept < o.keepBytes) {
      const { done, value } = await reader.read()
      if (done || !value) break
      const part = value.subarray(0, o.keepBytes - kept)
      chunks.push(part)
      kept += part.length
    }
    await reader?.cancel().catch(() => undefined)
    return { status: res.status, response: decode(chunks), retryAfterMs: retryAfterMs(res.headers.get('retry-after') ?? undefined) }
  } catch (err) {
    return { status: null, response: err instanceof Error ? err.message : String(err), retryAfterMs: null }
  } finally {
    clearTimeout(timer)
  }
}
