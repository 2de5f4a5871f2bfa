/**
 * The importer's links on SQL (storage/import-links.ts, migration 22): `import_links`, one row
 * per imported record and source, and `import_sources`, the HTTP validators of each source's last
 * fetch. Each write is one transaction of the storage (queued and retried like every write).
 */
import type { ImportKind, ImportLink, ImportLinkStore, ImportSourceState } from '../import-links.js'
import type { MigrationStatement } from './dialect.js'
import type { Db } from './db.js'
import { toInt, type Row } from './records.js'
import { columnText } from './driver.js'

/** Migration 22. The record id carries no foreign key: a record deleted for good leaves a stale link the importer recreates. */
export const IMPORT_LINKS_DDL: MigrationStatement[] = [
  `CREATE TABLE IF NOT EXISTS import_links (
    source {text} NOT NULL, kind {text} NOT NULL, source_id {text} NOT NULL, record_id {int} NOT NULL,
    fingerprint {text} NOT NULL, imported_fields {text} NOT NULL, imported_at {text} NOT NULL,
    PRIMARY KEY (source, kind, source_id))`,
  `CREATE INDEX IF NOT EXISTS import_links_record ON import_links (record_id)`,
  `CREATE TABLE IF NOT EXISTS import_sources (
    source {text} PRIMARY KEY, etag {text}, last_modified {text}, checked_at {text} NOT NULL)`,
]

/** Migration 23: where an interrupted paged source (TEC) goes on. */
export const IMPORT_RESUME_DDL: MigrationStatement[] = [`ALTER TABLE import_sources ADD COLUMN resume {text}`]

const COLUMNS = 'source, kind, source_id, record_id, fingerprint, imported_fields, imported_at'
const text = (v: unknown) => (v === null || v === undefined ? null : columnText(v))

function linkOf(r: Row): ImportLink {
  return {
    source: String(r.source),
    kind: String(r.kind) as ImportKind,
    sourceId: String(r.source_id),
    recordId: toInt(r.record_id),
    fingerprint: String(r.fingerprint),
    importedFields: JSON.parse(String(r.imported_fields)) as Record<string, unknown>,
    importedAt: String(r.imported_at),
  }
}

/** One link, inserted or replaced, in whatever transaction `db` is (the record's own, or the store's). */
export async function upsertImportLink(db: Db, l: ImportLink): Promise<void> {
  await db.run(
    `INSERT INTO import_links (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (source, kind, source_id) DO UPDATE SET record_id = excluded.record_id,
       fingerprint = excluded.fingerprint, imported_fields = excluded.imported_fields, imported_at = excluded.imported_at`,
    [l.source, l.kind, l.sourceId, l.recordId, l.fingerprint, JSON.stringify(l.importedFields), l.importedAt],
  )
}

/** The links naming these records, in whatever transaction `db` is (a write's own, or a read's). */
export async function selectLinksOf(db: Db, recordIds: readonly number[]): Promise<ImportLink[]> {
  if (!recordIds.length) return []
  const rows = await db.query(`SELECT ${COLUMNS} FROM import_links WHERE ${db.dialect.inList('record_id', 'int')}`, [
    db.dialect.list(recordIds),
  ])
  return rows.map(linkOf)
}

export class SqlImportLinkStore implements ImportLinkStore {
  constructor(
    /** A read outside any transaction. */
    private readonly read: <T>(fn: (db: Db) => Promise<T>) => Promise<T>,
    /** A write transaction of the storage (queued, retried). */
    private readonly write: <T>(fn: (db: Db) => Promise<T>) => Promise<T>,
  ) {}

  links(source: string) {
    return this.read(async (db) => (await db.query(`SELECT ${COLUMNS} FROM import_links WHERE source = ?`, [source])).map(linkOf))
  }

  linksOf(recordIds: readonly number[]) {
    if (!recordIds.length) return Promise.resolve([])
    return this.read((db) => selectLinksOf(db, recordIds))
  }

  putLink(l: ImportLink) {
    return this.write((db) => upsertImportLink(db, l))
  }

  putLinks(links: readonly ImportLink[]) {
    if (!links.length) return Promise.resolve()
    return this.write(async (db) => {
      for (const l of links) await upsertImportLink(db, l)
    })
  }

  removeLink(source: string, kind: ImportKind, sourceId: string) {
    return this.write(async (db) => {
      await db.run(`DELETE FROM import_links WHERE source = ? AND kind = ? AND source_id = ?`, [source, kind, sourceId])
    })
  }

  sourceState(source: string) {
    return this.read(async (db) => {
      const [r] = await db.query(`SELECT source, etag, last_modified, checked_at, resume FROM import_sources WHERE source = ?`, [source])
      return r
        ? ({
            source: String(r.source),
            etag: text(r.etag),
            lastModified: text(r.last_modified),
            checkedAt: String(r.checked_at),
            resume: text(r.resume),
          } satisfies ImportSourceState)
        : null
    })
  }

  putSourceState(s: ImportSourceState) {
    return this.write(async (db) => {
      await db.run(
        `INSERT INTO import_sources (source, etag, last_modified, checked_at, resume) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (source) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
           checked_at = excluded.checked_at, resume = excluded.resume`,
        [s.source, s.etag, s.lastModified, s.checkedAt, s.resume ?? null],
      )
    })
  }
}
