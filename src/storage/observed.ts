/**
 * Wraps a storage so that every committed transaction reports what it changed: the backend's
 * journal entries for it (one per record, cascades included, in commit order), never anything of
 * a rolled-back attempt, however often the backend ran the transaction again.
 */
import { writeTags, type Tags } from './dependencies.js'
import type { JournalEntry } from './journal.js'
import { overlay } from './overlay.js'
import type { PostType, Storage, StorageTx, Taxonomy, TransactionOptions } from './types.js'

export interface Change {
  type: PostType | Taxonomy
  /** `delete` also for a record moved to the trash (readers no longer see it). */
  action: 'create' | 'update' | 'delete'
  id: number
  language: string
  /** The record's revision after the change (before it, for a deletion). */
  revision: number
}

/** The `onChange` view of a journal entry. */
export const changeOf = (e: JournalEntry): Change => ({
  type: e.kind,
  action: e.action === 'trash' ? 'delete' : e.action === 'count' ? 'update' : e.action,
  id: e.id,
  language: e.language,
  revision: e.revision,
})

/**
 * `onCommit` gets the journal entries of each committed transaction and, with `tags`, what they
 * may have made stale (see dependencies.ts). Tags need each record's image before the write, one
 * read more per write; every journaled record is tagged too, so what a backend cascaded is dropped.
 */
export function observeStorage(storage: Storage, onCommit: (entries: JournalEntry[], tags: Tags) => void, o: { tags: boolean }): Storage {
  return overlay(storage, {
    async transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const tags: Tags = new Set()
      let entries: JournalEntry[] = []
      const result = await storage.transaction(
        (tx) => {
          // A retried attempt starts over: the tags of one that rolled back mean nothing.
          tags.clear()
          return fn(o.tags ? recording(tx, tags) : tx)
        },
        {
          onCommit(committed) {
            entries = committed
            options?.onCommit?.(committed)
          },
        },
      )
      if (o.tags) for (const e of entries) tags.add(e.kind === 'category' || e.kind === 'tag' ? `t${e.id}` : `p${e.id}`)
      if (entries.length || tags.size) onCommit(entries, tags)
      return result
    },
  })
}

function recording(tx: StorageTx, tags: Tags): StorageTx {
  const r: Partial<StorageTx> = {}
  const before = (id: number) => tx.getPost(id)
  const termBefore = (id: number) => tx.getTerm(id)
  r.insertPost = async (record) => {
    const rec = await tx.insertPost(record)
    writeTags(tags, rec.type, rec.id, [rec])
    return rec
  }
  if (tx.insertEvents) {
    const insertEvents = tx.insertEvents.bind(tx)
    r.insertEvents = async (records) => {
      const stored = await insertEvents(records)
      for (const rec of stored) if (rec) writeTags(tags, 'event', rec.id, [rec])
      return stored
    }
  }
  r.updatePost = async (id, type, patch) => {
    const old = await before(id)
    const rec = await tx.updatePost(id, type, patch)
    writeTags(tags, rec.type, rec.id, [old, rec])
    return rec
  }
  r.unlinkPost = async (id) => {
    // Not a change of its own (the trashing that calls it is); the events linked to it are.
    const rec = await before(id)
    await tx.unlinkPost(id)
    if (rec) writeTags(tags, rec.type, id, [rec])
  }
  r.deletePost = async (id) => {
    const rec = await tx.getPost(id)
    await tx.deletePost(id)
    if (rec) writeTags(tags, rec.type, id, [rec])
  }
  r.insertTerm = async (term) => {
    const t = await tx.insertTerm(term)
    writeTags(tags, t.taxonomy, t.id, [t])
    return t
  }
  r.updateTerm = async (id, patch) => {
    const old = await termBefore(id)
    const t = await tx.updateTerm(id, patch)
    writeTags(tags, t.taxonomy, t.id, [old, t])
    return t
  }
  r.deleteTerm = async (id) => {
    const t = await tx.getTerm(id)
    await tx.deleteTerm(id)
    if (t) writeTags(tags, t.taxonomy, id, [t])
  }
  return overlay(tx, r)
}
