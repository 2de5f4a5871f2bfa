/**
 * The per-request context factory: resolves the language (the parameter as the request's
 * namespace names it, then the path segment, then the site default) and builds, once, the
 * storage the request works on: the router's pipeline (or, for a host request sent through a
 * batch, the batch's open transaction) behind the request's own hooks: the `If-Match` check, the
 * HTML filter for writes of callers without unfiltered_html, read recording for a cacheable
 * read, and a host job's in-transaction hook.
 */
import type { Principal } from '../auth/principal.js'
import { createContext, type Context, type RouterShared } from '../context.js'
import type { Params } from '../http/params.js'
import type { RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'
import { htmlFilter } from '../sanitize/storage.js'
import type { HostCall } from '../host-request.js'
import type { Schemas } from '../schemas/index.js'
import type { FragmentCache } from '../cache/fragment-cache.js'
import { recordingReads, type Tags } from '../cache/dependencies.js'
import { storageInTransaction } from '../storage/open-transaction.js'
import { inTransactionHook, Pipeline, type StorageHook } from '../storage/pipeline.js'
import type { ReplicaReads, Storage } from '../storage/types.js'
import { readingStorage } from './bookmark.js'
import type { Located } from './locate.js'
import type { WireNames } from '../wire-names.js'

export interface RequestParts {
  request: RequestLike
  located: Located
  method: string
  principal: Principal | null
  /** Path, query and body merged WordPress-style (body first). */
  params: Params
  query: Params
  body: Params
  path: Params
  /** Set when the response may be cached: the reads record what they touched in it. */
  dependsOn?: Tags
  /** A host job's request: its hook and batch (null or absent for HTTP requests). */
  host?: HostCall | null
  /** The request's `If-Match` check, the outermost of its hooks. */
  guard?: StorageHook | null
}

/** What the factory needs of its router. */
export interface ContextSource {
  /** The router's pipeline: the backend behind the router's own hooks (router/observe.ts). */
  storage: Pipeline
  options: ResolvedOptions
  schemasFor: (names: WireNames) => Schemas
  fragments: FragmentCache | null
  shared: RouterShared
  /** The backend's read replicas: a read request's reads may come from one (router/bookmark.ts). */
  replicas?: ReplicaReads
}

export type ContextFactory = (parts: RequestParts) => Context

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The hooks a request adds in front of the router's, outermost first. */
function requestHooks(options: ResolvedOptions, { method, principal, dependsOn, host, guard }: RequestParts): StorageHook[] {
  const hooks: StorageHook[] = []
  if (guard) hooks.push(guard)
  // Writes by callers without unfiltered_html store their text through the HTML filter.
  const filter = READS.has(method) ? null : options.sanitize(principal)
  if (filter) hooks.push(htmlFilter(filter))
  else if (dependsOn) hooks.push(recordingReads(dependsOn))
  // A host job's write (host-request.ts) ends each transaction with the job's own hook.
  if (host?.inTransaction && !READS.has(method)) hooks.push(inTransactionHook(host.inTransaction))
  return hooks
}

/** The storage a request works on, built once with its context. */
function requestStorage(source: ContextSource, parts: RequestParts): Storage {
  const hooks = requestHooks(source.options, parts)
  // A host request sent through a batch works inside the batch's open transaction, which the
  // router's own hooks already observe.
  const batch = parts.host?.batch
  if (batch) return new Pipeline(storageInTransaction(batch), hooks)
  // A read's own reads may come from a replica; its writes, if any, still go through the router's hooks.
  if (source.replicas && READS.has(parts.method))
    return new Pipeline(readingStorage(source.replicas, source.storage, parts.request, parts.dependsOn !== undefined), hooks)
  return source.storage.with(hooks)
}

/** `source.schemasFor` gives the operations as the namespace a request came in on names them (schemas/wire-names.ts). */
export function contextFactory(source: ContextSource): ContextFactory {
  const { options } = source
  return (parts) => {
    const { request, located, principal, params, query, body, path, host } = parts
    const asked = params[located.names.languageParam]
    const language =
      typeof asked === 'string' && options.languages.includes(asked) ? asked : (located.pathLanguage ?? options.defaultLanguage)
    return createContext({
      storage: requestStorage(source, parts),
      options,
      principal,
      language,
      names: located.names,
      origin: located.origin,
      pathLanguage: located.pathLanguage !== null && language === located.pathLanguage,
      params,
      query,
      body,
      path,
      accept: request.headers.get('accept') ?? '',
      request,
      schemas: source.schemasFor(located.names),
      // Fragments are kept by record id and revision: one rendered from a batch that then rolls
      // back would be served for whatever commits later under that id and revision.
      fragments: host?.batch ? null : source.fragments,
      inTransaction: host?.inTransaction ?? null,
      inBatch: !!host?.batch,
      shared: source.shared,
    })
  }
}

/** The parts of a request that has only a query (the API index, OPTIONS). */
export const queryOnly = (request: RequestLike, located: Located, method: string, principal: Principal | null, query: Params) => ({
  request,
  located,
  method,
  principal,
  params: query,
  query,
  body: Object.create(null) as Params,
  path: Object.create(null) as Params,
})
