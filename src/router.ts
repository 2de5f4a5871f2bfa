/**
 * createCalendarRouter: the namespace as one handler. Composes the modules of src/router/:
 * locate the namespace in the URL, authenticate, dispatch (route, gate, validate once, run the
 * resource handler), answer OPTIONS, and turn every failure into a JSON error; around them the
 * HTTP niceties (read cache, ETag and Cache-Control in read-cache.ts; CORS, HEAD). Nothing
 * escapes to the host.
 */
import { effectiveMethod, parseFormEncoded } from './http/params.js'
import { errorResponse, type ResponseMeta } from './http/response.js'
import { noRoute } from './http/errors.js'
import { applyCors } from './http/cors.js'
import { ReadCache, type CacheStats } from './cache/response-cache.js'
import { FragmentCache, type FragmentCacheStats } from './cache/fragment-cache.js'
import { describingRoutes } from './doc/routes.js'
import { fromRequest, toResponse } from './http/standard.js'
import type { RawResponse, RequestLike } from './http/types.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './options.js'
import { buildRoutes, type RouteDef } from './routes.js'
import { buildSchemas, type Schemas } from './schemas/index.js'
import { schemasUnder } from './schemas/wire-names.js'
import type { WireNames } from './wire-names.js'
import type { ReplicaReads, Storage } from './storage/types.js'
import { authenticate, callerOf } from './router/authenticate.js'
import { contextFactory } from './router/context.js'
import { dispatch, type Routing } from './router/dispatch.js'
import { failureResponse } from './router/failure.js'
import { hostTasks } from './router/host-tasks.js'
import { HOST_REQUEST, type BatchOutcome, type HostCall, type HostRequest, type HostSend } from './host-request.js'
import { storageInTransaction, TransactionFailedError, type OpenTransaction } from './storage/open-transaction.js'
import { Pipeline } from './storage/pipeline.js'
import { routerShared } from './context.js'
import { locate } from './router/locate.js'
import { routeMatcher } from './router/match.js'
import { cacheCoherence, type Coherence } from './cache/coherence.js'
import { routerHooks } from './router/observe.js'
import { cachedReply } from './router/read-cache.js'
import { answerOptions } from './router/options-request.js'
import { routerWebhooks, type RouterWebhooks } from './router/webhooks.js'
import { addBookmark, cacheable } from './router/bookmark.js'
import { caldavHandler } from './caldav/handler.js'

export interface CalendarRouter {
  /** The whole namespace as a standard fetch handler (Deno, Bun, Workers, tests). */
  fetch(request: Request): Promise<Response>
  /** The low-level entry adapters use: no standard Request/Response objects involved. */
  handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }>
  /**
   * Deletes for good every event, venue and organizer that has been in the trash (unchanged)
   * for more than `olderThanDays` days, so that data is really erased. Host-side only: no
   * HTTP route reaches it, so only the site's operator (administrator) can run it, e.g. from a
   * daily job. Commits in batches; the read cache and `onChange` see every deletion.
   */
  emptyTrash(options: { olderThanDays: number }): Promise<{ deleted: number }>
  /**
   * Writes the occurrences of open-ended recurring series up to `recurrence.horizonMonths`
   * ahead of now (they are written that far when created). Host-side, like emptyTrash: call it
   * from a daily job. One transaction per series.
   */
  extendSeries(): Promise<{ added: number }>
  /**
   * Removes the change journal's entries older than `olderThanDays` (default the
   * `journalRetentionDays` option, 30): sync tokens from before then answer 410. Host-side, like
   * emptyTrash: call it from a daily job. It also removes finished webhook deliveries past
   * `webhooks.retentionDays` (7) and beyond the newest `webhooks.keepPerEndpoint` (1000) per
   * endpoint.
   *
   * @example
   * setInterval(() => void router.compactJournal(), 24 * 3600_000).unref()
   */
  compactJournal(options?: { olderThanDays?: number }): Promise<{ removed: number; deliveriesRemoved: number }>
  /**
   * Webhook deliveries (docs/webhooks.md): `start()` in a long-lived server (or the option
   * `webhooks.background`), `run()` from a scheduler where no process lives long.
   *
   * @example
   * await router.webhooks.start()
   */
  webhooks: RouterWebhooks
  /** Response-cache counters (hits, misses, entries dropped by writes, size); null without `cache`. */
  cacheStats(): CacheStats | null
  /** Fragment-cache size and hit counters; null with `fragmentCache: false`. */
  fragmentCacheStats(): FragmentCacheStats | null
  /**
   * Stops what the router runs in the background (the response cache's poll of the change
   * journal, on PostgreSQL) and empties the response cache; later requests are answered without
   * it. Optional: the poll never keeps a process alive and stops once the storage is closed.
   *
   * @example
   * process.once('SIGTERM', async () => {
   *   router.close()
   *   await storage.close()
   * })
   */
  close(): void
  readonly options: ResolvedOptions
  /** Host-side jobs' requests as a caller the host names (src/host-request.ts; the importer). */
  readonly [HOST_REQUEST]?: HostRequest
}

