/**
 * The router's door for host-side jobs that write through the API itself as a caller the host
 * names (the importer, src/import/): the request takes the whole path of any other request
 * (validation, the HTML filter of that caller's role, transactions, the change journal, the
 * response cache's invalidation, webhooks) but skips the host's `authenticate` hook, which knows
 * nothing of such jobs. Only code holding the router object can use it: no HTTP request can.
 *
 * Such a job may also hand an `inTransaction` hook: it runs at the end of each transaction the
 * request's write makes, in that transaction, with the records it wrote, so what the job keeps
 * beside a record (the importer's link) commits or rolls back with it.
 */
import type { Principal } from './auth/principal.js'
import type { RawResponse, RequestLike } from './http/types.js'
import type { OpenTransaction } from './storage/open-transaction.js'
import type { InTransaction } from './storage/pipeline.js'
import type { Storage } from './storage/types.js'

export type { InTransaction, WrittenRecord } from './storage/pipeline.js'

export const HOST_REQUEST: unique symbol = Symbol('calendar-events-router host request')

/** Sends one host request as `principal`; `inTransaction` as for the door itself. */
export type HostSend = (request: RequestLike, principal: Principal, inTransaction?: InTransaction) => Promise<RawResponse>

/** How a batch ended: committed with what its function returned, or rolled back as a whole. */
export type BatchOutcome<T> = { committed: true; result: T } | { committed: false }

/**
 * `storage` is the router's storage, for what such a job keeps beside the records (the
 * importer's links).
 *
 * `batch(fn)` runs several host requests in ONE transaction of the router's storage (group
 * commit): `fn` gets a `send` whose requests see the transaction's uncommitted writes and whose
 * own transactions run inside it, and `failed()`, true once a write of one of them threw (its
 * request answered its error; nothing later may be written: `send` then throws
 * TransactionFailedError). When `fn` returns, a failed batch is rolled back as a whole and
 * answers `{ committed: false }`; otherwise it commits, and the change journal's readers (sync,
 * webhooks, `onChange`, the response cache) hear of every record at that one commit. The storage
 * may run `fn` again from the start (PostgreSQL serialization failures), so `fn` must begin each
 * run from the same state. Send one request at a time; their answers skip the response and
 * fragment caches (they show what is not committed yet). Never await anything that writes
 * through the storage by another way (an ImportLinkStore) inside `fn`: it waits for this
 * transaction, which waits for `fn`.
 *
 * @example
 * const raw = await router[HOST_REQUEST](request, { id: 1, role: 'administrator' }, async (tx, written) => {
 *   await tx.putImportLink?.({ ...link, recordId: written[0]!.id })
 * })
 * const outcome = await router[HOST_REQUEST].batch(async (send, failed) => {
 *   for (const r of requests) if (!failed()) await send(r, { id: 1, role: 'administrator' })
 * })
 * if (!outcome.committed) console.log('one of them failed: none was written')
 */
export type HostRequest = HostSend & {
  readonly storage: Storage
  batch<T>(fn: (send: HostSend, failed: () => boolean) => Promise<T>): Promise<BatchOutcome<T>>
}

/**
 * What a host request brings beside the request itself, handed down the router with it (never
 * kept anywhere keyed by the request): who calls, the job's hook, and the batch's open
 * transaction it runs in (storage/open-transaction.ts), if any.
 */
export interface HostCall {
  principal: Principal
  inTransaction: InTransaction | null
  batch: OpenTransaction | null
}
