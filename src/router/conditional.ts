/**
 * Conditional writes and record validators. A write naming a record with `If-Match` is checked
 * inside the transaction that makes it: before the handler's first write, the record is read in
 * that transaction and its strong ETag compared (a mismatch throws, so nothing is written and
 * nothing half-written stays). Write replies then carry the record's ETag as it now stands, so a
 * client can chain conditional writes without reading again.
 */
import { ApiError } from '../http/errors.js'
import { ifMatchHolds } from '../http/etag.js'
import { RawJson } from '../http/raw-json.js'
import type { Context } from '../context.js'
import { tagOf, type RecordAt } from '../resources/record-tag.js'
import type { Reply } from '../resources/respond.js'
import type { RouteDef } from '../routes.js'
import { storageInTransaction } from '../storage/open-transaction.js'
import { overlay } from '../storage/overlay.js'
import type { Storage, StorageTx } from '../storage/types.js'
import type { Params } from '../http/params.js'

type Single = NonNullable<RouteDef['single']>

/** The strong ETag of a record as the caller reads it, null when there is none. */
const tagWith = async (single: Single, ctx: Context, at: RecordAt) => {
  const found = await single(ctx, at)
  return found ? tagOf(found.body) : null
}

const preconditionFailed = () =>
  new ApiError(
    412,
    'rest_precondition_failed',
    'The record does not match the ETag given in If-Match (it changed since it was read, or the tag is not one of its own); nothing was written.',
  )

/** The record a route's path names, if it names one. */
export function recordAt(path: Params): RecordAt | null {
  if (typeof path.id === 'string' && /^\d+$/.test(path.id)) return { id: Number(path.id) }
  if (typeof path.slug === 'string') return { slug: path.slug }
  return null
}

/**
 * Makes `ctx.storage` check `If-Match` at the start of the handler's first transaction (each
 * attempt of it, should the backend run it again). Returns what to call once the handler is
 * done: a handler that wrote nothing is checked there, against the committed record.
 */
export function guardIfMatch(ctx: Context, single: Single, at: RecordAt, header: string): () => Promise<void> {
  const storage = ctx.storage
  let first = true
  let checked = false
  const check = async (reader: Storage) => {
    if (!ifMatchHolds(header, await tagWith(single, { ...ctx, storage: reader }, at))) throw preconditionFailed()
    checked = true
  }
  ctx.storage = overlay(storage, {
    transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: Parameters<Storage['transaction']>[1]): Promise<T> {
      if (!first) return storage.transaction(fn, options)
      first = false
      return storage.transaction(async (tx) => {
        // The record as a read would render it, seen from inside the transaction (its import
        // links too: an administrator's tag includes `import_source`).
        await check(storageInTransaction(storage, { tx, failure: null }))
        return fn(tx)
      }, options)
    },
  })
  return async () => {
    if (!checked) await check(storage)
  }
}

/** The id of the record a write reply holds (every record representation starts with its id). */
function replyId(body: unknown): number | null {
  if (body instanceof RawJson) {
    const m = /^\{"id":(\d+)[,}]/.exec(body.text)
    return m ? Number(m[1]) : null
  }
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined
  return typeof id === 'number' ? id : null
}

/**
 * The ETag header of a write reply: the record's as it now stands (none once it is gone), from
 * the single read the resource rendered with its reply, else read again.
 */
export async function writtenTag(ctx: Context, single: Single, at: RecordAt | null, reply: Reply): Promise<Record<string, string>> {
  if (reply.single !== undefined) return { ETag: tagOf(reply.single) }
  const id = at && 'id' in at ? at.id : replyId(reply.body)
  const current = id === null ? null : await tagWith(single, ctx, { id })
  return current ? { ETag: current } : {}
}
