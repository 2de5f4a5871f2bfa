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
import type { StorageHook, TransactionHook } from '../storage/pipeline.js'
import type { Storage } from '../storage/types.js'
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

/** The `If-Match` check of one request: a storage hook, and what to call once the handler is done. */
export interface IfMatchGuard {
  readonly hook: StorageHook
  /** The request's context, once built (it holds the storage the hook is part of). */
  bind(ctx: Context): void
  /** A handler that wrote nothing is checked here, against the committed record. */
  finish(): Promise<void>
}

/**
 * Checks `If-Match` at the start of the handler's first transaction (each attempt of it, should
 * the backend run it again), on the record as a read would render it from inside that
 * transaction (its import links too: an administrator's tag includes `import_source`).
 */
export function ifMatchGuard(single: Single, at: RecordAt, header: string): IfMatchGuard {
  let ctx: Context | null = null
  let first = true
  let checked = false
  const check = async (reader: Storage) => {
    if (!ctx) throw new Error('calendar-events-router: the If-Match guard runs before its request has a context')
    if (!ifMatchHolds(header, await tagWith(single, { ...ctx, storage: reader }, at))) throw preconditionFailed()
    checked = true
  }
  const scope: TransactionHook = { begin: (inside) => check(inside()) }
  return {
    hook: {
      transaction() {
        if (!first) return undefined
        first = false
        return scope
      },
    },
    bind(c) {
      ctx = c
    },
    async finish() {
      if (!checked && ctx) await check(ctx.storage)
    },
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
