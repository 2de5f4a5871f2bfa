/**
 * A record's strong ETag: the hash of the exact bytes its single read answers this caller. The
 * router gives it to single reads, to write replies (the record as it now stands) and compares
 * If-Match with it inside the write's transaction (src/router/conditional.ts).
 */
import { strongEtag } from '../http/etag.js'
import { serializeJson } from '../http/raw-json.js'

/** Which record a route names: by id, or by slug in the request's language. */
export type RecordAt = { id: number } | { slug: string }

/** The tag of a representation a resource built (a single read's body). */
export const tagOf = (body: unknown): string => strongEtag(serializeJson(body))