/**
 * Everything one router keeps, built once by createCalendarRouter and handed down the routing
 * (dispatch, the context factory, host requests). Nothing of it lives anywhere else, so two
 * routers in one process share nothing.
 */
interface RouterState extends Routing {
  /** The backend behind the router's own hooks (router/observe.ts); requests add theirs in front. */
  storage: Pipeline
  cache: ReadCache | null
  coherence: Coherence | null
  /** Set by `close()`: later requests are answered without the response cache. */
  closed: boolean
  /** The backend's read replicas (PostgreSQL): bookmarks on writes, replica reads (router/bookmark.ts). */
  replicas: ReplicaReads | undefined
  /** The CalDAV face (the `caldav` option): what it answers outside the namespace, or null. */
  caldav: ((request: RequestLike) => Promise<RawResponse | null>) | null
}

export function createCalendarRouter(backend: Storage, userOptions: CalendarOptions = {}): CalendarRouter {
  const options = resolveOptions(userOptions)
  const schemas = buildSchemas({
    languages: options.languages,
    perPage: options.perPage,
    geofence: options.geofence,
    customFields: options.customFields,
  })
  const cache = options.cache ? new ReadCache(options.cache) : null
  const fragments = options.fragmentCache ? new FragmentCache(options.fragmentCache.maxBytes) : null
  // The webhook runner renders payloads through the plain backend and wakes after our commits.
  const webhooks = routerWebhooks(backend, options, schemas, fragments, (error) =>
    options.onError?.(error, { method: 'WEBHOOK', url: '', headers: { get: () => null } }),
  )
  const state = routerState(backend, options, schemas, cache, fragments, webhooks.wake)
  const { coherence } = state

  /** The door of host requests; `batch`: the open transaction of the batch they run in. */
  const hostSend =
    (batch: OpenTransaction | null): HostSend =>
    (request, principal, inTransaction) =>
      handle(state, request, { principal, inTransaction: inTransaction ?? null, batch })
  // The CalDAV face reads and writes through the host door as the signed-in caller.
  if (options.caldav)
    state.caldav = caldavHandler(options, {
      send: hostSend(null),
      batch: (fn) => batch(state, hostSend, fn),
      authenticate: (r) => authenticate(options, r),
      storage: backend,
    })

  return {
    options,
    handle: (request) => handle(state, request, null),
    ...hostTasks(state.storage, options),
    [HOST_REQUEST]: Object.assign(hostSend(null), { storage: backend, batch: <T>(fn: BatchFn<T>) => batch(state, hostSend, fn) }),
    webhooks: webhooks.api,
    cacheStats: () => (cache ? { ...cache.stats, entries: cache.entries, bytes: cache.size } : null),
    fragmentCacheStats: () => fragments?.stats() ?? null,
    close() {
      state.closed = true
      // Not awaited: close() is synchronous; stop() never rejects (it waits with allSettled), and
      // a host that must wait for the deliveries under way calls webhooks.stop() itself.
      void webhooks.api.stop()
      coherence?.close()
      cache?.invalidate()
    },
    async fetch(request: Request): Promise<Response> {
      return toResponse(await handle(state, fromRequest(request), null))
    },
  }
}

