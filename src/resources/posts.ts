/**
 * Rules every post resource (events, venues, organizers) applies on its way to storage: whose
 * unpublished records a caller lists, whom a write may name as author, and which translation
 * group a new record joins.
 */
import { canEditOthers, canModify, canRead } from '../auth/principal.js'
import { ApiError, invalidParam } from '../http/errors.js'
import type { PostRecord, StorageTx } from '../storage/types.js'
import type { Context } from '../context.js'

/** Contributors and authors list others' records only once published (docs/wire-compatibility.md §5.11). */
export function ownDraftsOnly(ctx: Pick<Context, 'principal'>): { unpublishedAuthor?: number } {
  return ctx.principal && !canEditOthers(ctx.principal) ? { unpublishedAuthor: ctx.principal.id } : {}
}

/**
 * The author a write asks for: oneself by default. With the `users` option it must name a user
 * (400 naming `author`, as the reference answers for unknown users); someone else needs the
 * capability to edit others' records (403).
 */
export async function authorFor(ctx: Context, requested: number | undefined): Promise<number> {
  const self = ctx.principal?.id ?? 0
  if (requested === undefined || requested === self) return self
  const users = ctx.options.users
  if (users && !(await users.exists(requested))) throw invalidParam('author')
  if (!canEditOthers(ctx.principal)) {
    throw new ApiError(403, 'rest_cannot_edit_others', 'Sorry, you are not allowed to create or update records as this user.')
  }
  return requested
}

/**
 * The translation group a new record joins: the target's, if that language is still free.
 * Taking a language slot of a record is an edit of that record (as WordPress's multilingual
 * plugins have it): a caller who may read the source but not edit it gets a 403, one who may not
 * even read it the same 400 as for a record that does not exist.
 */
export async function translationGroup(
  ctx: Context,
  tx: StorageTx,
  of: number | undefined,
  type: 'event' | 'venue' | 'organizer' = 'event',
) {
  if (of === undefined) return undefined
  const target = await tx.getPost(of)
  if (!target || target.type !== type || target.status === 'trash' || !canRead(ctx.principal, target)) throw invalidParam('translation_of')
  if (!canModify(ctx.principal, target)) {
    throw new ApiError(403, 'rest_cannot_edit', 'Sorry, you are not allowed to add a translation of this record.')
  }
  const group = (await tx.getTranslations([target.translationGroup], 'posts')).get(target.translationGroup) ?? {}
  if (group[ctx.language] !== undefined) {
    throw invalidParam('translation_of', { message: `A ${ctx.language} translation of ${of} already exists.`, code: 'translation_exists' })
  }
  return target.translationGroup
}

const same = (a: unknown, b: unknown) =>
  a === b || (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b))

/**
 * Whether a patch changes anything of the record but its modification time: an update whose
 * fields all equal the record's (a read sent back unchanged) writes nothing.
 */
export function patchChanges(current: PostRecord, patch: object): boolean {
  const record = current as unknown as Record<string, unknown>
  return Object.entries(patch).some(([k, v]) => {
    if (v === undefined || k === 'modified' || k === 'modifiedUtc') return false
    // Terms are shown sorted by name whatever order they were given in: a set, not a list.
    if (UNORDERED.has(k)) return !same(sorted(record[k]), sorted(v))
    return !same(record[k], v)
  })
}

const UNORDERED = new Set(['categoryIds', 'tagIds'])
const sorted = (ids: unknown) => (Array.isArray(ids) ? [...(ids as number[])].sort((a, b) => a - b) : ids)
