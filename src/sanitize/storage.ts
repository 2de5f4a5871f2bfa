/**
 * Where the filter is applied: at the storage boundary of a write, on every record and patch a
 * transaction inserts or updates. Every string field is text to filter unless the field table
 * (storage/fields.ts) declares it structured, so a field added later is filtered without anyone
 * remembering to.
 * Look-ups that match stored text (reusing a venue named in an event write, finding a term by
 * name) see the filtered form too, so they find what an earlier filtered write stored.
 */
import { fieldsWithHtml } from '../storage/fields.js'
import { overlay } from '../storage/overlay.js'
import type { Storage, StorageTx } from '../storage/types.js'
import type { HtmlKind } from './allowlist.js'
import type { TextField, TextFilter } from './policy.js'

/** Values with a fixed syntax, validated elsewhere (URLs are http(s) only for every role): the field table's `structured` ones. */
const STRUCTURED = new Set<string>(fieldsWithHtml('structured'))

/** Fields that hold paragraphs of HTML; every other text field keeps inline formatting only. */
const RICH = new Set<string>(fieldsWithHtml('rich'))

const kindOf = (field: string): HtmlKind => (RICH.has(field) ? 'rich' : 'inline')

type Resource = TextField['resource']

/** A copy of `record` with its text fields filtered (string lists, like cost entries, item by item). */
export function filterRecord<T extends object>(record: T, resource: Resource, filter: TextFilter): T {
  const out: Record<string, unknown> = { ...(record as Record<string, unknown>) }
  for (const [field, value] of Object.entries(out)) {
    if (STRUCTURED.has(field)) continue
    const info = { resource, field, kind: kindOf(field) }
    if (typeof value === 'string') out[field] = filter(value, info)
    else if (Array.isArray(value) && value.every((x) => typeof x === 'string')) out[field] = value.map((x: string) => filter(x, info))
  }
  return out as T
}

function filteringTx(tx: StorageTx, filter: TextFilter): StorageTx {
  return overlay(tx, {
    insertPost: (record) => tx.insertPost(filterRecord(record, record.type, filter)),
    updatePost: (id, type, patch) => tx.updatePost(id, type, filterRecord(patch, type, filter)),
    insertTerm: (term) => tx.insertTerm(filterRecord(term, 'term', filter)),
    updateTerm: (id, patch) => tx.updateTerm(id, filterRecord(patch, 'term', filter)),
    findLinkedDuplicate: (type, language, fields) => tx.findLinkedDuplicate(type, language, filterRecord(fields, type, filter)),
    findTerm: (taxonomy, language, by) =>
      tx.findTerm(
        taxonomy,
        language,
        by.name === undefined ? by : { ...by, name: filter(by.name, { resource: 'term', field: 'name', kind: 'inline' }) },
      ),
  })
}

/** `storage` whose transactions filter every text they write through `filter`. */
export function filteringStorage(storage: Storage, filter: TextFilter): Storage {
  return overlay(storage, {
    transaction: (fn, options) => storage.transaction((tx) => fn(filteringTx(tx, filter)), options),
  })
}
