/**
 * Wraps a storage so that every committed transaction reports what it changed. Rolled-back
 * transactions report nothing: the list is handed over only after `transaction` resolved.
 */
import type { PostType, Storage, StorageTx, Taxonomy } from './types.js'

export interface Change {
  type: PostType | Taxonomy
  action: 'create' | 'update' | 'delete'
  id: number
  language: string
}

/**
 * Delegates everything to `target` (bound, so backends may use private fields) except the
 * methods given.
 */
export function overlay<T extends object>(target: T, own: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(own, prop)) return own[prop as keyof T]
      const value = Reflect.get(t, prop, t)
      return typeof value === 'function' ? value.bind(t) : value
    },
  })
}

export function observeStorage(storage: Storage, onCommit: (changes: Change[]) => void): Storage {
  return overlay(storage, {
    async transaction<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T> {
      const changes: Change[] = []
      const result = await storage.transaction((tx) => fn(recording(tx, changes)))
      if (changes.length) onCommit(changes)
      return result
    },
  })
}

function recording(tx: StorageTx, changes: Change[]): StorageTx {
  const r: Partial<StorageTx> = {}
  r.insertPost = async (record) => {
    const rec = await tx.insertPost(record)
    changes.push({ type: rec.type, action: 'create', id: rec.id, language: rec.language })
    return rec
  }
  r.updatePost = async (id, type, patch) => {
    const rec = await tx.updatePost(id, type, patch)
    changes.push({ type: rec.type, action: patch.status === 'trash' ? 'delete' : 'update', id: rec.id, language: rec.language })
    return rec
  }
  r.deletePost = async (id) => {
    const rec = await tx.getPost(id)
    await tx.deletePost(id)
    if (rec) changes.push({ type: rec.type, action: 'delete', id, language: rec.language })
  }
  r.insertTerm = async (term) => {
    const t = await tx.insertTerm(term)
    changes.push({ type: t.taxonomy, action: 'create', id: t.id, language: t.language })
    return t
  }
  r.updateTerm = async (id, patch) => {
    const t = await tx.updateTerm(id, patch)
    changes.push({ type: t.taxonomy, action: 'update', id: t.id, language: t.language })
    return t
  }
  r.deleteTerm = async (id) => {
    const t = await tx.getTerm(id)
    await tx.deleteTerm(id)
    if (t) changes.push({ type: t.taxonomy, action: 'delete', id, language: t.language })
  }
  return overlay(tx, r)
}
