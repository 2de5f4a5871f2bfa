/**
 * @module calendar-events-router/bun: the namespace on `Bun.serve`.
 *
 * ```ts
 * const server = serveCalendar(calendar, { port: 3000 })
 * // or, inside your own Bun.serve: Bun.serve({ port: 3000, fetch: toBunHandler(calendar, { fallback: myApp }) })
 * ```
 * The types are structural, so this module compiles without bun-types and loads on any runtime.
 */

import { fromRequest, toResponse } from '../../src/http/standard.js'
import type { RawResponse, RequestLike } from '../../src/http/types.js'

/** What this module needs of a `CalendarRouter`. */
export type FetchCalendar = {
  fetch(request: Request): Promise<Response>
  /** Needed only with `fallback`: it tells which requests are outside the namespace. */
  handle?(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }>
}

export interface BunHandlerOptions {
  /**
   * Answers requests outside the calendar's namespace (the host's own routes, static files).
   * Without it they get the calendar's JSON `404 rest_no_route`.
   */
  fallback?: (request: Request) => Response | Promise<Response>
}

/** The part of a `Bun.serve()` server this module returns (a `Bun.Server` satisfies it). */
export interface BunServerLike {
  readonly port: number
  readonly hostname: string
  readonly url: URL
  stop(closeActiveConnections?: boolean): unknown
}

/** Options passed through to `Bun.serve` (port, hostname, tls, idleTimeout, ...); `fetch` is ours. */
export interface ServeCalendarOptions extends BunHandlerOptions {
  port?: number | string
  hostname?: string
  [option: string]: unknown
}

type BunGlobal = { serve(options: ServeCalendarOptions & { fetch(request: Request): Promise<Response> }): BunServerLike }

/** The handler for `Bun.serve({ fetch })`: the calendar's paths, and the rest to `fallback`. */
export function toBunHandler(calendar: FetchCalendar, options: BunHandlerOptions = {}): (request: Request) => Promise<Response> {
  const { fallback } = options
  if (!fallback) return (request) => calendar.fetch(request)
  const handle = calendar.handle?.bind(calendar)
  if (!handle) throw new TypeError('calendar-events-router/bun: fallback needs a CalendarRouter (with handle())')
  return async (request) => {
    const raw = await handle(fromRequest(request))
    return raw.passthrough ? fallback(request) : toResponse(raw)
  }
}

/** `Bun.serve({ ...options, fetch: toBunHandler(calendar) })`. Throws outside Bun. */
export function serveCalendar(calendar: FetchCalendar, options: ServeCalendarOptions = {}): BunServerLike {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun
  if (!bun) throw new Error('calendar-events-router/bun: Bun.serve is not available (not running on Bun)')
  const { fallback, ...serveOptions } = options
  return bun.serve({ ...serveOptions, fetch: toBunHandler(calendar, { fallback }) })
}
