/**
 * Who the caller is and what that allows, following WordPress's default roles as TEC maps them
 * to events, venues, organizers and terms.
 */
import type { PostRecord, PostStatus, PostType, Taxonomy } from '../storage/types.js'

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const
export type Role = (typeof ROLES)[number]

export interface Principal {
  id: number
  role: Role
}

const RANK: Record<Role, number> = { subscriber: 0, contributor: 1, author: 2, editor: 3, administrator: 4 }
const atLeast = (p: Principal | null, role: Role) => p !== null && RANK[p.role] >= RANK[role]

/** edit_posts: may create records and sees every non-trashed status in lists. */
export const canEditPosts = (p: Principal | null) => atLeast(p, 'contributor')
/** publish_posts: creates get the requested status rather than being scaled back to pending. */
export const canPublish = (p: Principal | null) => atLeast(p, 'author')
/** edit_others_posts / read_private_posts. */
export const canEditOthers = (p: Principal | null) => atLeast(p, 'editor')

/** read_post on one record. */
export function canRead(p: Principal | null, post: PostRecord): boolean {
  if (post.status === 'publish') return true
  if (!p) return false
  if (canEditOthers(p)) return true
  if (post.author !== p.id) return false
  // Own records: contributors read their unpublished work, authors everything of theirs.
  return canEditPosts(p)
}

/** edit_post / delete_post on one record. */
export function canModify(p: Principal | null, post: PostRecord): boolean {
  if (!p || !canEditPosts(p)) return false
  if (canEditOthers(p)) return true
  if (post.author !== p.id) return false
  if (canPublish(p)) return true
  // Contributors lose control of a record once it is published or scheduled.
  return post.status !== 'publish' && post.status !== 'future' && post.status !== 'private'
}

/**
 * Callers every read answers alike: what a read shows and allows depends on the role, and below
 * editor also on who the caller is (own drafts, own records to modify). Editors and
 * administrators see and may modify everything, so each role is one class; anyone else is a
 * class of one. The response cache keys signed-in reads by this, never by less.
 */
export const readerClass = (p: Principal | null): string => (p === null ? '' : canEditOthers(p) ? p.role : `${p.role}#${p.id}`)

/** unfiltered_html: text is stored as given rather than through the HTML allow-list. */
export const canUnfilteredHtml = (p: Principal | null) => atLeast(p, 'editor')

/** Creating, editing and deleting terms: authors manage categories, editors manage tags too. */
export const canManageTerms = (p: Principal | null, taxonomy: Taxonomy) => atLeast(p, taxonomy === 'category' ? 'author' : 'editor')

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value)

/** Status a create/update really gets: non-publishers asking for publish/future get pending. */
export function scaleBackStatus(p: Principal | null, requested: PostStatus | undefined, _type: PostType): PostStatus {
  if (canPublish(p)) return requested ?? 'publish'
  if (requested === 'publish' || requested === 'future') return 'pending'
  if (requested === 'private') return 'pending'
  return requested ?? 'draft'
}
