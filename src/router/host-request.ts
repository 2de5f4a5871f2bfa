/**
 * The router's door for host-side jobs that write through the API itself as a caller the host
 * names (the importer, src/import/): the request takes the whole path of any other request
 * (validation, the HTML filter of that caller's role, transactions, the change journal, the
 * response cache's invalidation, webhooks) but skips the host's `authenticate` hook, which knows
 * nothing of such jobs. Only code holding the router object can use it: no HTTP request can.
 */
import type { Principal } from '../auth/principal.js'
import type { RawResponse, RequestLike } from '../http/types.js'
import type { Storage } from '../storage/types.js'

export const HOST_REQUEST: unique symbol = Symbol('calendar-events-router host request')

/**
 * `storage` is the router's storage, for what such a job keeps beside the records (the
 * importer's links).
 *
 * @example
 * const raw = await router[HOST_REQUEST](request, { id: 1, role: 'administrator' })
 */
export type HostRequest = ((request: RequestLike, principal: Principal) => Promise<RawResponse>) & { readonly storage: Storage }
