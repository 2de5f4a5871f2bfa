/**
 * The storage a router and a request work on: a backend (or a transaction already open, a
 * batch's) behind one chain of hooks that sees every read and every write as a typed operation.
 * Observation for the response cache and `onChange`, the journal's projections, the HTML filter
 * of untrusted roles, read recording for the cache, host jobs' in-transaction hooks and the
 * `If-Match` check are hooks; the pipeline is the one place that knows the contract's methods.
 *
 * - A read is a `ReadOp` (`{ name: 'getPost', args: [12] }`); each hook with a `read` sees it
 *   and hands it (or a changed copy) to `next`. Outside and inside transactions alike.
 * - A transaction asks each hook for what it does in this transaction (`transaction()`, state of
 *   its own: the tags a write made stale, the records it wrote), then every write inside it is a
 *   `WriteOp` through those scopes. A hook's `write` switches over every `WriteOp` name with no
 *   default case left open: adding a write method to the contract fails to compile until every
 *   hook has said what it does with it.
 * - A request pays only for the hooks it has: with none, a read is the backend's own call, and a
 *   transaction without write scopes hands the backend's transaction object through untouched.
 *
 * @example
 * const logged: StorageHook = { read: (op, next) => (console.log(op.name), next(op)) }
 * const storage = new Pipeline(createMemoryStorage(), [logged])
 * await storage.getPost(1) // logs "getPost"
 */
import type { ImportLinkStore } from './import-links.js'
import type { JournalEntry, JournalName, JournalPage } from './journal.js'
import { storageInTransaction } from './open-transaction.js'
import {
  applyRead,
  applyWrite,
  defineOps,
  OPTIONAL,
  OPTIONAL_READS,
  READS,
  unreachable,
  WRITES,
  type NextRead,
  type NextWrite,
  type ReadOp,
  type WriteOp,
  type WriteResult,
} from './operations.js'
import type { OtherWriters, ReplicaReads, Storage, StorageReader, StorageTx, TransactionOptions } from './types.js'
import type { WebhookStore } from './webhooks.js'

export type { NextRead, NextWrite, ReadOp, ReadResult, WriteOp, WriteResult } from './operations.js'
export { unreachable } from './operations.js'

/** What a hook does inside one transaction; each part optional. */
export interface TransactionHook {
  /**
   * At the start of each attempt (a retried one starts over), inside it; `inside()` is a storage
   * reading what the transaction sees (built only when asked for).
   */
  begin?(inside: () => Storage): void | Promise<void>
  /** Every write of the transaction; `tx` is the backend's, for reads of the hook's own (not recorded). */
  write?(op: WriteOp, next: NextWrite, tx: StorageTx): Promise<unknown>
  /** After the transaction's function, still inside it: a throw rolls everything back. */
  end?(tx: StorageTx): Promise<void>
  /** Asks the backend for the transaction's journal entries, handed here once it committed. */
  committed?(entries: JournalEntry[]): void
  /** Once the transaction committed and returned. */
  after?(): void
}

export interface StorageHook {
  /** Every read, outside transactions (`inTx` false) and inside them. */
  read?(op: ReadOp, next: NextRead, inTx: boolean): Promise<unknown>
  /** Called as each transaction begins: what this hook does in it, or nothing. */
  transaction?(): TransactionHook | undefined
  /** Before each read of the change journal (readJournal, journalHead), which no ReadOp covers. */
  journalRead?(): void
}

function runRead(hooks: readonly StorageHook[], i: number, op: ReadOp, target: StorageReader, inTx: boolean): Promise<unknown> {
  if (i === hooks.length) return applyRead(target, op)
  const next = ((o: ReadOp) => runRead(hooks, i + 1, o, target, inTx)) as NextRead
  return hooks[i]!.read!(op, next, inTx)
}

function runWrite(scopes: readonly TransactionHook[], i: number, op: WriteOp, tx: StorageTx): Promise<unknown> {
  if (i === scopes.length) return applyWrite(tx, op)
  const next = ((o: WriteOp) => runWrite(scopes, i + 1, o, tx)) as NextWrite
  return scopes[i]!.write!(op, next, tx)
}

