/**
 * Where imported records remember where they came from (issue 27, docs/importing.md): one link
 * per (source, kind, source id) naming the local record, with a fingerprint of what the source
 * said last time and the values the import last wrote (so `keep-local` can tell a local edit
 * from an old import), and per source the HTTP validators of its last fetch (conditional GET).
 * An optional capability of a storage: a backend without it serves everything but the importer.
 */

/* eslint-disable @typescript-eslint/require-await -- the memory import link store implements a Promise-returning contract
   with synchronous work: `async` keeps its throws (not found, conflicts, bad input) rejections, as
   the SQL backend's are, for callers that chain `.catch` or `Promise.all` over it. */
export type ImportKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag'

export interface ImportLink {
  /** The source's name: `ics:https://example.org/cal.ics`, `tec:https://site.example`, ... */
  source: string
  kind: ImportKind
  /** The record's id at the source: iCalendar UID (+ RECURRENCE-ID), TEC global id, CSV key. */
  sourceId: string
  /** The local record (for a series: its first occurrence). */
  recordId: number
  /** A hash of what the source said at the last import: equal means nothing changed there. */
  fingerprint: string
  /** The fields the last import wrote, as the record showed them right after (write names). */
  importedFields: Record<string, unknown>
  /** UTC `YYYY-MM-DD HH:MM:SS` of the last import that wrote or confirmed this link. */
  importedAt: string
}

/** What a source's last fetch answered, for a conditional GET next time. */
export interface ImportSourceState {
  source: string
  etag: string | null
  lastModified: string | null
  /** UTC `YYYY-MM-DD HH:MM:SS` of the last fetch. */
  checkedAt: string
  /** Where an interrupted paged read goes on (the TEC source's last completed page, as JSON); null when none. */
  resume?: string | null
}

export interface ImportLinkStore {
  /** Every link of one source. */
  links(source: string): Promise<ImportLink[]>
  /** The links naming these local records (any source): what an administrator sees on a record. */
  linksOf(recordIds: readonly number[]): Promise<ImportLink[]>
  /** Inserts or replaces the link of (source, kind, sourceId). */
  putLink(link: ImportLink): Promise<void>
  /** Many `putLink`s in one write (one transaction on SQL). */
  putLinks(links: readonly ImportLink[]): Promise<void>
  removeLink(source: string, kind: ImportKind, sourceId: string): Promise<void>
  sourceState(source: string): Promise<ImportSourceState | null>
  putSourceState(state: ImportSourceState): Promise<void>
}

const key = (source: string, kind: string, sourceId: string) => JSON.stringify([source, kind, sourceId])
const copy = (l: ImportLink): ImportLink => ({ ...l, importedFields: structuredClone(l.importedFields) })

/**
 * The memory backend's links: plain maps, copied in and out so callers never share an object
 * with the store.
 *
 * @example
 * const store = new MemoryImportLinkStore()
 * await store.putLink({ source: 'ics:a.ics', kind: 'event', sourceId: 'uid-1', recordId: 7,
 *   fingerprint: 'x', importedFields: {}, importedAt: '2026-01-01 00:00:00' })
 */
export class MemoryImportLinkStore implements ImportLinkStore {
  private readonly byKey = new Map<string, ImportLink>()
  private readonly states = new Map<string, ImportSourceState>()

  async links(source: string): Promise<ImportLink[]> {
    return [...this.byKey.values()].filter((l) => l.source === source).map(copy)
  }

  async linksOf(recordIds: readonly number[]): Promise<ImportLink[]> {
    const wanted = new Set(recordIds)
    return [...this.byKey.values()].filter((l) => wanted.has(l.recordId)).map(copy)
  }

  async putLink(link: ImportLink): Promise<void> {
    this.keep(link)
  }

  /** Stores a link at once: the memory storage's commit of a transaction's `putImportLink`. */
  keep(link: ImportLink): void {
    this.byKey.set(key(link.source, link.kind, link.sourceId), copy(link))
  }

  async putLinks(links: readonly ImportLink[]): Promise<void> {
    for (const l of links) await this.putLink(l)
  }

  async removeLink(source: string, kind: ImportKind, sourceId: string): Promise<void> {
    this.byKey.delete(key(source, kind, sourceId))
  }

  async sourceState(source: string): Promise<ImportSourceState | null> {
    const s = this.states.get(source)
    return s ? { ...s } : null
  }

  async putSourceState(state: ImportSourceState): Promise<void> {
    this.states.set(state.source, { ...state })
  }
}
