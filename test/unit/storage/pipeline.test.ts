/**
 * The storage pipeline (src/storage/pipeline.ts): every read and write of a request passes its
 * hooks as a typed operation, each hook sees every write method, and a pipeline without hooks
 * costs nothing.
 */
import { describe, expect, it } from 'vitest'
import { htmlFilter } from '../../../src/sanitize/storage.js'
import { createMemoryStorage } from '../../../src/storage/memory.js'
import { Pipeline, type ReadOp, type StorageHook, type WriteOp } from '../../../src/storage/pipeline.js'
import type { NewPost, Storage, StorageTx, TransactionOptions } from '../../../src/storage/types.js'
import { newEvent } from '../../../src/testing/index.js'

const shout = (text: string) => (text.startsWith('FILTERED:') ? text : `FILTERED:${text}`)

/** `backend` with transactions that offer (or not) the optional methods: bulk inserts as one insertPost each. */
function withOptional(backend: Storage, has: boolean, given: StorageTx[] = []): Storage {
  return Object.assign(Object.create(backend) as Storage, {
    transaction: (fn: (tx: StorageTx) => Promise<unknown>, o?: TransactionOptions) =>
      backend.transaction((tx) => {
        const optional = {
          insertEvents: has ? async (records: NewPost<'event'>[]) => Promise.all(records.map((r) => tx.insertPost(r))) : undefined,
          putImportLink: has ? async () => undefined : undefined,
          importLinksOf: has ? async () => [] : undefined,
        }
        const raw = Object.assign(Object.create(tx) as StorageTx, optional)
        given.push(raw)
        return fn(raw)
      }, o),
  })
}

describe('storage pipeline', () => {
  it('the HTML filter sees every write method: a series written in bulk (insertEvents) is filtered too', async () => {
    const backend = createMemoryStorage()
    const storage = new Pipeline(withOptional(backend, true), [htmlFilter(shout)])
    const stored = await storage.transaction((tx) => {
      if (!tx.insertEvents) throw new Error('withOptional offers bulk inserts')
      return tx.insertEvents([newEvent({ slug: 'a', title: '<b>one</b>' }), newEvent({ slug: 'b', title: 'two' })])
    })
    const ids = stored.map((r) => r!.id)
    expect((await backend.getPosts(ids)).map((r) => r.title).sort()).toEqual(['FILTERED:<b>one</b>', 'FILTERED:two'])
    const single = await storage.transaction((tx) => tx.insertPost(newEvent({ slug: 'c', title: 'three' })))
    expect((await backend.getPost(single.id))!.title).toBe('FILTERED:three')
  })

  it('hooks see reads outside and inside transactions and writes inside them, outermost first, as typed operations', async () => {
    const seen: string[] = []
    const spy = (label: string): StorageHook => ({
      read: (op: ReadOp, next, inTx) => (seen.push(`${label} read ${op.name}${inTx ? ' in tx' : ''}`), next(op)),
      transaction: () => ({
        write: (op: WriteOp, next) => (seen.push(`${label} write ${op.name}`), next(op)),
        after: () => void seen.push(`${label} after`),
      }),
    })
    const storage = new Pipeline(createMemoryStorage(), [spy('outer'), spy('inner')])
    const made = await storage.transaction(async (tx) => {
      const e = await tx.insertPost(newEvent({ slug: 'x' }))
      await tx.getPost(e.id)
      return e
    })
    await storage.getPost(made.id)
    expect(seen).toEqual([
      'outer write insertPost',
      'inner write insertPost',
      'outer read getPost in tx',
      'inner read getPost in tx',
      'outer after',
      'inner after',
      'outer read getPost',
      'inner read getPost',
    ])
  })

  it('offers only the optional methods the backend has, and hands its transaction through when no hook is there', async () => {
    const backend = createMemoryStorage()
    await new Pipeline(withOptional(backend, false), [htmlFilter(shout)]).transaction(async (tx) => {
      expect(tx.insertEvents).toBeUndefined()
      expect(tx.putImportLink).toBeUndefined()
      expect(tx.importLinksOf).toBeUndefined()
    })
    await new Pipeline(withOptional(backend, true), [htmlFilter(shout)]).transaction(async (tx) => {
      expect(tx.insertEvents).toBeTypeOf('function')
      expect(tx.putImportLink).toBeTypeOf('function')
      expect(tx.importLinksOf).toBeTypeOf('function')
    })
    const given: StorageTx[] = []
    await new Pipeline(withOptional(backend, true, given), []).transaction(async (tx) => {
      expect(tx).toBe(given[0])
    })
  })
})
