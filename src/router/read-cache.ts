/**
 * The HTTP niceties of a read around its dispatch: reads shared through the response cache by
 * callers of one reader class, the body encoded once (the ETag hashes the bytes the cache and
 * the adapter send), Cache-Control for the anonymous, and 304 on a matching If-None-Match.
 */
import { readerClass, type Principal } from '../auth/principal.js'
import type { ReadCache } from '../cache/response-cache.js'
import type { Coherence } from '../cache/coherence.js'
import { appendVary } from '../http/cors.js'
import { ifNoneMatchHits, notModified, strongEtag, weakEtag } from '../http/etag.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'
import type { Tags } from '../cache/dependencies.js'
import type { WireNames } from '../wire-names.js'

const encoder = new TextEncoder()

/**
 * `produce` dispatches the request; `dependsOn`, when given, collects what its reads touched.
 * `coherence`, when other processes write the same data, drops what they made stale before a hit.
 */
export async function cachedReply(
  cache: ReadCache | null,
  coherence: Coherence | null,
  options: ResolvedOptions,
  request: RequestLike,
  /** The namespace the request came in on: its links are in every body, so it is part of the key. */
  names: WireNames,
  read: boolean,
  principal: Principal | null,
  produce: (dependsOn: Tags | undefined) => Promise<RawResponse>,
): Promise<RawResponse> {
  // A signed-in caller may see drafts and may be allowed to edit: only callers of one reader
  // class share an entry.
  const cacheKey =
    cache && read && (!principal || cache.signedIn)
      ? cache.key(request.url, `${names.namespace}\u0000${request.headers.get('accept') ?? ''}`, readerClass(principal))
      : null
  const caughtUp = cacheKey ? coherence?.check() : undefined
  if (caughtUp) await caughtUp
  let raw = cacheKey ? cache!.get(cacheKey) : undefined
  if (!raw) {
    const since = cache?.begin()
    const dependsOn: Tags | undefined = cacheKey ? new Set() : undefined
    raw = await produce(dependsOn)
    if (read && raw.status >= 200 && raw.status < 300 && typeof raw.body === 'string') {
      // Encoded once: the ETag hashes these bytes, and the cache and the adapter send them.
      const body = encoder.encode(raw.body)
      raw.body = body
      // Known here, and kept with a cached entry: the adapter need not copy the headers to add it.
      raw.headers['Content-Length'] = String(body.byteLength)
      raw.headers.ETag = raw.validator === 'strong' ? strongEtag(body) : weakEtag(body)
      if (!principal && options.cacheControl) {
        raw.headers['Cache-Control'] = options.cacheControl
        appendVary(raw, 'Authorization')
      }
      if (cacheKey) cache!.set(cacheKey, { ...raw, body }, dependsOn, since)
    }
  }
  if (read && raw.headers.ETag && ifNoneMatchHits(request.headers.get('if-none-match'), raw.headers.ETag)) raw = notModified(raw)
  return raw
}
