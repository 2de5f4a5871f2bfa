/**
 * ETags, If-None-Match and If-Match. The tag is the body's byte length and a 53-bit hash of its
 * encoded bytes: no node:crypto (the core runs on every runtime) and no async digest on the hot
 * path; a weak validator only has to tell representations apart, not resist attackers. The hash
 * reads the bytes four at a time (MurmurHash3's block step on two lanes), so hashing a 40 KB page
 * costs a fraction of encoding it, and the bytes it hashes are those sent (the router encodes a
 * body once).
 */
import type { RawResponse } from './types.js'

const encoder = new TextEncoder()

/**
 * A strong ETag: the same hash of the exact bytes, claiming byte-for-byte identity. Given to
 * single-record reads (and, for the record, to write replies) so that If-Match can compare it.
 */
export function strongEtag(body: string | Uint8Array): string {
  return weakEtag(body).slice(2)
}

export function weakEtag(body: string | Uint8Array): string {
  // Whole 32-bit words need an aligned view: TextEncoder's always is, a slice of a pooled
  // Buffer may not be (copied, so that a tag depends on the content alone).
  const given = typeof body === 'string' ? encoder.encode(body) : body
  const bytes = given.byteOffset % 4 === 0 ? given : given.slice()
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  const words = bytes.byteLength >>> 2
  if (words) {
    // MurmurHash3's block step on two lanes taking turns: each word is mixed once, and the
    // rotations carry high bits down (a multiply alone only carries bits upwards).
    const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, words)
    for (let i = 0; i < words; i += 2) {
      let k = Math.imul(u32[i]!, 0xcc9e2d51)
      k = Math.imul((k << 15) | (k >>> 17), 0x1b873593)
      h1 ^= k
      h1 = (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0
      if (i + 1 === words) break
      k = Math.imul(u32[i + 1]!, 0xcc9e2d51)
      k = Math.imul((k << 15) | (k >>> 17), 0x1b873593)
      h2 ^= k
      h2 = (Math.imul((h2 << 13) | (h2 >>> 19), 5) + 0xe6546b64) | 0
    }
  }
  for (let i = words << 2; i < bytes.byteLength; i++) h2 = Math.imul(h2 ^ bytes[i]!, 0x5bd1e995)
  const hash = (mix(h2 ^ bytes.byteLength) >>> 0) * 0x200000 + ((mix(h1) >>> 0) & 0x1fffff)
  return `W/"${bytes.byteLength.toString(36)}-${hash.toString(36)}"`
}

/** MurmurHash3's finalizer: every input bit reaches every output bit. */
function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '')

/** Weak comparison (RFC 9110 §13.1.2): any listed tag, or `*`. */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false
  const wanted = opaque(etag)
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === wanted)
}

/**
 * Whether an If-Match header lets a write go on (RFC 9110 §13.1.1): `*` when the record has a
 * current representation, or one of the listed tags equal to its strong ETag by strong
 * comparison (a weak tag never matches). Anything unparsable matches nothing.
 */
export function ifMatchHolds(header: string, current: string | null): boolean {
  if (current === null) return false
  const tags = header.split(',').map((t) => t.trim())
  return tags.some((t) => t === '*' || (t === current && !t.startsWith('W/')))
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
  for (const name of KEEP_ON_304) if (raw.headers[name] !== undefined) headers[name] = raw.headers[name]
  return { status: 304, headers, body: null }
}
