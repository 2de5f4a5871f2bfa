/**
 * Where the filter is applied: at the storage boundary of a write, on every record and patch a
 * transaction inserts or updates. Every string field is text to filter unless the field table
 * (storage/fields.ts) declares it structured, so a field added later is filtered without anyone
 * remembering to.
 * Look-ups that match stored text (reusing a venue named in an event write, finding a term by
 * name) see the filtered form too, so they find what an earlier filtered write stored.
 */
import { fieldsWithHtml } from '../storage/fields.js'
import { unreachable, type ReadOp, type StorageHook, type TransactionHook, type WriteOp } from '../storage/pipeline.js'
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

/**
 * The hook of a write by a caller without unfiltered_html: every record and patch a transaction
 * writes is filtered, and the look-ups inside it that match stored text look for the filtered form.
 */
export function htmlFilter(filter: TextFilter): StorageHook {
  const scope: TransactionHook = { write: (op, next) => next(filteredWrite(op, filter)) }
  return {
    read: (op, next, inTx) => next(inTx ? filteredRead(op, filter) : op),
    transaction: () => scope,
  }
}

/** `op` with the text it writes filtered. */
function filteredWrite(op: WriteOp, filter: TextFilter): WriteOp {
  switch (op.name) {
    case 'insertPost': {
      const [record] = op.args
      return { name: op.name, args: [filterRecord(record, record.type, filter)] }
    }
    case 'insertEvents':
      return { name: op.name, args: [op.args[0].map((record) => filterRecord(record, 'event', filter))] }
    case 'updatePost': {
      const [id, type, patch] = op.args
      return { name: op.name, args: [id, type, filterRecord(patch, type, filter)] }
    }
    case 'insertTerm':
      return { name: op.name, args: [filterRecord(op.args[0], 'term', filter)] }
    case 'updateTerm':
      return { name: op.name, args: [op.args[0], filterRecord(op.args[1], 'term', filter)] }
    // No text of their own.
    case 'unlinkPost':
    case 'deletePost':
    case 'deleteTerm':
    case 'putImportLink':
    case 'reserveIds':
      return op
    default:
      return unreachable(op)
  }
}

/** A look-up by stored text, for the filtered form (what an earlier filtered write stored). */
function filteredRead(op: ReadOp, filter: TextFilter): ReadOp {
  switch (op.name) {
    case 'findLinkedDuplicate': {
      const [type, language, fields] = op.args
      return { name: op.name, args: [type, language, filterRecord(fields, type, filter)] }
    }
    case 'findTerm': {
      const [taxonomy, language, by] = op.args
      if (by.name === undefined) return op
      return {
        name: op.name,
        args: [taxonomy, language, { ...by, name: filter(by.name, { resource: 'term', field: 'name', kind: 'inline' }) }],
      }
    }
    default:
      return op
  }
}
