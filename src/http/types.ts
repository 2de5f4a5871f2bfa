/**
 * The router's own request/response shapes. `calendar.fetch` wraps standard Request/Response
 * around them; the Node adapter builds them straight from `IncomingMessage`/`ServerResponse`,
 * because constructing undici objects on Node costs more than the routing itself.
 */

export interface HeadersLike {
  get(name: string): string | null
}

export interface RequestLike {
  /** Upper-case HTTP method. */
  readonly method: string
  /** Absolute URL (scheme, host, path and query). */
  readonly url: string
  readonly headers: HeadersLike
  /**
   * The body as UTF-8 text, read at most once. Rejects with `PayloadTooLargeError` as soon as
   * more than `limit` bytes arrived, without buffering the rest.
   */
  text(limit: number): Promise<string>
  /** Aborted when the client went away. */
  readonly signal?: AbortSignal
  /**
   * The host's own request object, for `authenticate` to read a session from: the standard
   * `Request` under `fetch` (Bun, Deno), the `IncomingMessage` under `calendar-events-router/node`,
   * the Express `req` (with `req.session`, `req.user`...) under `calendar-events-router/express`.
   */
  readonly raw?: unknown
}

export interface RawResponse {
  status: number
  /**
   * Header name → value; names in their canonical case. A read's encoded body comes with its
   * `Content-Length` (kept on HEAD); whoever changes the body changes or removes it too.
   */
  headers: Record<string, string>
  /**
   * Serialized body, or null for none (HEAD, 304). Bytes are UTF-8, sent as they are (a cached
   * response's stored body: adapters must not copy or re-encode it).
   */
  body: string | Uint8Array<ArrayBuffer> | null
  /** `strong`: the ETag the router adds is a strong one (a record's single read). Weak otherwise. */
  validator?: 'strong'
}

/** Thrown by `RequestLike.text` when the body exceeds the limit. */
export class PayloadTooLargeError extends Error {
  constructor(public readonly limit: number) {
    super(`request body exceeds ${limit} bytes`)
    this.name = 'PayloadTooLargeError'
  }
}
