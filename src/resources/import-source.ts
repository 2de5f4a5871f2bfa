/**
 * `import_source` on an imported record's representation (docs/importing.md): where it came from
 * (the source's name, the record's id there, when the last import wrote or confirmed it). Shown
 * only to callers who may edit the record, since a source's name can be a private feed URL; the
 * links of a whole page are loaded in one call, and not at all for anyone else.
 */
import { canEditPosts, canModify } from '../auth/principal.js'
import type { Context } from '../context.js'
import { RawJson } from '../http/raw-json.js'
import type { ImportKind, ImportLinkStore } from '../storage/import-links.js'
import type { PostRecord } from '../storage/types.js'

export interface ImportSourceJson {
  source: string
  source_id: string
  imported_at: string
}

/**
 * The import source of each record of `records` the caller may edit, by record id.
 *
 * @example
 * const sources = await importSources(ctx, events) // Map { 12 => { source: 'ics:https://…', source_id: 'uid-1', imported_at: '2027-01-01 10:00:00' } }
 */
export function importSources(
  ctx: Context,
  records: readonly PostRecord[],
  /** The records were created by this request: only the importer links a record, inside its own write. */
  created = false,
): Promise<ReadonlyMap<number, ImportSourceJson>> {
  const links = ctx.storage.importLinks
  // The importer's own writes (host requests with an in-transaction hook) never read it back.
  // Most callers (every anonymous reader) get the one empty answer, without an async call.
  if (created || !links || !canEditPosts(ctx.principal) || ctx.inTransaction) return NO_SOURCES
  return linkedSources(ctx, links, records)
}

const NO_SOURCES: Promise<ReadonlyMap<number, ImportSourceJson>> = Promise.resolve(new Map())

async function linkedSources(ctx: Context, links: ImportLinkStore, records: readonly PostRecord[]) {
  const out = new Map<number, ImportSourceJson>()
  const editable = records.filter((r) => canModify(ctx.principal, r))
  if (!editable.length) return out
  const kinds = new Map(editable.map((r) => [r.id, r.type as ImportKind]))
  for (const l of await links.linksOf([...kinds.keys()])) {
    // Term ids share numbers with post ids: a link counts only for its own kind of record.
    if (kinds.get(l.recordId) !== l.kind) continue
    const seen = out.get(l.recordId)
    // Imported from two sources: the one that wrote it last.
    if (!seen || seen.imported_at < l.importedAt)
      out.set(l.recordId, { source: l.source, source_id: l.sourceId, imported_at: l.importedAt })
  }
  return out
}

/** A rendered record (an object, or the fragment writer's raw JSON text) with `import_source` added. */
export function withImportSource(rendered: unknown, source: ImportSourceJson | undefined): unknown {
  if (!source) return rendered
  if (rendered instanceof RawJson) return new RawJson(`${rendered.text.slice(0, -1)},"import_source":${JSON.stringify(source)}}`)
  return rendered && typeof rendered === 'object' ? { ...rendered, import_source: source } : rendered
}
