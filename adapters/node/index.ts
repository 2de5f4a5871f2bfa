/**
 * @module calendar-events-router/node: `http.createServer(toNodeHandler(calendar))`. Translates
 * IncomingMessage/ServerResponse to the router's own request/response shapes, nothing more.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PayloadTooLargeError, type HeadersLike, type RawResponse, type RequestLike } from '../../src/http/types.js'

/** What the adapters need of a `CalendarRouter`. */
export type CalendarHandler = { handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }> }
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void
export interface NodeAdapterOptions {
  /** Take scheme and host from `X-Forwarded-Proto`/`X-Forwarded-Host` (only behind a proxy you control). */
  trustProxy?: boolean
}

const INTERNAL_ERROR: RawResponse = {
  status: 500,
  headers: { 'Content-Type': 'application/json; charset=UTF-8' },
  body: '{"code":"internal_error","message":"Internal error","data":{"status":500}}',
}

const firstValue = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(',', 1)[0]!.trim() || undefined

class NodeHeaders implements HeadersLike {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }
}

/**
 * The router's request over an IncomingMessage. Plain fields and lazy getters: undici
 * Request/URL/Headers would cost more than the routing itself. Exported for the Express adapter.
 */
export class NodeRequest implements RequestLike {
  readonly method: string
  readonly url: string
  readonly headers: NodeHeaders
  bodyRead = false
  /** Bytes of the body are left unread on the socket, so the connection cannot be reused. */
  bodyAbandoned = false
  #controller: AbortController | undefined

  /**
   * @param target Request target to use instead of `req.url` (Express: `req.originalUrl`).
   * @param raw The host's request object, handed to `authenticate` as `request.raw`.
   */
  constructor(
    protected readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    trustProxy: boolean,
    target: string = req.url ?? '/',
    readonly raw: unknown = req,
  ) {
    const h = req.headers
    const https =
      (trustProxy && firstValue(h['x-forwarded-proto'])?.toLowerCase() === 'https') ||
      (req.socket as { encrypted?: boolean }).encrypted === true
    const origin = (https ? 'https://' : 'http://') + ((trustProxy && firstValue(h['x-forwarded-host'])) || h.host || '127.0.0.1')
    this.method = req.method ?? 'GET'
    // Absolute-form targets are legal HTTP/1.1 and already complete; `*` (OPTIONS) has no path.
    this.url = target[0] === '/' ? origin + target : /^https?:\/\//i.test(target) ? target : origin + '/'
    this.headers = new NodeHeaders(h)
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = (this.#controller = new AbortController())
      const res = this.res
      if (res.destroyed && !res.writableFinished) controller.abort()
      else res.once('close', () => res.writableFinished || controller.abort())
    }
    return this.#controller.signal
  }

  text(limit: number): Promise<string> {
    const req = this.req
    if (this.bodyRead) return Promise.reject(new TypeError('request body already read'))
    this.bodyRead = true
    if (Number(req.headers['content-length']) > limit) {
      this.bodyAbandoned = true
      return Promise.reject(new PayloadTooLargeError(limit))
    }
    // A stream consumed or torn down before us would never emit 'end'; fail instead of hanging.
    if (req.readableEnded || req.destroyed) return Promise.reject(new Error('request body is no longer readable'))
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      const settle = (error: Error | null) => {
        req.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose)
        if (error) return reject(error)
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'))
      }
      const onData = (chunk: Buffer) => {
        if ((size += chunk.length) <= limit) return void chunks.push(chunk)
        req.pause() // stop pulling bytes we will not use; the socket stays open for the 413
        this.bodyAbandoned = true
        settle(new PayloadTooLargeError(limit))
      }
      const onEnd = () => settle(null)
      const onClose = () => settle(new Error('request aborted')) // 'close' before 'end': the client left
      req.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose)
    })
  }
}

/** Writes a RawResponse (Content-Length set, unread body drained or the connection closed). */
export function send(req: IncomingMessage, res: ServerResponse, request: NodeRequest, { status, headers, body }: RawResponse): void {
  if (res.destroyed) return
  // An unread body (e.g. a 404 for a POST) is discarded so the keep-alive connection can carry on.
  if (!request.bodyRead && !req.complete) req.resume()
  // Writing explicit headers makes Node fall back to chunked encoding unless we state the length.
  // A body in bytes (a cached response) is written as it is: byteLength and end() take both forms.
  if (body !== null && headers['Content-Length'] === undefined && headers['content-length'] === undefined) {
    headers = { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }
  }
  if (request.bodyAbandoned) headers = { ...headers, Connection: 'close' }
  res.writeHead(status, headers)
  if (body === null) res.end()
  else res.end(body)
}

/**
 * Runs the router and writes its answer; a failure becomes a JSON 500 (or, once headers are
 * out, a destroyed response). Requests outside the namespace go to `passthrough` when given.
 */
export function respond(
  calendar: CalendarHandler,
  request: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  passthrough?: () => void,
): void {
  let pending: Promise<RawResponse & { passthrough?: boolean }>
  try {
    pending = calendar.handle(request)
  } catch (error) {
    pending = Promise.reject(error instanceof Error ? error : new Error(String(error)))
  }
  // The host's `next` runs in its own task: its errors are the host's, not turned into our 500.
  pending
    .then((raw) => (raw.passthrough && passthrough ? queueMicrotask(passthrough) : send(req, res, request, raw)))
    .catch(() => {
      try {
        if (!res.headersSent) return send(req, res, request, INTERNAL_ERROR)
      } catch {
        // The socket refused even the 500: the response is destroyed below.
      }
      res.destroy() // headers already out (or unwritable): a truncated response must not look complete
    })
}

/**
 * `http.createServer(toNodeHandler(calendar))`. Errors are answered as JSON, never thrown. Used as
 * Connect-style middleware (called with `next`), requests outside the namespace go to `next()`;
 * without `next` they get the API's JSON 404.
 */
export function toNodeHandler(calendar: CalendarHandler, options: NodeAdapterOptions = {}): NodeHandler {
  const trustProxy = options.trustProxy === true
  return (req, res, next) => respond(calendar, new NodeRequest(req, res, trustProxy), req, res, next && (() => next()))
}