/** The router's state: its table, caches, storage pipeline and context factory. */
function routerState(
  backend: Storage,
  options: ResolvedOptions,
  schemas: Schemas,
  cache: ReadCache | null,
  fragments: FragmentCache | null,
  wakeWebhooks: () => void,
): RouterState {
  // Each served namespace validates and describes the language parameter under its own name.
  const schemasByNames = new Map<WireNames, Schemas>(options.namespaces.map((names) => [names, schemasUnder(schemas, names)]))
  const schemasFor = (names: WireNames) => schemasByNames.get(names) ?? schemas
  // The root and /doc describe the table they belong to: they get the very array they end up in.
  const routes: RouteDef[] = []
  routes.push(...describingRoutes(routes), ...buildRoutes())
  // Other processes' commits on the same database reach the cache through the journal.
  const coherence = cache && options.cache ? cacheCoherence(backend, cache, options.cache) : null
  const storage = new Pipeline(backend, routerHooks(options, cache, coherence, wakeWebhooks))
  return {
    options,
    routes,
    match: routeMatcher(routes),
    context: contextFactory({ storage, options, schemasFor, fragments, shared: routerShared(), replicas: backend.replicaReads }),
    storage,
    cache,
    coherence,
    closed: false,
    replicas: backend.replicaReads,
    caldav: null,
  }
}

/** One request; `host` when a host job sends it (host-request.ts), null from HTTP. */
async function handle(state: RouterState, request: RequestLike, host: HostCall | null): Promise<RawResponse & { passthrough?: boolean }> {
  const { options } = state
  const located = locate(request.url, options)
  // The discovery Link names `{prefix}/` only when something is known to answer there.
  const apiRoot = options.restIndex ? `${options.baseUrl ?? located?.origin ?? ''}${options.prefix}/` : null
  const meta: ResponseMeta = { apiRoot, loggedIn: false }
  if (!located) {
    // Outside the namespace: the CalDAV face's root and well-known address, else the host's.
    const dav = state.caldav && (await state.caldav(request))
    return dav ?? { ...errorResponse(noRoute(), meta), passthrough: true }
  }
  let raw: RawResponse
  let method = request.method.toUpperCase()
  try {
    const query = parseFormEncoded(located.search)
    method = effectiveMethod(request, query)
    if (method === 'OPTIONS') {
      raw = await answerOptions(state, request, located, query, meta)
    } else {
      const found = host ? host.principal : callerOf(options, request)
      const principal = found instanceof Promise ? await found : found
      meta.loggedIn = principal !== null
      const read = method === 'GET' || method === 'HEAD'
      // A batch's request reads what is not committed yet: never from the cache, nor into it.
      // Nor one that carries a bookmark (router/bookmark.ts).
      const cached = state.closed || host?.batch || !cacheable(state.replicas, request) ? null : state.cache
      raw = await cachedReply(cached, state.coherence, options, request, located.names, read, principal, (dependsOn) =>
        dispatch(state, request, located, read ? 'GET' : method, query, principal, meta, dependsOn, host),
      )
      if (!read) addBookmark(state.replicas, raw)
    }
  } catch (error) {
    raw = failureResponse(options, error, request, meta)
  }
  if (options.cors && !(method === 'OPTIONS' && raw.status === 204)) applyCors(options.cors, request, raw)
  if (method === 'HEAD') raw.body = null
  return raw
}

/** `storage`: the open transaction's own reads (the CalDAV face reads its hidden field there). */
type BatchFn<T> = (send: HostSend, failed: () => boolean, storage: Storage) => Promise<T>

/** Host requests in one transaction of the router's storage (HostRequest.batch). */
async function batch<T>(state: RouterState, door: (batch: OpenTransaction) => HostSend, fn: BatchFn<T>): Promise<BatchOutcome<T>> {
  // The failure of the attempt that ran last: the storage may run the function more than once.
  let last: OpenTransaction | null = null
  try {
    const result = await state.storage.transaction(async (tx) => {
      const open: OpenTransaction = { tx, failure: null }
      last = open
      const sendInside = door(open)
      let ended = false
      const send: HostSend = (request, principal, inTransaction) => {
        if (ended) return Promise.reject(new Error('calendar-events-router: this batch has ended'))
        if (open.failure) return Promise.reject(new TransactionFailedError(open.failure.error))
        return sendInside(request, principal, inTransaction)
      }
      try {
        const result = await fn(send, () => open.failure !== null, storageInTransaction(open))
        // The failure itself rolls the transaction back: the SQL storage runs the whole batch
        // again when it is a serialization failure, as it would a single request's.
        if (open.failure) throw open.failure.error
        return result
      } finally {
        ended = true
      }
    })
    return { committed: true, result }
  } catch (error) {
    const failure = (last as OpenTransaction | null)?.failure
    if (failure && failure.error === error) return { committed: false }
    throw error
  }
}
