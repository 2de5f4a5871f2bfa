/**
 * The per-request context factory: resolves the language (the parameter as the request's
 * namespace names it, then the path segment, then the site default), gives writes of callers
 * without unfiltered_html the HTML-filtering storage, and a cacheable read the storage that
 * records what it reads. A host request sent through a batch gets the storage inside the batch's
 * open transaction instead of the router's.
 */
import type { Principal } from '../auth/principal.js'
import { createContext, type Context } from '../context.js'
import type { Params } from '../http/params.js'
import type { RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'
import { filteringStorage } from '../sanitize/storage.js'
import { batchStorages, hookedStorage, inTransactionHooks } from './host-request.js'
import type { Schemas } from '../schemas/index.js'
import type { Storage } from '../storage/types.js'
import type { FragmentCache } from '../fragment-cache.js'
import { recordReads, type Tags } from '../storage/dependencies.js'
import type { ReplicaReads } from '../storage/types.js'
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
}

export type ContextFactory = (parts: RequestParts) => Context

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** `schemasFor` gives the operations as the namespace a request came in on names them (schemas/wire-names.ts). */
export function contextFactory(
  storage: Storage,
  options: ResolvedOptions,
  schemasFor: (names: WireNames) => Schemas,
  fragments: FragmentCache | null,
  replicas?: ReplicaReads,
): ContextFactory {
  return ({ request, located, method, principal, params, query, body, path, dependsOn }) => {
    const asked = params[located.names.languageParam]
    const language =
      typeof asked === 'string' && options.languages.includes(asked) ? asked : (located.pathLanguage ?? options.defaultLanguage)
    // Writes by callers without unfiltered_html store their text through the HTML filter.
    const filter = READS.has(method) ? null : options.sanitize(principal)
    // A host request sent through a batch works inside the batch's open transaction.
    const inBatch = batchStorages.get(request)
    // A read's own reads may come from a replica (router/bookmark.ts).
    const root = inBatch ?? (READS.has(method) ? readingStorage(replicas, storage, request, dependsOn !== undefined) : storage)
    // A host job's write (router/host-request.ts) ends each transaction with the job's own hook.
    const hook = READS.has(method) ? undefined : inTransactionHooks.get(request)
    const base = hook ? hookedStorage(root, hook) : root
    return createContext({
      storage: filter ? filteringStorage(base, filter) : dependsOn ? recordReads(base, dependsOn) : base,
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
      schemas: schemasFor(located.names),
      // Fragments are kept by record id and revision: one rendered from a batch that then rolls
      // back would be served for whatever commits later under that id and revision.
      fragments: inBatch ? null : fragments,
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