/** The reads and writes of a transaction, through the scopes its hooks opened for it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read and write methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
class TxView {
  constructor(
    private readonly raw: StorageTx,
    private readonly readHooks: readonly StorageHook[],
    private readonly writeScopes: readonly TransactionHook[],
  ) {
    const self = this as unknown as Record<string, unknown>
    for (const name of OPTIONAL) if (!raw[name]) self[name] = undefined
    if (raw.importLinksOf) self.importLinksOf = raw.importLinksOf.bind(raw)
  }

  read(op: ReadOp): Promise<unknown> {
    return runRead(this.readHooks, 0, op, this.raw, true)
  }

  write(op: WriteOp): Promise<unknown> {
    return runWrite(this.writeScopes, 0, op, this.raw)
  }
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read and write methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
interface TxView extends StorageTx {}
defineOps(TxView.prototype, READS, 'read')
defineOps(TxView.prototype, WRITES, 'write')

/**
 * `source` (a backend, or storage/open-transaction.ts's view of an open transaction) seen
 * through `hooks`, outermost first. Implements the whole `Storage` contract.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
export class Pipeline {
  readonly otherWriters?: OtherWriters
  readonly webhooks?: WebhookStore
  readonly importLinks?: ImportLinkStore
  readonly replicaReads?: ReplicaReads
  declare close?: () => Promise<void>
  declare readAtLeast?: (position: string) => Promise<void>
  private readonly readHooks: readonly StorageHook[]
  private readonly txHooks: readonly StorageHook[]

  constructor(
    private readonly source: Storage,
    readonly hooks: readonly StorageHook[],
  ) {
    this.readHooks = hooks.filter((h) => h.read !== undefined)
    this.txHooks = hooks.filter((h) => h.transaction !== undefined)
    this.otherWriters = source.otherWriters
    this.webhooks = source.webhooks
    this.importLinks = source.importLinks
    this.replicaReads = source.replicaReads
    if (source.close) this.close = () => source.close!()
    if (source.readAtLeast) this.readAtLeast = (position) => source.readAtLeast!(position)
    // A read the backend lacks (a capability) is absent here too.
    for (const name of OPTIONAL_READS) if (!source[name]) (this as Record<string, unknown>)[name] = undefined
    // No hook reads (an anonymous request without the response cache): each read is the
    // backend's own method, with no operation object made and dispatched per call.
    if (!this.readHooks.length)
      for (const name of READS) if (source[name]) (this as Record<string, unknown>)[name] = source[name].bind(source)
  }

  /** The same source behind `outer` hooks first, then this pipeline's own. */
  with(outer: readonly StorageHook[]): Storage {
    return outer.length ? new Pipeline(this.source, [...outer, ...this.hooks]) : this
  }

  read(op: ReadOp): Promise<unknown> {
    if (!this.readHooks.length) return applyRead(this.source, op)
    return runRead(this.readHooks, 0, op, this.source, false)
  }

  async transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const scopes: TransactionHook[] = []
    for (const h of this.txHooks) {
      const scope = h.transaction!()
      if (scope) scopes.push(scope)
    }
    if (!scopes.length && !this.readHooks.length) return this.source.transaction(fn, options)
    const writeScopes = scopes.filter((s) => s.write !== undefined)
    const result = await this.source.transaction(
      async (raw) => {
        const tx = writeScopes.length || this.readHooks.length ? new TxView(raw, this.readHooks, writeScopes) : raw
        let inside: Storage | undefined
        const view = () => (inside ??= this.inside(raw))
        for (const s of scopes) if (s.begin) await s.begin(view)
        const out = await fn(tx)
        for (const s of scopes) if (s.end) await s.end(tx)
        return out
      },
      this.commitOptions(scopes, options),
    )
    for (const s of scopes) s.after?.()
    return result
  }

  /** The caller's options, with the journal entries asked for when a scope wants them. */
  private commitOptions(scopes: readonly TransactionHook[], options?: TransactionOptions): TransactionOptions | undefined {
    const wanting = scopes.filter((s) => s.committed !== undefined)
    if (!wanting.length) return options
    return {
      onCommit(entries) {
        for (const s of wanting) s.committed!(entries)
        options?.onCommit?.(entries)
      },
    }
  }

  /** What the transaction `raw` sees, read through this pipeline's read hooks (for a hook's `begin`). */
  private inside(raw: StorageTx): Storage {
    return new Pipeline(storageInTransaction({ tx: raw, failure: null }), this.readHooks)
  }

  readJournal(after: string, limit: number, until?: string): Promise<JournalPage> {
    for (const h of this.hooks) h.journalRead?.()
    return this.source.readJournal(after, limit, until)
  }
  journalHead(): Promise<string> {
    for (const h of this.hooks) h.journalRead?.()
    return this.source.journalHead()
  }
  compactJournal(beforeUtc: string): Promise<number> {
    return this.source.compactJournal(beforeUtc)
  }
  journalNames(ids: readonly number[]): Promise<JournalName[]> {
    for (const h of this.hooks) h.journalRead?.()
    return this.source.journalNames(ids)
  }
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
export interface Pipeline extends Storage {}
defineOps(Pipeline.prototype, READS, 'read')

