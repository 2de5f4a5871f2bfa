/**
 * Every thrown error leaves as a JSON error: an ApiError as itself, a storage outage as a 503
 * with Retry-After, anything else as a 500 that `onError` hears about.
 */
import { ApiError, internalError, storageUnavailable } from '../http/errors.js'
import { errorResponse, type ResponseMeta } from '../http/response.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { ResolvedOptions } from '../options.js'
import { StorageUnavailableError } from '../storage/types.js'

/** Retry-After of a 503: long enough for a database failover or a lock to clear, short for a person. */
const RETRY_AFTER_SECONDS = 5

const isNamed = (e: unknown, name: string) => e instanceof Error && e.name === name && 'status' in e === (name === 'ApiError')

export function failureResponse(options: ResolvedOptions, error: unknown, request: RequestLike, meta: ResponseMeta): RawResponse {
  // By name as well: an app mixing the ESM and CJS builds holds two copies of each class.
  if (error instanceof ApiError || isNamed(error, 'ApiError')) return errorResponse(error as ApiError, meta)
  options.onError?.(error, request)
  const unavailable = error instanceof StorageUnavailableError || isNamed(error, 'StorageUnavailableError')
  if (!unavailable) return errorResponse(internalError(), meta)
  const raw = errorResponse(storageUnavailable(), meta)
  // An outage is temporary by nature: tell clients (and proxies) when trying again makes sense.
  raw.headers['Retry-After'] = String(RETRY_AFTER_SECONDS)
  return raw
}
