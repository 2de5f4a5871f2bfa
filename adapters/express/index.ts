/**
 * @module calendar-events-router/express: the namespace as Express 4/5 middleware.
 *
 * ```ts
 * app.use(calendarMiddleware(calendar))              // /wp-json/calendar/events/v1/...
 * app.use('/wp-json', calendarMiddleware(calendar))  // the same URLs: paths come from req.originalUrl
 * ```
 * Requests outside the namespace go on to the host's routes (`next()`). The router's answers,
 * errors included, are JSON and never reach Express's error handler. The host's `req` is
 * `request.raw` in `authenticate`, so a session the host keeps can sign callers in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { NodeRequest, respond, type CalendarHandler } from '../node/index.js'
import { PayloadTooLargeError } from '../../src/http/types.js'
import { bodyText } from './body.js'

/** The part of an Express request the middleware reads (structural: no dependency on express's types). */
export type ExpressRequest = IncomingMessage & { originalUrl?: string; body?: unknown }
type Next = (err?: unknown) => void
export type CalendarRequestHandler = (req: ExpressRequest, res: ServerResponse, next: Next) => void
export type CalendarErrorHandler = (err: unknown, req: ExpressRequest, res: ServerResponse, next: Next) => void

export interface ExpressMiddlewareOptions {
  /**
   * Take scheme and host from `X-Forwarded-Proto`/`X-Forwarded-Host`. Default: what the app's own
   * `trust proxy` setting says for the connecting address.
   */
  trustProxy?: boolean
}

/** Express's compiled `trust proxy` setting. */
const trusts = (req: ExpressRequest): boolean => {
  const fn = (req as { app?: { get?(name: string): unknown } }).app?.get?.('trust proxy fn')
  // Express compiles the setting to (address, hop) => boolean.
  return typeof fn === 'function' && (fn as (address: string | undefined, hop: number) => unknown)(req.socket.remoteAddress, 0) === true
}

// Body parsers (`express.json()` ...) leave the stream read to the end; on-finished's test.
const consumed = (req: IncomingMessage) => req.complete && !req.readable

class ExpressRequestAdapter extends NodeRequest {
  /** `text` to give when the body has been read by the host (a parsed body, or a parser's failure). */
  constructor(
    req: ExpressRequest,
    res: ServerResponse,
    trustProxy: boolean,
    private readonly given?: (limit: number) => Promise<string>,
  ) {
    super(req, res, trustProxy, req.originalUrl ?? req.url)
  }

  override text(limit: number): Promise<string> {
    if (!this.given && !consumed(this.req)) return super.text(limit)
    this.bodyRead = true
    // Inside `then`: a body JSON.stringify refuses (a cycle, a bigint) becomes a rejection.
    const text =
      this.given ?? (() => Promise.resolve().then(() => bodyText((this.req as ExpressRequest).body, this.req.headers['content-type'])))
    return text(limit).then((t) => (Buffer.byteLength(t) > limit ? Promise.reject(new PayloadTooLargeError(limit)) : t))
  }
}

/** What a body-parser failure means for the router: the text that failed to parse, or too large. */
function parserFailure(err: unknown): ((limit: number) => Promise<string>) | null {
  const { type, body, limit: hostLimit } = (err ?? {}) as { type?: unknown; body?: unknown; limit?: unknown }
  if (type === 'entity.parse.failed') return () => Promise.resolve(typeof body === 'string' ? body : '')
  // The client has to stay under whichever limit is smaller: the parser's refused this body.
  const parserLimit = typeof hostLimit === 'number' && Number.isSafeInteger(hostLimit) && hostLimit >= 0 ? hostLimit : null
  if (type === 'entity.too.large')
    return (limit) => Promise.reject(new PayloadTooLargeError(parserLimit !== null ? Math.min(parserLimit, limit) : limit))
  return null
}

/**
 * `app.use(calendarMiddleware(calendar))`. Returns two handlers for `app.use()` to take together:
 * the API itself, and an error handler that answers a body-parser failure (malformed JSON, a body
 * over `express.json()`'s limit) on an API path with the router's JSON 400/413 (after the usual
 * 401/403 checks) instead of Express's HTML error page. Every other error goes on to `next(err)`.
 */
export function calendarMiddleware(
  calendar: CalendarHandler,
  options: ExpressMiddlewareOptions = {},
): [CalendarRequestHandler, CalendarErrorHandler] {
  const trust = (req: ExpressRequest) => options.trustProxy ?? trusts(req)
  return [
    (req, res, next) => respond(calendar, new ExpressRequestAdapter(req, res, trust(req)), req, res, () => next()),
    (err, req, res, next) => {
      const given = parserFailure(err)
      if (!given) return next(err)
      respond(calendar, new ExpressRequestAdapter(req, res, trust(req), given), req, res, () => next(err))
    },
  ]
}
