/**
 * Weak ETags and If-None-Match. The hash is a plain-JS 53-bit FNV-style hash of the encoded
 * body: no node:crypto (the core runs on every runtime) and no async digest on the hot path; a
 * weak validator only has to tell representations apart, not resist attackers. It reads the
 * bytes four at a time, so hashing a 40 KB page costs a fraction of encoding it, and the bytes
 * it hashes are the bytes that are sent (the router encodes a body once).
 */
import type { RawResponse } from './types.js'

const encoder = new TextEncoder()

export function weakEtag(body: string | Uint8Array): string {
  // Whole 32-bit words need an aligned view: TextEncoder's always is, a slice of a pooled
  // Buffer may not be (copied, so that a tag depends on the content alone).
  const given = typeof body === 'string' ? encoder.encode(body) : body
  const bytes = given.byteOffset % 4 === 0 ? given : given.slice()
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  const words = bytes.byteLength >>> 2
  if (words) {
    const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, words)
    for (let i = 0; i < words; i++) {
      const c = u32[i]!
      h1 = Math.imul(h1 ^ c, 0x01000193)
      h2 = Math.imul(h2 ^ c, 0x5bd1e995)
    }
  }
  for (let i = words << 2; i < bytes.byteLength; i++) {
    const c = bytes[i]!
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995)
  }
  const hash = (h2 >>> 0) * 0x200000 + ((h1 >>> 0) & 0x1fffff)
  return `W/"${bytes.byteLength.toString(36)}-${hash.toString(36)}"`
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '')

/** Weak comparison (RFC 9110 §13.1.2): any listed tag, or `*`. */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false
  const wanted = opaque(etag)
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === wanted)
}

const KEEP_ON_304 = [
  'Cache-Control',
  'Content-Location',
  'Date',
  'ETag',
  'Expires',
  'Vary',
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Credentials',
  'Access-Control-Expose-Headers',
]

export function notModified(raw: RawResponse): RawResponse {
  const headers: Record<string, string> = {}
  for (const name of KEEP_ON_304) if (raw.headers[name] !== undefined) headers[name] = raw.headers[name] as string
  return { status: 304, headers, body: null }
}