/** A record a transaction inserted or updated, in the order it did so. */
export interface WrittenRecord {
  /** A post type (`event`, `venue`, `organizer`) or a taxonomy (`category`, `tag`). */
  type: string
  id: number
}

/** Runs last inside a write's transaction (a throw rolls the write back), with what it wrote. */
export type InTransaction = (tx: StorageTx, written: readonly WrittenRecord[]) => Promise<void>

/** The records `op` wrote, from its result. */
function noteWritten(written: WrittenRecord[], op: WriteOp, result: unknown): void {
  switch (op.name) {
    case 'insertPost':
    case 'updatePost': {
      const r = result as WriteResult<typeof op>
      written.push({ type: r.type, id: r.id })
      return
    }
    case 'insertEvents':
      for (const r of result as WriteResult<typeof op>) if (r) written.push({ type: 'event', id: r.id })
      return
    case 'insertTerm':
    case 'updateTerm': {
      const t = result as WriteResult<typeof op>
      written.push({ type: t.taxonomy, id: t.id })
      return
    }
    // Deletions and links write no record a host job keeps anything beside.
    case 'unlinkPost':
    case 'deletePost':
    case 'deleteTerm':
    case 'putImportLink':
    case 'reserveIds':
      return
    default:
      return unreachable(op)
  }
}

/**
 * A host job's hook (host-request.ts): each transaction notes the records it writes and
 * ends with `hook`, in the transaction, so what the job keeps beside a record commits with it.
 */
export function inTransactionHook(hook: InTransaction): StorageHook {
  return {
    transaction() {
      let written: WrittenRecord[] = []
      return {
        begin() {
          written = []
        },
        async write(op, next) {
          const result = await next(op)
          noteWritten(written, op, result)
          return result
        },
        end: (tx) => hook(tx, written),
      }
    },
  }
}

/**
 * `storage` seen through `hooks` (outermost first): a storage to hand a router, for a host that
 * logs, measures or fails chosen operations (a test's fault injector). Every read is a typed
 * `ReadOp` and every write inside a transaction a `WriteOp`; capabilities the backend lacks stay
 * absent.
 *
 * @example
 * const reads = new Map<string, number>()
 * const counted = withStorageHooks(createMemoryStorage(), [
 *   { read: (op, next) => (reads.set(op.name, (reads.get(op.name) ?? 0) + 1), next(op)) },
 * ])
 * const router = createCalendarRouter(counted)
 */
export function withStorageHooks(storage: Storage, hooks: readonly StorageHook[]): Storage {
  return new Pipeline(storage, hooks)
}
