/**
 * Incremental sync of the five lists, read from the change journal, in the manner of Google
 * Calendar's sync tokens (docs/sync.md):
 *
 * - `sync_token=*` lists every record the caller may see that matches the other filters (no
 *   default date window), by id, `per_page` at a time; the last page carries a `sync_token`.
 * - `sync_token=<token>` answers what changed since: the records that changed (as the caller
 *   may see them now) and, in `deleted`, the ids of those that were deleted, trashed, became
 *   invisible to the caller or no longer match the filters.
 *
 * Tokens are opaque to clients: base64url JSON holding the journal position, a fingerprint of
 * the filters, and for a sync that spans pages, its cursor. A page's `next_rest_url` carries the
 * token of the next page, so that all pages of one sync read the same stretch of the journal and
 * a record changed while a client pages is delivered by the next sync, never lost.
 */
import { ApiError, invalidParam } from '../http/errors.js'
import { strongEtag } from '../http/etag.js'
import type { Context } from '../context.js'
import { JournalPositionError, type JournalEntry, type JournalKind } from '../storage/journal.js'
import { restUrl } from '../urls.js'
import { ok, totals, type Reply } from './respond.js'

/** A sync reading more journal entries than this answers 410: a full sync is then cheaper. */
export const MAX_SYNC_ENTRIES = 50_000

/** Journal entries read per call while collecting a sync's changes. */
const READ_BATCH = 5_000

/**
 * The ids a stretch of the journal changed, per list, filters and stretch, kept by the router
 * (`ctx.shared.syncStretches`): every page of one sync reads the same stretch (its token holds
 * where the stretch ends), so the pages after the first take the list the first one made instead
 * of reading the stretch and the related records again.
 */
const stretchesOf = (ctx: Context) => ctx.shared.syncStretches

/** Where a sync stands, inside its token. */
interface TokenState {
  v: 1
  /** The collection (`events`, ...): a token of one list is refused by another. */
  c: string
  /** Fingerprint of the other filters and the language. */
  f: string
  /** full: listing everything; next: a finished sync, its changes start at `p`; delta: paging through changes. */
  m: 'full' | 'next' | 'delta'
  /** Journal position: changes after it are (or will be) delivered by the sync that follows. */
  p: string
  /** delta: the end of the stretch of journal its pages read. */
  u?: string
  /** full and delta: the last id delivered. */
  a?: number
}

const malformed = () =>
  invalidParam('sync_token', {
    message: 'sync_token is not a token this list gave out: start again with sync_token=*.',
    code: 'rest_invalid_sync_token',
  })

const expired = () =>
  new ApiError(410, 'rest_sync_token_expired', 'The sync token is too old; start again with sync_token=* (a full sync).')

/** base64url of the JSON (ASCII only: positions, ids, a fingerprint), with btoa so every runtime has it. */
function encode(t: TokenState): string {
  return btoa(JSON.stringify(t)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function unbase64url(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw malformed()
  return atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4))
}

function decode(text: string, collection: string, fingerprint: string): TokenState | null {
  if (text === '*') return null
  let t: Partial<TokenState>
  try {
    t = JSON.parse(unbase64url(text)) as Partial<TokenState>
  } catch {
    // Not base64url JSON: the token is malformed, and that is all there is to tell the client.
    throw malformed()
  }
  const cursorOk = t.a === undefined || (Number.isSafeInteger(t.a) && t.a >= 0)
  const shapeOk =
    t !== null &&
    typeof t === 'object' &&
    t.v === 1 &&
    typeof t.p === 'string' &&
    (t.m === 'full' || t.m === 'next' || (t.m === 'delta' && typeof t.u === 'string')) &&
    cursorOk
  if (!shapeOk || t.c !== collection) throw malformed()
  if (t.f !== fingerprint) {
    throw invalidParam('sync_token', {
      message: 'The other parameters must be those of the request that gave this sync_token.',
      code: 'rest_sync_token_filters',
    })
  }
  return t as TokenState
}

/** What one list needs to be synced. */
export interface SyncSource<R extends { id: number }> {
  /** The body key and path of the list (`events`, ...). */
  collection: 'events' | 'venues' | 'organizers' | 'categories' | 'tags'
  /** Journal kinds whose entries are records of this list. */
  kinds: readonly JournalKind[]
  /** The validated parameters that select records (paging and sync_token left out). */
  filters: Record<string, unknown>
  /** Records matching the filters with ids above `afterId`, by id, up to `limit`. */
  page(afterId: number, limit: number): Promise<R[]>
  /** Those of these ids that match the filters for this caller now. */
  matching(ids: number[]): Promise<R[]>
  /** Ids of records of this list whose representation shows records these entries changed (events embed venues...). */
  related?(entries: JournalEntry[]): Promise<number[]>
  present(records: R[]): Promise<unknown[]>
}

function fingerprint(ctx: Context, source: SyncSource<{ id: number }>): string {
  const keys = Object.keys(source.filters).sort()
  const shown = keys.filter((k) => source.filters[k] !== undefined).map((k) => [k, source.filters[k]])
  return strongEtag(JSON.stringify([source.collection, ctx.language, shown])).slice(1, -1)
}

/**
 * The reply to a list request carrying `sync_token`.
 *
 * @example
 * // In a list handler, once the parameters are validated:
 * if (input.sync_token !== undefined) return syncReply(ctx, input.sync_token, perPage, source)
 */
