/**
 * A record as its single read answers a caller, and its strong ETag: the hash of those exact
 * bytes. The router gives the tag to single reads, to write replies (the record as it now
 * stands) and compares If-Match with it inside the write's transaction (src/router/conditional.ts);
 * webhook payloads carry the body (src/webhooks/).
 */
import { strongEtag } from '../http/etag.js'
import { serializeJson } from '../http/raw-json.js'

/** Which record a route names: by id, or by slug in the request's language. */
export type RecordAt = { id: number } | { slug: string }

/** A record as its single read answers a caller: the body, and the revision it was built from. */
export interface Single {
  body: unknown
  revision: number
}

/** The tag of a representation a resource built (a single read's body). */
export const tagOf = (body: unknown): string => strongEtag(serializeJson(body))
