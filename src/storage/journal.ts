/**
 * The change journal: one entry per record a committed transaction changed, written by the
 * backend in that same transaction (cascades included), read back in an order no reader can
 * skip past. Sync tokens, `onChange`, other processes' cache invalidation and webhooks are all
 * readings of it (docs/architecture.md §5).
 */
/** What an entry is about: a post's type or a term's taxonomy (types.ts's PostType | Taxonomy, which imports this module). */
export type JournalKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag'

/**
 * `create`, `update`, `trash` (moved into the trash: a deletion to most readers, reversible) or
 * `delete` (gone for good). Restoring from the trash is an `update`. `count`: a term's live count
 * moved (an event was published, unpublished, trashed or moved between terms), the term itself
 * unchanged: its own representation changed, not that of the events showing it.
 */
export type JournalAction = 'create' | 'update' | 'trash' | 'delete' | 'count'

export interface JournalEntry {
  /**
   * Where the entry sits, as the backend spells it: pass it back to `readJournal` to read what
   * came after. Opaque; only the backend that wrote it compares positions.
   */
  position: string
  kind: JournalKind
  id: number
  action: JournalAction
  /** The record's revision after the change (before it, for a `delete`). */
  revision: number
  language: string
  /** When the transaction wrote it, UTC `YYYY-MM-DD HH:MM:SS`. */
  time: string
}

/**
 * The resource name a calendar app gave an event (its `caldav_name` custom value), as the
 * journal's entries of the event recorded it: a CalDAV sync names a removed event by the href
 * the app knows even once the event and its fields are gone, in any process
 * (JournalCapability.journalNames).
 */
export interface JournalName {
  id: number
  /** The name of the event's latest entry that had one. */
  name: string
  /**
   * Whether an entry shows the event published before its change (or created published): only
   * then may a caller who sees published events alone be told the name.
   */
  published: boolean
}

export interface JournalPage {
  entries: JournalEntry[]
  /** Where the next read starts: the last entry's position, or `after` when there was none. */
  next: string
  /** True when the read stopped at `limit` and more entries may follow at once. */
  more: boolean
}

/** Raised by `readJournal` for a position the journal no longer covers (compacted) or never wrote. */
export class JournalPositionError extends Error {
  constructor(
    public readonly position: string,
    public readonly reason: 'expired' | 'malformed',
  ) {
    super(reason === 'expired' ? `the journal no longer covers position ${position}` : `not a journal position: ${position}`)
    this.name = 'JournalPositionError'
  }
}

/** The journal's clock: now, as UTC `YYYY-MM-DD HH:MM:SS` (the real time, whatever clock a router is given). */
export const journalTime = (at = new Date()): string => at.toISOString().slice(0, 19).replace('T', ' ')

/** What a committed transaction changed, handed to `transaction`'s `onCommit`. */
export type CommitReport = (entries: JournalEntry[]) => void

/**
 * One entry per record out of the entries a transaction wrote, in the order the records were
 * first written: a record created is a `create` however often it changed after (nothing at all
 * when it was also deleted), one deleted a `delete`, otherwise its last `trash` or `update`
 * entry stands, at the revision it ended with.
 */
export function collapseEntries(entries: readonly JournalEntry[]): JournalEntry[] {
  const firstAt = new Map<string, JournalEntry>()
  const last = new Map<string, JournalEntry>()
  for (const e of entries) {
    const key = `${e.kind}:${e.id}`
    if (!firstAt.has(key)) firstAt.set(key, e)
    last.set(key, e)
  }
  // A record both changed and counted is changed: the stronger action stands, at the last revision.
  const changed = new Map<string, JournalEntry['action']>()
  for (const e of entries) if (e.action === 'update' || e.action === 'trash') changed.set(`${e.kind}:${e.id}`, e.action)
  const out: JournalEntry[] = []
  for (const [key, first] of firstAt) {
    const e = last.get(key) as JournalEntry
    const strongest = e.action === 'count' ? changed.get(key) : undefined
    if (first.action !== 'create') out.push(strongest ? { ...e, action: strongest } : e)
    else if (e.action !== 'delete') out.push(e.action === 'create' ? e : { ...e, action: 'create' })
  }
  return out
}
