/**
 * Where a request URL meets the namespace: the origin, which of the served namespaces it names
 * (`calendar/events/v1`, or `tribe/events/v1` with the tecNames option), the path below it, a
 * language path segment, WordPress's `?rest_route=` form, and the optional API index at
 * `{prefix}/`.
 */
import { parseFormEncoded } from '../http/params.js'
import type { ResolvedOptions } from '../options.js'
import type { WireNames } from '../wire-names.js'

export interface Located {
  origin: string
  /** Path below the namespace, e.g. `/events/12`. */
  path: string
  search: string
  pathLanguage: string | null
  /** The namespace addressed (for the API index: ours). */
  names: WireNames
  /** `{prefix}/` itself: the WordPress-style API root (only with the restIndex option). */
  siteIndex?: true
}

/** Splits an absolute URL without `new URL` (hot path) and finds our namespace in it. */
export function locate(url: string, options: ResolvedOptions): Located | null {
  const schemeEnd = url.indexOf('://')
  const pathStart = url.indexOf('/', schemeEnd + 3)
  const origin = pathStart === -1 ? url : url.slice(0, pathStart)
  const rest = pathStart === -1 ? '/' : url.slice(pathStart)
  const q = rest.indexOf('?')
  let pathname = q === -1 ? rest : rest.slice(0, q)
  const search = q === -1 ? '' : rest.slice(q + 1)
  const hash = pathname.indexOf('#')
  if (hash !== -1) pathname = pathname.slice(0, hash)

  let pathLanguage: string | null = null
  if (options.languagePathSegment) {
    const second = pathname.indexOf('/', 1)
    const first = pathname.slice(1, second === -1 ? undefined : second).toLowerCase()
    if (second !== -1 && options.languages.includes(first)) {
      pathLanguage = first
      pathname = pathname.slice(second)
    }
  }
  for (const { path: ns, names } of options.namespacePaths) {
    // Only the part that must be the namespace is lowercased: the rest keeps its case.
    if (pathname.length >= ns.length && pathname.slice(0, ns.length).toLowerCase() === ns) {
      const below = pathname.slice(ns.length)
      if (below === '' || below[0] === '/') return { origin, path: below, search, pathLanguage, names }
    }
  }
  const own = options.namespaces[0] as WireNames
  // WordPress's plain-permalink form: `/?rest_route=/calendar/events/v1/events`.
  if ((pathname === '/' || pathname === `${options.prefix}/`) && search.includes('rest_route=')) {
    const route = parseFormEncoded(search).rest_route
    if (typeof route === 'string') {
      const routeLower = route.toLowerCase()
      for (const names of options.namespaces) {
        const ns = `/${names.namespace}`
        if (routeLower.startsWith(ns)) return { origin, path: route.slice(ns.length), search, pathLanguage, names }
      }
    }
    if (options.restIndex && route === '/') return { origin, path: '', search, pathLanguage, names: own, siteIndex: true }
    return null
  }
  const lower = pathname.toLowerCase()
  if (options.restIndex && (lower === `${options.prefix}/` || (options.prefix !== '' && lower === options.prefix))) {
    return { origin, path: '', search, pathLanguage, names: own, siteIndex: true }
  }
  return null
}
