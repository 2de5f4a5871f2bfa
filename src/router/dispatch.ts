/**
 * Routing, gates, parameters and the resource handler: a request's reply before the HTTP
 * niceties (caching, ETag, CORS, HEAD) that the router adds around it.
 */
import type { Principal } from '../auth/principal.js'
import { buildSiteIndex } from '../doc/discovery.js'
import { forbidden, noRoute } from '../http/errors.js'
import { emptyParams, readBody, type Params } from '../http/params.js'
import { errorResponse, jsonResponse, textResponse, type ResponseMeta } from '../http/response.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'
import type { Method, RouteDef } from '../routes.js'
import type { Tags } from '../cache/dependencies.js'
import { queryOnly, type ContextFactory } from './context.js'
import type { HostCall } from '../host-request.js'
import type { Located } from './locate.js'
import type { Match } from './match.js'
import { runEndpoint } from './run.js'
import { ifMatchGuard, recordAt, writtenTag } from './conditional.js'

/** What dispatching needs from the router's state (router.ts): its options, table, matcher and context factory. */
export interface Routing {
  options: ResolvedOptions
  routes: readonly RouteDef[]
  match: (path: string, method: string) => Promise<Match>
  context: ContextFactory
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

function decodeParam(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    // Malformed percent-encoding, the only way it fails: the capture stays as written.
    return s
  }
}

export async function dispatch(
  routing: Routing,
  request: RequestLike,
  located: Located,
  method: string,
  query: Params,
  principal: Principal | null,
  meta: ResponseMeta,
  /** Given when the reply may be cached: collects tags of what its reads touched. */
  dependsOn: Tags | undefined,
  /** A host job's request (host-request.ts), null for HTTP requests. */
  host: HostCall | null,
): Promise<RawResponse> {
  const { options, routes } = routing
  if (located.siteIndex) {
    meta.allow = ['GET']
    if (method !== 'GET') return errorResponse(noRoute(), meta)
    // The index lists every served namespace, each described under its own names.
    const contexts = options.namespaces.map((names) =>
      routing.context({ ...queryOnly(request, { ...located, names }, 'GET', principal, query), host }),
    )
    return jsonResponse(200, buildSiteIndex(contexts, routes), meta)
  }
  const { def, captures } = await routing.match(located.path, method)
  const endpoint = def && METHODS.includes(method as Method) ? def.endpoints[method as Method] : undefined
  if (!def || !endpoint) return errorResponse(noRoute(), meta)
  meta.allow = (Object.keys(def.endpoints) as Method[]).filter((m) => {
    const gate = def.endpoints[m]?.gate
    return !gate || gate(principal)
  })
  if (endpoint.gate && !endpoint.gate(principal)) throw forbidden(principal !== null)

  const body: Params = method === 'GET' || method === 'DELETE' ? emptyParams() : await readBody(request, options.maxBodyBytes)
  const path = emptyParams()
  for (const [k, v] of Object.entries(captures)) path[k] = decodeParam(v)
  const params: Params = Object.assign(emptyParams(), path, query, body)
  delete params._method
  delete params.rest_route
  const at = def.single ? recordAt(path) : null
  const ifMatch = method !== 'GET' && at ? request.headers.get('if-match') : null
  const guard = ifMatch !== null && def.single && at ? ifMatchGuard(def.single, at, ifMatch) : null
  const ctx = routing.context({ request, located, method, principal, params, query, body, path, dependsOn, host, guard: guard?.hook })
  guard?.bind(ctx)
  const reply = await runEndpoint(endpoint, ctx, ctx.schemas)
  await guard?.finish()
  if (reply.allow) meta.allow = reply.allow.filter((m) => meta.allow?.includes(m as Method))
  if (reply.text) return textResponse(reply.status, reply.text.body, reply.text.type, meta, reply.headers)
  if (method !== 'GET' && def.single && reply.status < 300) {
    return jsonResponse(reply.status, reply.body, meta, { ...reply.headers, ...(await writtenTag(ctx, def.single, at, reply)) })
  }
  const raw = jsonResponse(reply.status, reply.body, meta, reply.headers)
  // A record's single read: its ETag is strong, the one If-Match compares (read-cache.ts).
  if (at) raw.validator = 'strong'
  return raw
}
