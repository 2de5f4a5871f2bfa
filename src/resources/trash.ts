/**
 * The trash, shared by events, venues and organizers: moving a record there (DELETE, or an
 * update to `status: "trash"`), restoring it (an update to another status), deleting it for
 * good (`force=true`) and emptying the trash of old records.
 */
import type { Context } from '../context.js'
import type { PostPatch, PostRecord, PostType, Storage, StorageTx } from '../storage/types.js'
import { withFreeSlug } from './slug.js'

/** WordPress's suffix for trashed slugs: the old slug is free for new records meanwhile. */
const SUFFIX = '__trashed'
const TRASHED = /__trashed(?:-\d+)?$/

/**
 * Writes `patch` to a post and what a move to or from the trash implies: the slug gets (or
 * loses) the `__trashed` suffix, a trashed venue or organizer leaves every event, and a
 * restored record rejoins its translation group unless its language was taken meanwhile.
 * `requestedSlug` is a slug the caller asked for (already sanitized).
 */
export async function writePost<R extends PostRecord>(
  tx: StorageTx,
  current: R,
  patch: PostPatch<R['type']>,
  requestedSlug?: string,
): Promise<R> {
  const type: PostType = current.type
  const after = patch.status ?? current.status
  const trashing = after === 'trash' && current.status !== 'trash'
  const restoring = current.status === 'trash' && after !== 'trash'
  let base: string
  if (requestedSlug !== undefined) base = after === 'trash' ? `${requestedSlug}${SUFFIX}` : requestedSlug
  else if (trashing) base = `${current.slug}${SUFFIX}`
  else if (restoring) base = current.slug.replace(TRASHED, '') || type
  else base = current.slug

  // Trashing unlinks, as TEC deletes the link meta; restoring does not bring the links back.
  if (trashing && type !== 'event') await tx.unlinkPost(current.id)
  const next: PostPatch = { ...patch }
  if (restoring) {
    const group = (await tx.getTranslations([current.translationGroup], 'posts')).get(current.translationGroup) ?? {}
    const holder = group[current.language]
    if (holder !== undefined && holder !== current.id) next.translationGroup = current.id
  }
  // updatePost answers the record of `type`, which is R's: TS cannot narrow R from `current.type`.
  const write = (slug?: string) => tx.updatePost(current.id, type, slug === undefined ? next : { ...next, slug }) as Promise<R>
  if (base === current.slug) return write()
  return withFreeSlug(tx, type, current.language, base, write)
}

/** Moves a live post to the trash, exactly as DELETE without `force` does. */
export function moveToTrash<R extends PostRecord>(ctx: Context, tx: StorageTx, current: R): Promise<R> {
  // A patch of fields every post type has; TS cannot see that it fits PostPatch of a generic type.
  return writePost(tx, current, { status: 'trash', modified: ctx.nowLocal, modifiedUtc: ctx.nowUtc } as PostPatch<R['type']>)
}

/**
 * Deletes a post for good; answers the record as it was, or null when it vanished meanwhile
 * (a concurrent delete), which the caller reports as not found.
 */
export function deleteForGood(ctx: Context, id: number): Promise<PostRecord | null> {
  return ctx.storage.transaction(async (tx) => {
    const rec = await tx.getPost(id)
    if (rec) await tx.deletePost(id)
    return rec
  })
}

/**
 * Deletes every trashed post last modified before `beforeUtc`, in batches of one transaction
 * each (a large trash never holds one long write lock). Returns how many were deleted.
 */
export async function emptyTrash(storage: Storage, beforeUtc: string, batch = 100): Promise<number> {
  let total = 0
  for (;;) {
    const ids = await storage.trashedPosts(beforeUtc, batch)
    if (!ids.length) return total
    const deleted = await storage.transaction(async (tx) => {
      let n = 0
      for (const id of ids) {
        // Re-checked inside the transaction: a record restored or edited meanwhile stays.
        const rec = await tx.getPost(id)
        if (!rec || rec.status !== 'trash' || !(rec.modifiedUtc < beforeUtc)) continue
        await tx.deletePost(id)
        n++
      }
      return n
    })
    total += deleted
    // Nothing of a batch deleted (all restored meanwhile, or a backend listing what it then
    // keeps): stop rather than risk looping; the next run picks up anything left.
    if (deleted === 0) return total
  }
}
