/**
 * @module calendar-events-router/bun: the namespace on `Bun.serve`.
 *
 * ```ts
 * const server = serveCalendar(calendar, { port: 3000 })
 * // or, inside your own Bun.serve: Bun.serve({ port: 3000, fetch: toBunHandler(calendar) })
 * ```
 * The types are structural, so this module compiles without bun-types and loads on any runtime.
 */

/** What this module needs of a `CalendarRouter`. */
export type FetchCalendar = { fetch(request: Request): Promise<Response> }

/** The part of a `Bun.serve()` server this module returns (a `Bun.Server` satisfies it). */
export interface BunServerLike {
  readonly port: number
  readonly hostname: string
  readonly url: URL
  stop(closeActiveConnections?: boolean): unknown
}

/** Options passed through to `Bun.serve` (port, hostname, tls, idleTimeout, ...); `fetch` is ours. */
export interface ServeCalendarOptions {
  port?: number | string
  hostname?: string
  [option: string]: unknown
}

type BunGlobal = { serve(options: ServeCalendarOptions & { fetch(request: Request): Promise<Response> }): BunServerLike }

/** The handler for `Bun.serve({ fetch })`: `calendar.fetch`, bound. */
export function toBunHandler(calendar: FetchCalendar): (request: Request) => Promise<Response> {
  return (request) => calendar.fetch(request)
}

/** `Bun.serve({ ...options, fetch: toBunHandler(calendar) })`. Throws outside Bun. */
export function serveCalendar(calendar: FetchCalendar, options: ServeCalendarOptions = {}): BunServerLike {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun
  if (!bun) throw new Error('calendar-events-router/bun: Bun.serve is not available (not running on Bun)')
  return bun.serve({ ...options, fetch: toBunHandler(calendar) })
}
