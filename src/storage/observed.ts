/**
 * Wraps a storage so that every committed transaction reports what it changed. Rolled-back
 * transactions report nothing: the list is handed over only after `transaction` resolved.
 */
import { writeTags, type Tags } from './dependencies.js'
import { overlay } from './overlay.js'
import type { PostType, Storage, StorageTx, Taxonomy } from './types.js'

export interface Change {
  type: PostType | Taxonomy
  action: 'create' | 'update' | 'delete'
  id: number
  language: string
}

/**
 * `onCommit` gets the public changes and, with `tags`, what they may have made stale (see
 * dependencies.ts). Tags need each record's image before the write, one read more per write.
 */
export function observeStorage(storage: Storage, onCommit: (changes: Change[], tags: Tags) => void, o: { tags: boolean }): Storage {
  return overlay(storage, {
    async transaction<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T> {
      const changes: Change[] = []
      const tags: Tags = new Set()
      const result = await storage.transaction((tx) => fn(recording(tx, changes, o.tags ? tags : null)))
      if (changes.length || tags.size) onCommit(changes, tags)
      return result
    },
  })
}

function recording(tx: StorageTx, changes: Change[], tags: Tags | null): StorageTx {
  const r: Partial<StorageTx> = {}
  const before = async (id: number) => (tags ? tx.getPost(id) : null)
  const termBefore = async (id: number) => (tags ? tx.getTerm(id) : null)
  r.insertPost = async (record) => {
    const rec = await tx.insertPost(record)
    changes.push({ type: rec.type, action: 'create', id: rec.id, language: rec.language })
    if (tags) writeTags(tags, rec.type, rec.id, [rec])
    return rec
  }
  if (tx.insertEvents) {
    const insertEvents = tx.insertEvents.bind(tx)
    r.insertEvents = async (records) => {
      const stored = await insertEvents(records)
      for (const rec of stored) {
        if (!rec) continue
        changes.push({ type: 'event', action: 'create', id: rec.id, language: rec.language })
        if (tags) writeTags(tags, 'event', rec.id, [rec])
      }
      return stored
    }
  }
  r.updatePost = async (id, type, patch) => {
    const old = await before(id)
    const rec = await tx.updatePost(id, type, patch)
    changes.push({ type: rec.type, action: patch.status === 'trash' ? 'delete' : 'update', id: rec.id, language: rec.language })
    if (tags) writeTags(tags, rec.type, rec.id, [old, rec])
    return rec
  }
  r.unlinkPost = async (id) => {
    // Not a change of its own (the trashing that calls it is); the events linked to it are.
    const rec = await before(id)
    await tx.unlinkPost(id)
    if (tags && rec) writeTags(tags, rec.type, id, [rec])
  }
  r.deletePost = async (id) => {
    const rec = await tx.getPost(id)
    await tx.deletePost(id)
    if (rec) changes.push({ type: rec.type, action: 'delete', id, language: rec.language })
    if (tags && rec) writeTags(tags, rec.type, id, [rec])
  }
  r.insertTerm = async (term) => {
    const t = await tx.insertTerm(term)
    changes.push({ type: t.taxonomy, action: 'create', id: t.id, language: t.language })
    if (tags) writeTags(tags, t.taxonomy, t.id, [t])
    return t
  }
  r.updateTerm = async (id, patch) => {
    const old = await termBefore(id)
    const t = await tx.updateTerm(id, patch)
    changes.push({ type: t.taxonomy, action: 'update', id: t.id, language: t.language })
    if (tags) writeTags(tags, t.taxonomy, t.id, [old, t])
    return t
  }
  r.deleteTerm = async (id) => {
    const t = await tx.getTerm(id)
    await tx.deleteTerm(id)
    if (t) changes.push({ type: t.taxonomy, action: 'delete', id, language: t.language })
    if (tags && t) writeTags(tags, t.taxonomy, id, [t])
  }
  return overlay(tx, r)
}