export async function syncReply<R extends { id: number }>(
  ctx: Context,
  token: string,
  perPage: number,
  source: SyncSource<R>,
): Promise<Reply> {
  const print = fingerprint(ctx, source)
  const state = decode(token, source.collection, print)
  try {
    if (state === null || state.m === 'full') return await fullPage(ctx, source, print, perPage, state)
    return await changesPage(ctx, source, print, perPage, state)
  } catch (err) {
    if (err instanceof JournalPositionError) throw err.reason === 'expired' ? expired() : malformed()
    throw err
  }
}

/** A page of the full listing that `*` starts; the journal position is taken before the first read. */
async function fullPage<R extends { id: number }>(
  ctx: Context,
  source: SyncSource<R>,
  print: string,
  perPage: number,
  state: TokenState | null,
): Promise<Reply> {
  if (state?.p !== undefined) await readingFrom(ctx, state.p)
  const position = state?.p ?? (await ctx.storage.journalHead())
  const records = await source.page(state?.a ?? 0, perPage + 1)
  const shown = records.slice(0, perPage)
  const more = records.length > perPage
  const last = shown[shown.length - 1]
  const next: TokenState | null = more && last ? { v: 1, c: source.collection, f: print, m: 'full', p: position, a: last.id } : null
  const done: TokenState = { v: 1, c: source.collection, f: print, m: 'next', p: position }
  return envelope(ctx, source, await source.present(shown), [], next, done)
}

/** A page of what changed since the token's position. */
async function changesPage<R extends { id: number }>(
  ctx: Context,
  source: SyncSource<R>,
  print: string,
  perPage: number,
  state: TokenState,
): Promise<Reply> {
  const held = stretchesOf(ctx)
  const key = (end: string) => `${source.collection}\u0000${print}\u0000${state.p}\u0000${end}`
  let changed = state.m === 'delta' && state.u !== undefined ? held.get(key(state.u)) : undefined
  let end = state.u
  if (changed && end !== undefined) await readingFrom(ctx, end)
  if (!changed || end === undefined) {
    const read = await readChanges(ctx, state.p, state.u)
    end = read.end
    const own = new Set(source.kinds)
    const ids = new Set<number>()
    for (const e of read.entries) if (own.has(e.kind)) ids.add(e.id)
    if (source.related) for (const id of await source.related(read.entries.filter((e) => !own.has(e.kind)))) ids.add(id)
    changed = [...ids].sort((a, b) => a - b)
  }
  const after = state.m === 'delta' ? (state.a ?? 0) : 0
  const pending = changed.filter((id) => id > after)
  const pageIds = pending.slice(0, perPage)
  const found = pageIds.length ? await source.matching(pageIds) : []
  const seen = new Set(found.map((r) => r.id))
  found.sort((a, b) => a.id - b.id)
  const deleted = pageIds.filter((id) => !seen.has(id))
  const more = pending.length > perPage
  const last = pageIds[pageIds.length - 1]
  const next: TokenState | null =
    more && last !== undefined ? { v: 1, c: source.collection, f: print, m: 'delta', p: state.p, u: end, a: last } : null
  if (next) held.set(key(end), changed)
  const done: TokenState = { v: 1, c: source.collection, f: print, m: 'next', p: end }
  return envelope(ctx, source, await source.present(found), deleted, next, done)
}

/**
 * Makes the records the page reads at least as new as `position` (a later page's): records read
 * on a replica behind it would be older than what the following sync starts after, and never
 * delivered. Only a storage that reads from replicas has anything to do (Storage.readAtLeast).
 */
async function readingFrom(ctx: Context, position: string): Promise<void> {
  await ctx.storage.readAtLeast?.(position)
}

/** Every journal entry after `from` (up to `until`, for later pages of one sync), bounded. */
async function readChanges(ctx: Context, from: string, until: string | undefined): Promise<{ entries: JournalEntry[]; end: string }> {
  const entries: JournalEntry[] = []
  let at = from
  for (;;) {
    const page = await ctx.storage.readJournal(at, READ_BATCH, until)
    entries.push(...page.entries)
    at = page.next
    if (entries.length > MAX_SYNC_ENTRIES) throw expired()
    if (!page.more) return { entries, end: until ?? at }
  }
}

function envelope<R extends { id: number }>(
  ctx: Context,
  source: SyncSource<R>,
  items: unknown[],
  deleted: number[],
  next: TokenState | null,
  done: TokenState,
): Reply {
  const query = new URL(ctx.request.url).searchParams
  // restUrl adds the language back, under the request's name for it.
  const pairs = [...query].filter(([k]) => k !== 'page' && k !== 'sync_token' && k !== ctx.names.languageParam)
  const self: Array<[string, string]> = [...pairs, ['sync_token', String(query.get('sync_token') ?? '*')]]
  const body: Record<string, unknown> = { [source.collection]: items, deleted, rest_url: restUrl(ctx, `${source.collection}/`, self) }
  const headers: Record<string, string> = { ...totals(items.length + deleted.length, next ? 2 : 1) }
  if (next) body.next_rest_url = restUrl(ctx, `${source.collection}/`, [...pairs, ['sync_token', encode(next)]])
  else {
    const token = encode(done)
    body.sync_token = token
    headers['X-Sync-Token'] = token
  }
  body.total = items.length + deleted.length
  body.total_pages = next ? 2 : 1
  return ok(body, headers)
}

/**
 * The parameters a sync refuses: date filters (a sync has no date window), and filters whose
 * matches depend on other records in ways the journal cannot follow record by record.
 */
export function refuseWithSync(input: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = input[name]
    if (value === undefined || value === false) continue
    throw invalidParam(name, {
      message: `${name} cannot be combined with sync_token.`,
      code: 'rest_sync_token_conflict',
    })
  }
}
