/**
 * Finds the route of a path. The table is ours (each route's regex is built in routes.ts, with
 * its own constraints on the captures, e.g. digits for an id), so matching is the first regex
 * that matches, in table order. We used itty-router here before, but only by pushing these
 * regexes into its internal route tuples (its public API compiles its own `:name` patterns,
 * which cannot carry our constraints); a loop over the table does the same without the cast.
 */
import type { RouteDef } from '../routes.js'

export interface Match {
  def: RouteDef | undefined
  /** Path captures, still percent-encoded. */
  captures: Record<string, string>
}

export function routeMatcher(routes: readonly RouteDef[]): (path: string, method: string) => Promise<Match> {
  // The match is synchronous; its callers await it inside their own async functions, where a
  // throw and a rejection arrive alike.
  return (path) => Promise.resolve(matchPath(routes, path))
}

/** Paths a URL parser leaves as they are: no dot segment, escape, space or other character it would rewrite. */
const PLAIN_PATH = /^[\w\-/~]*$/

function matchPath(routes: readonly RouteDef[], path: string): Match {
  // The path as a URL's pathname: dot segments resolved and characters a URL may not carry
  // percent-encoded, the form the table's regexes are written for. Most paths are that already,
  // and parsing a URL was the costliest step of routing them.
  const pathname = PLAIN_PATH.test(path) ? path || '/' : new URL(`http://n${path || '/'}`).pathname
  for (const def of routes) {
    const found = def.regex.exec(pathname)
    if (found) return { def, captures: { ...found.groups } }
  }
  return { def: undefined, captures: {} }
}
