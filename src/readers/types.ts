/** What the importer's sources hand to its core, and what an import answers (docs/importing.md). */
import type { ImportKind } from '../storage/import-links.js'

export type { ImportKind }

/** How a re-run treats a record it imported before whose source changed. */
export type Authority = 'overwrite' | 'keep-local' | 'skip'

/**
 * One record as a source read it: the body of a write of our API (wire names), with references
 * to other records of the same source by their source ids, resolved to local ids by the core.
 */
export interface SourceRecord {
  kind: ImportKind
  /** The record's id at the source (iCalendar UID, TEC global id, CSV key...). */
  sourceId: string
  /** How reports name it: `UID abc@example.org`, `row 7`, `event 12`. */
  ref: string
  /** The write's body; absent when `error` says why the record could not be read. */
  body?: Record<string, unknown>
  /** Other records of this source this one links to, by source id (resolved into `body`). */
  refs?: { venue?: string[]; organizer?: string[]; categories?: string[]; tags?: string[]; parent?: string }
  /**
   * A detached occurrence of a series of this source: the series' source id and the occurrence's
   * start as the rule made it (or, when the source shows only its place in the series, `position`).
   */
  occurrenceOf?: { sourceId: string; original: string; position?: number }
  /** The series as single events, when the API refuses its rule (outside our subset). */
  expand?: () => SourceRecord[]
  /** The source could not read this record: reported as failed, the others go on. */
  error?: string
  /** Reported beside the counts (a rule expanded, a reference dropped...). */
  warnings?: string[]
}

/** What a source reads: its records in an order where referenced records come first. */
export interface SourceRead {
  records: AsyncIterable<SourceRecord> | Iterable<SourceRecord>
  /**
   * False when the source could not be read to its end (a page failed): records missing from it
   * are then not trashed by `deleteMissing`.
   */
  complete(): boolean
  /** The source answered 304 Not Modified: nothing to do. */
  notModified?: boolean
  /**
   * Called whenever every record the core has taken so far is written (committed, or reported
   * as failed). The core takes records ahead of writing them (a group per transaction), so a
   * source that keeps a resume point saves it here, never when the next record is asked for.
   */
  written?(): Promise<void>
  /** What the source noticed beyond its records (a listing that repeats, a link not followed): reported once the run ends. */
  warnings?(): string[]
  /** Called once every record was written: remember the source's validators (ETag...). */
  commit?(): Promise<void>
}

export interface ImportFailure {
  /** The record (`row 7`, `UID x`), or `source` when the source itself could not be read. */
  ref: string
  reason: string
}

export interface KindCounts {
  created: number
  updated: number
  unchanged: number
  skipped: number
  trashed: number
}

export interface ImportSummary {
  source: string
  created: number
  updated: number
  unchanged: number
  skipped: number
  /** Records trashed because they vanished from the source (`deleteMissing`). */
  trashed: number
  failed: ImportFailure[]
  /** Not failures: rules expanded into single events, references dropped, overrides without their series. */
  warnings: ImportFailure[]
  /** The same counts for each kind of record apart (events, venues, organizers, categories, tags). */
  kinds: Partial<Record<ImportKind, KindCounts>>
  /** The source answered 304 (conditional GET): nothing was read or written. */
  notModified: boolean
  dryRun: boolean
}
