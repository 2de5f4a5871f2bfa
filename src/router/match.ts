/**
 * Finds the route of a path with itty-router. The table is ours (regexes built in routes.ts), so
 * routes are pushed as itty's entries directly and the request is a plain object: itty reads
 * only the method and the URL, and writes the captures to `params`.
 */
import { IttyRouter, type IRequest, type RouteEntry } from 'itty-router'
import type { RouteDef } from '../routes.js'

export interface Match {
  def: RouteDef | undefined
  /** Path captures, still percent-encoded. */
  captures: Record<string, string>
}

export function routeMatcher(routes: readonly RouteDef[]): (path: string, method: string) => Promise<Match> {
  const matcher = IttyRouter<IRequest, [], RouteDef | undefined>()
  // itty's entry type is its own internal tuple: ours are built to the same shape.
  for (const r of routes) matcher.routes.push(['ALL', r.regex, [() => r], r.pattern] as unknown as RouteEntry)
  return async (path, method) => {
    const found = { params: {} as Record<string, string> }
    const def = await matcher.fetch(Object.assign(found, { method, url: `http://n${path || '/'}` }) as unknown as IRequest)
    return { def, captures: found.params }
  }
}
