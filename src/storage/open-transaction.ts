/**
 * A storage seen from inside a transaction that is already open: what a request needs to run its
 * whole path (reads, then its own `transaction`) as one part of a larger transaction, the
 * router's batch of host requests (host-request.ts, the importer's group commit).
 *
 * - Every read goes to the open transaction, so a request sees what earlier parts wrote and
 *   have not committed yet (a venue created by one imported record, linked by the next).
 * - `transaction(fn)` runs `fn` on the open transaction: no commit of its own, nothing is
 *   reported until the open transaction commits.
 * - A `fn` that throws may have written half of its work, which only rolling back the whole open
 *   transaction undoes (PostgreSQL refuses every later statement anyway): the view remembers the
 *   failure, and every later read or transaction through it throws.
 * - What lives outside transactions is not offered: the webhook store, the journal, other
 *   writers' version, and of the import links all but the links of given records, which the
 *   transaction reads itself (`importLinksOf`) where the backend can. They read or write through the storage's own connections
 *   and write queue, which inside an open write transaction would see stale data or wait for it
 *   to end (for ever, on SQLite with one connection).
 */
import type { ImportKind, ImportLink, ImportLinkStore, ImportSourceState } from './import-links.js'
import type { JournalName, JournalPage } from './journal.js'
import { applyRead, defineOps, OPTIONAL_READS, READS, type ReadOp } from './operations.js'
import type { Storage, StorageTx, TransactionOptions } from './types.js'

/** The transaction a view runs in, and the first failure of a part of it (null while none). */
export interface OpenTransaction {
  readonly tx: StorageTx
  failure: { error: unknown } | null
}

/** Raised by a view whose open transaction already failed: nothing more may run in it. */
export class TransactionFailedError extends Error {
  constructor(cause: unknown) {
    super('An earlier write of this transaction failed: it will be rolled back', { cause })
    this.name = 'TransactionFailedError'
  }
}

/**
 * The storage as a request inside `open` sees it. `open.failure` is set by the first
 * `transaction` whose function throws; the caller that opened the transaction rolls it back then.
 *
 * @example
 * await storage.transaction(async (tx) => {
 *   const open: OpenTransaction = { tx, failure: null }
 *   const view = storageInTransaction(open)
 *   await view.transaction((t) => t.insertTerm({ taxonomy: 'tag', language: 'en', name: 'Jazz', slug: 'jazz', description: '', parent: 0 }))
 *   await view.findTerm('tag', 'en', { slug: 'jazz' }) // the term, not committed yet
 *   if (open.failure) throw open.failure.error // one part failed: roll everything back
 * })
 */
export const storageInTransaction = (open: OpenTransaction): Storage => new InsideTransaction(open)

const outside = (what: string): never => {
  throw new Error(`calendar-events-router: ${what} is not available inside an open transaction`)
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
class InsideTransaction {
  readonly importLinks: ImportLinkStore | undefined
  readonly webhooks = undefined
  readonly otherWriters = undefined

  constructor(private readonly open: OpenTransaction) {
    this.importLinks = open.tx.importLinksOf ? new LinksInTransaction(open.tx) : undefined
    // A read the backend lacks (a capability) is absent here too.
    for (const name of OPTIONAL_READS) if (!open.tx[name]) (this as Record<string, unknown>)[name] = undefined
  }

  private usable(): void {
    if (this.open.failure) throw new TransactionFailedError(this.open.failure.error)
  }

  read(op: ReadOp): Promise<unknown> {
    this.usable()
    return applyRead(this.open.tx, op)
  }

  async transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    // It would have to wait for the open transaction's commit, which its caller awaits in turn.
    if (options?.onCommit) throw new TypeError('calendar-events-router: onCommit is not available inside an open transaction')
    this.usable()
    try {
      return await fn(this.open.tx)
    } catch (error) {
      this.open.failure ??= { error }
      throw error
    }
  }

  readJournal(): Promise<JournalPage> {
    return outside('the change journal')
  }
  journalHead(): Promise<string> {
    return outside('the change journal')
  }
  compactJournal(): Promise<number> {
    return outside('the change journal')
  }
  journalNames(): Promise<JournalName[]> {
    return outside('the change journal')
  }
  close(): Promise<void> {
    return outside('close()')
  }
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its read methods are put on the prototype by defineOps below; the merged interface declares them to the type checker
interface InsideTransaction extends Storage {}
defineOps(InsideTransaction.prototype, READS, 'read')

/**
 * The import links as a transaction sees them: what a record's representation shows of them
 * (`import_source`) and nothing more. The store's other operations run through the storage's own
 * connections, so they are refused here rather than left to wait for this transaction.
 */
export class LinksInTransaction implements ImportLinkStore {
  constructor(private readonly tx: StorageTx) {}

  linksOf(recordIds: readonly number[]): Promise<ImportLink[]> {
    return this.tx.importLinksOf ? this.tx.importLinksOf(recordIds) : Promise.resolve([])
  }

  private refused(): never {
    throw new Error('calendar-events-router: the import link store is not available inside an open transaction')
  }
  links(_source: string): Promise<ImportLink[]> {
    this.refused()
  }
  putLink(_link: ImportLink): Promise<void> {
    this.refused()
  }
  putLinks(_links: readonly ImportLink[]): Promise<void> {
    this.refused()
  }
  removeLink(_source: string, _kind: ImportKind, _sourceId: string): Promise<void> {
    this.refused()
  }
  sourceState(_source: string): Promise<ImportSourceState | null> {
    this.refused()
  }
  putSourceState(_state: ImportSourceState): Promise<void> {
    this.refused()
  }
}
