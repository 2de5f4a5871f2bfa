/**
 * The response cache's tags: short strings naming what a cached response read and what a write
 * changed (dependencies.ts), typed so that each kind of tag is built in one place and a tag
 * spelled by hand at a call site does not compile.
 *
 * - `p{id}` a post, `t{id}` a term;
 * - `g{group}` / `G{group}` a post's / a term's translation group (they number their groups
 *   apart: storage/types.ts, TranslationKind);
 * - `s{id}` the members of the series whose first occurrence is `id`;
 * - `L:{kind}` every list of records of that kind, `L:{kind}@{other}` the lists of that kind whose
 *   membership also depends on records of another kind: `event` (venues or organizers with
 *   (upcoming) events, non-empty or count-ordered terms), `linked` (events searched or filtered
 *   by venue or organizer), `term` (events searched or filtered by category or tag);
 * - `S:{words}` an event search for those words (as JSON), which an edit of an event's searched
 *   text is tested against instead of dropping every search.
 */
import type { PostType, Taxonomy, TranslationKind } from '../storage/types.js'

/** The kinds of records lists are made of. */
export type RecordKind = PostType | Taxonomy

/**
 * What else a list's membership can depend on (see above); `journal`: a sync answer, which
 * reads the change journal, and so depends on every write of the kind (a shown-only edit too).
 */
export type ListDependency = 'event' | 'linked' | 'term' | 'journal'

export type SearchTag = `S:${string}`

export type Tag =
  | `p${number}`
  | `t${number}`
  | `g${number}`
  | `G${number}`
  | `s${number}`
  | `L:${RecordKind}`
  | `L:${RecordKind}@${ListDependency}`
  | SearchTag

export type Tags = Set<Tag>

export const postTag = (id: number): Tag => `p${id}`

export const termTag = (id: number): Tag => `t${id}`

const isTermKind = (kind: RecordKind): kind is Taxonomy => kind === 'category' || kind === 'tag'

/** A record's own tag, a post's or a term's as its kind says. */
export const recordTag = (kind: RecordKind, id: number): Tag => (isTermKind(kind) ? termTag(id) : postTag(id))

export const groupTag = (of: TranslationKind, group: number): Tag => (of === 'posts' ? `g${group}` : `G${group}`)

export const seriesTag = (first: number): Tag => `s${first}`

/** Every list of `kind`, or with `dependency` the lists of it whose membership also depends on that. */
export const listTag = (kind: RecordKind, dependency?: ListDependency): Tag =>
  dependency === undefined ? `L:${kind}` : `L:${kind}@${dependency}`

/** An event search, by its words (storage/search-fields.ts: searchWords). */
export const searchTag = (words: readonly string[]): SearchTag => `S:${JSON.stringify(words)}`

export const isSearchTag = (tag: Tag): tag is SearchTag => tag.startsWith('S:')

/** The words of an event search's tag. */
export const searchTagWords = (tag: SearchTag): string[] => JSON.parse(tag.slice(2)) as string[]
