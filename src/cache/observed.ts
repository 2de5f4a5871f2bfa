/**
 * Wraps a storage so that every committed transaction reports what it changed: the backend's
 * journal entries for it (one per record, cascades included, in commit order), never anything of
 * a rolled-back attempt, however often the backend ran the transaction again.
 */
import { Stale, writeTags } from './dependencies.js'
import { recordTag } from './tags.js'
import type { JournalEntry } from '../storage/journal.js'
import { unreachable, type NextWrite, type StorageHook, type WriteOp } from '../storage/pipeline.js'
import type { PostType, StorageTx, Taxonomy } from '../storage/types.js'

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
 * The hook that tells `onCommit` the journal entries of each committed transaction and, with
 * `tags`, what they may have made stale (see dependencies.ts). Tags need each record's image
 * before the write, one read more per write; every journaled record is tagged too, so what a
 * backend cascaded is dropped.
 */
export function observing(onCommit: (entries: JournalEntry[], stale: Stale) => void, o: { tags: boolean }): StorageHook {
  return {
    transaction() {
      const stale = new Stale()
      let entries: JournalEntry[] = []
      return {
        // A retried attempt starts over: the tags of one that rolled back mean nothing.
        begin: () => stale.clear(),
        ...(o.tags ? { write: (op: WriteOp, next: NextWrite, tx: StorageTx) => recordWrite(stale, op, next, tx) } : {}),
        committed(committed) {
          entries = committed
        },
        after() {
          if (o.tags) for (const e of entries) stale.tags.add(recordTag(e.kind, e.id))
          if (entries.length || stale.tags.size) onCommit(entries, stale)
        },
      }
    },
  }
}

/** `op` written through `next`, with the tags of the records before and after it. */
async function recordWrite(stale: Stale, op: WriteOp, next: NextWrite, tx: StorageTx): Promise<unknown> {
  switch (op.name) {
    case 'insertPost': {
      const rec = await next(op)
      writeTags(stale, rec.type, rec.id, [rec])
      return rec
    }
    case 'insertEvents': {
      const stored = await next(op)
      for (const rec of stored) if (rec) writeTags(stale, 'event', rec.id, [rec])
      return stored
    }
    case 'updatePost': {
      const old = await tx.getPost(op.args[0])
      const rec = await next(op)
      writeTags(stale, rec.type, rec.id, [old, rec])
      return rec
    }
    // unlinkPost is not a change of its own (the trashing that calls it is); the events linked to it are.
    case 'unlinkPost':
    case 'deletePost': {
      const rec = await tx.getPost(op.args[0])
      await next(op)
      if (rec) writeTags(stale, rec.type, rec.id, [rec])
      return
    }
    case 'insertTerm': {
      const t = await next(op)
      writeTags(stale, t.taxonomy, t.id, [t])
      return t
    }
    case 'updateTerm': {
      const old = await tx.getTerm(op.args[0])
      const t = await next(op)
      writeTags(stale, t.taxonomy, t.id, [old, t])
      return t
    }
    case 'deleteTerm': {
      const t = await tx.getTerm(op.args[0])
      await next(op)
      if (t) writeTags(stale, t.taxonomy, t.id, [t])
      return
    }
    // A link changes no record any response shows to the anonymous (import_source is an editor's).
    case 'putImportLink':
      return next(op)
    // Reserved ids name no record until one is written under them.
    case 'reserveIds':
      return next(op)
    default:
      return unreachable(op)
  }
}
