/**
 * Read-your-writes across processes and replicas (docs/storage-setup.md, "Read replicas"): a
 * write's response carries `X-Calendar-Bookmark`, where its commit ended; a read that sends it
 * back, to any process, is served by a replica that has replayed past it, else by the primary.
 * Only storages with `replicaReads` (PostgreSQL) give or read bookmarks; elsewhere the header is
 * ignored, since every read already sees every commit.
 */
import { ApiError } from '../http/errors.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { ReplicaReads, Storage } from '../storage/types.js'

export const BOOKMARK_HEADER = 'X-Calendar-Bookmark'

/** The bookmark a request carries; a malformed one is refused (400) rather than guessed at. */
export function requestBookmark(replicas: ReplicaReads | undefined, request: RequestLike): string | null {
  const sent = request.headers.get(BOOKMARK_HEADER)
  if (!replicas || sent === null) return null
  const bookmark = sent.trim()
  if (!replicas.validBookmark(bookmark))
    throw new ApiError(400, 'calendar_invalid_bookmark', `${BOOKMARK_HEADER} must be a bookmark a write's response gave.`, {
      header: BOOKMARK_HEADER,
    })
  return bookmark
}

/**
 * Whether the response cache may answer or keep this request: not when it carries a bookmark.
 * The cache follows other processes' commits some milliseconds late, and the bookmark may name
 * one of those; such requests are few (a caller's reads right after its own write).
 */
export function cacheable(replicas: ReplicaReads | undefined, request: RequestLike): boolean {
  return !replicas || request.headers.get(BOOKMARK_HEADER) === null
}

/**
 * The storage a read request works on: its reads from a replica far enough for its bookmark
 * (and, when its answer is kept in the response cache, for what the cache has dropped).
 */
export function readingStorage(replicas: ReplicaReads | undefined, storage: Storage, request: RequestLike, cached: boolean): Storage {
  if (!replicas) return storage
  return replicas.reading(storage, { bookmark: requestBookmark(replicas, request), cached })
}

/** A write's response: where this process's commits stand, the write's own included. */
export function addBookmark(replicas: ReplicaReads | undefined, raw: RawResponse): void {
  const bookmark = replicas?.bookmark()
  if (bookmark) raw.headers[BOOKMARK_HEADER] = bookmark
}
