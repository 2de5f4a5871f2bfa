/**
 * The namespace index (docs/wire-compatibility.md §7.1): every route in registration order with its methods and,
 * per endpoint, the arguments with their JSON Schema type, default, description and `required`,
 * all generated from the schemas that validate requests.
 */
import type { Context } from '../context.js'
import { restUrl } from '../urls.js'
import type { Endpoint, Method, RouteDef } from '../routes.js'
import type { ParamDefs } from '../schemas/operation.js'
import type { Schemas } from '../schemas/index.js'
import { paramSchema, shownDefault } from './params.js'

/** Endpoints of a route grouped as WordPress registers them: POST, PUT and PATCH share one. */
export function endpointGroups(route: RouteDef): Array<{ methods: Method[]; endpoint: Endpoint }> {
  const groups: Array<{ methods: Method[]; endpoint: Endpoint }> = []
  for (const [method, endpoint] of Object.entries(route.endpoints) as Array<[Method, Endpoint]>) {
    const group = groups.find((g) => g.endpoint === endpoint)
    if (group) group.methods.push(method)
    else groups.push({ methods: [method], endpoint })
  }
  return groups
}

/** Parameters of an endpoint: the path captures first, then the operation's own. */
export function endpointParams(route: RouteDef, endpoint: Endpoint, schemas: Schemas): ParamDefs {
  const defs: ParamDefs = {}
  const captures = [...route.pattern.matchAll(/\(\?P<(\w+)>/g)].map((m) => m[1] as string)
  const own = schemas[endpoint.op] as ParamDefs
  // A write naming a record validates its path with its own lookup (`target`): describe that one.
  const target = endpoint.target ? (schemas[endpoint.target] as ParamDefs) : {}
  for (const name of captures) {
    const fromLookup = (name === 'id' ? schemas.eventById.id : schemas.eventBySlug.slug) as ParamDefs[string]
    defs[name] = { ...(own[name] ?? target[name] ?? fromLookup), in: 'path', required: true }
  }
  for (const [name, def] of Object.entries(own)) if (!(name in defs)) defs[name] = def
  return defs
}

/** The index has no components to point at: a reference to an object schema shows as an object. */
function withoutRefs(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutRefs)
  if (typeof json !== 'object' || json === null) return json
  if ('$ref' in json) return { type: 'object' }
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, withoutRefs(v)]))
}

export function argData(defs: ParamDefs, now?: { local: string }): Record<string, unknown> | [] {
  const args: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(defs)) {
    const shown = shownDefault(def, now)
    args[name] = {
      ...(withoutRefs(paramSchema(def)) as Record<string, unknown>),
      ...(shown !== undefined ? { default: shown } : {}),
      description: def.description,
      required: def.required === true,
    }
  }
  // WordPress serialises an empty PHP array: JSON [].
  return Object.keys(args).length ? args : []
}

/** The namespace index under the names the request came in on (`ctx.names`). */
export function buildIndex(ctx: Context, routes: readonly RouteDef[], schemas: Schemas) {
  const namespace = ctx.names.namespace
  const out: Record<string, unknown> = {}
  for (const route of routes) {
    const groups = endpointGroups(route)
    const hasCaptures = route.pattern.includes('(?P<')
    out[`/${namespace}${route.pattern}`] = {
      namespace,
      methods: groups.flatMap((g) => g.methods),
      endpoints: groups.map((g) => ({
        methods: g.methods,
        args: argData(endpointParams(route, g.endpoint, schemas), { local: ctx.nowLocal }),
      })),
      ...(hasCaptures ? {} : { _links: { self: [{ href: restUrl(ctx, route.pattern.replace(/^\//, '')) }] } }),
    }
  }
  return {
    namespace,
    routes: out,
    // `up` is the API index, linked only when something answers there (the restIndex option).
    ...(ctx.options.restIndex ? { _links: { up: [{ href: `${ctx.base}${ctx.options.prefix}/` }] } } : {}),
  }
}

/**
 * The REST API root `{prefix}/` in WordPress's shape, for clients that discover an API from the
 * `Link: <{prefix}/>; rel="https://api.w.org/"` header (wpapi's `WPAPI.discover()`): it names the
 * served namespaces and lists their routes, one context per namespace (ours first, then TEC's
 * with the tecNames option). A host that serves its own index there turns it off.
 */
export function buildSiteIndex(contexts: readonly Context[], routes: readonly RouteDef[]) {
  const ctx = contexts[0] as Context
  const root = `${ctx.base}${ctx.options.prefix}/`
  return {
    name: '',
    description: '',
    url: ctx.base,
    home: ctx.base,
    timezone_string: ctx.options.timezone,
    namespaces: contexts.map((c) => c.names.namespace),
    authentication: {},
    routes: {
      '/': { namespace: '', methods: ['GET'], endpoints: [{ methods: ['GET'], args: [] }], _links: { self: [{ href: root }] } },
      ...(Object.assign({}, ...contexts.map((c) => buildIndex(c, routes, c.schemas).routes)) as Record<string, unknown>),
    },
    _links: { self: [{ href: root }] },
  }
}
