/**
 * A storage seen from inside a transaction that is already open: what a request needs to run its
 * whole path (reads, then its own `transaction`) as one part of a larger transaction, the
 * router's batch of host requests (router/host-request.ts, the importer's group commit).
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
import { overlay } from './overlay.js'
import type { Storage, StorageReader, StorageTx, TransactionOptions } from './types.js'

/** The transaction a view runs in, and the first failure of a part of it (null while none). */
export interface OpenTransaction {
  readonly tx: StorageTx
  failure: { error: unknown } | null
}

const READS = [
  'getPost',
  'getPosts',
  'findPostBySlug',
  'slugsLike',
  'listEvents',
  'eventsShowing',
  'listLinked',
  'findLinkedDuplicate',
  'getTranslations',
  'getTerm',
  'getTerms',
  'findTerm',
  'termDescendants',
  'listTerms',
  'trashedPosts',
  'seriesMembers',
] as const satisfies ReadonlyArray<keyof StorageReader>

// Every read of the contract is listed above: one missing would read outside the open transaction.
type Unlisted = Exclude<keyof StorageReader, (typeof READS)[number]>
const everyRead: [Unlisted] extends [never] ? true : Unlisted = true
void everyRead

/** Raised by a view whose open transaction already failed: nothing more may run in it. */
export class TransactionFailedError extends Error {
  constructor(cause: unknown) {
    super('An earlier write of this transaction failed: it will be rolled back', { cause })
    this.name = 'TransactionFailedError'
  }
}

/**
 * `storage` as a request inside `open` sees it. `open.failure` is set by the first `transaction`
 * whose function throws; the caller that opened the transaction rolls it back then.
 *
 * @example
 * await storage.transaction(async (tx) => {
 *   const open: OpenTransaction = { tx, failure: null }
 *   const view = storageInTransaction(storage, open)
 *   await view.transaction((t) => t.insertTerm({ taxonomy: 'tag', language: 'en', name: 'Jazz', slug: 'jazz', description: '', parent: 0 }))
 *   await view.findTerm('tag', 'en', { slug: 'jazz' }) // the term, not committed yet
 *   if (open.failure) throw open.failure.error // one part failed: roll everything back
 * })
 */
export function storageInTransaction(storage: Storage, open: OpenTransaction): Storage {
  const usable = () => {
    if (open.failure) throw new TransactionFailedError(open.failure.error)
  }
  const own: Record<string, unknown> = {}
  for (const name of READS) {
    const read = open.tx[name] as (...args: unknown[]) => Promise<unknown>
    own[name] = (...args: unknown[]) => {
      usable()
      return read.apply(open.tx, args)
    }
  }
  const outside = (what: string) => () => {
    throw new Error(`calendar-events-router: ${what} is not available inside an open transaction`)
  }
  return overlay(storage, {
    ...(own as Partial<Storage>),
    async transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
      // It would have to wait for the open transaction's commit, which its caller awaits in turn.
      if (options?.onCommit) throw new TypeError('calendar-events-router: onCommit is not available inside an open transaction')
      usable()
      try {
        return await fn(open.tx)
      } catch (error) {
        open.failure ??= { error }
        throw error
      }
    },
    readJournal: outside('the change journal'),
    journalHead: outside('the change journal'),
    compactJournal: outside('the change journal'),
    close: outside('close()'),
    importLinks: open.tx.importLinksOf ? new LinksInTransaction(open.tx) : undefined,
    webhooks: undefined,
    otherWriters: undefined,
  })
}

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
