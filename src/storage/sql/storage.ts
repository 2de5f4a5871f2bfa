/**
 * The SQL storage: StorageReader/StorageTx over the query modules, plus the transaction
 * discipline.
 * - One write transaction at a time per storage instance (an in-process queue), so writers in
 *   one process never fight over locks and each sees the previous one's commit.
 * - On PostgreSQL the driver begins SERIALIZABLE, so writers in other processes are kept
 *   correct too; a serialization failure or deadlock (40001/40P01) re-runs the whole function
 *   a bounded number of times. `fn` must therefore be safe to run again: keep side effects
 *   outside the database out of it.
 * - Database failures surface as StorageUnavailableError; nothing is cached across a failure, so
 *   the next call tries the database again.
 */
import type {
  NewPost,
  NewTerm,
  PostPatch,
  PostRecord,
  PostType,
  Storage,
  StorageTx,
  TermPatch,
  TransactionOptions,
  OtherWriters,
  ReplicaReads,
} from '../types.js'
import { collapseEntries, journalTime, type JournalEntry, type JournalName, type JournalPage } from '../journal.js'
import { SqlJournal } from './journal.js'
import { SqlWebhookStore } from './webhooks.js'
import { selectLinksOf, SqlImportLinkStore, upsertImportLink } from './import-links.js'
import type { ImportLink } from '../import-links.js'
import { StorageUnavailableError } from '../types.js'
import { Db } from './db.js'
import { dialectFor, type Dialect } from './dialect.js'
import { columnText, type SqlConnection, type SqlDriver } from './driver.js'
import { RetryTransaction, translate } from './errors.js'
import { runMigrations } from './migrations.js'
import { checkEngine } from './engine.js'
import { EVENT_FTS_TABLE, searchIndexes, type SearchIndexes } from './event-search.js'
import { FTS_TABLE } from './search-index.js'
import { wordIndexState } from './event-words.js'
import { Reader } from './reader.js'
import { COMMIT_POSITION, formatLsn, parseLsn, PRIMARY_ONLY, REPLAY_POSITION } from './replicas.js'
import { ReplicaSession, type SessionHost } from './session.js'
import { RecordCache, type RecordCacheOptions } from './record-cache.js'
import { settledPost } from './records.js'
import * as write from './write.js'

export interface SqlStorageOptions {
  driver: SqlDriver
  /** Run pending migrations on first use (default true). With false, call `migrate()` yourself. */
  migrate?: boolean
  /** Attempts of a transaction that keeps hitting serialization failures (default 8). */
  maxAttempts?: number
  /**
   * Where the storage reports what it could not set up but works without (an optional search
   * index the engine or role cannot create); one line each. Default console.warn.
   */
  log?: (line: string) => void
  /**
   * Decoded records of committed revisions, reused by later reads after a cheap `id, revision`
   * select (record-cache.ts): `{ maxBytes }` (default 16 MiB) or false.
   */
  recordCache?: RecordCacheOptions | false
}

export type SqlStorage = Storage & {
  /** Applies pending schema migrations (idempotent). */
  migrate(): Promise<void>
  /**
   * Upkeep of the search index, for a nightly job. SQLite: merges the FTS5 tables' segments into
   * one (writes wait meanwhile: about 12 s at 1M events), which searches then read far fewer of
   * (two words at 1M: 22 -> 14 ms). FTS5 merges a little on every commit but leaves up to 16
   * segments a level; nothing else ever merges them. PostgreSQL: nothing to do (autovacuum keeps
   * its indexes), it returns at once.
   */
  optimize(): Promise<void>
  close(): Promise<void>
}

/**
 * Most posts a transaction hands to the record cache at its commit. One that stores more (a
 * recurring series, an import's group) leaves them to the reads: settling and caching each cost
 * a quarter of what inserting it did (a 500-occurrence series took 1.24x as long), and few of
 * them are read soon.
 */
const STORED_FOR_CACHE = 32

/** `.catch` of a read: the database's error as the storage's own. */
const rethrowTranslated = (err: unknown): never => {
  throw translate(err)
}

/** Reads and writes on the transaction's own connection; unusable once the transaction ended. */
class Tx extends Reader implements StorageTx {
  finished = false
  /**
   * The posts this transaction stored, as a read would decode them, by id: the record cache gets
   * them once the transaction committed, so the first read after a write (a sync, a list) need
   * not load them again. Kept only when the storage has a cache, and only for a transaction that
   * stores a few (see STORED_FOR_CACHE).
   */
  stored: Map<number, PostRecord> | null

  constructor(
    private readonly db: Db,
    caching: boolean,
  ) {
    super()
    this.stored = caching ? new Map() : null
  }

  private note<T extends PostRecord | null>(rec: T): T {
    if (!rec || !this.stored) return rec
    if (this.stored.size >= STORED_FOR_CACHE && !this.stored.has(rec.id)) {
      this.stored = null
      return rec
    }
    const settled = settledPost(rec)
    if (settled) this.stored.set(rec.id, settled)
    else this.stored.delete(rec.id)
    return rec
  }

  protected async use<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    if (this.finished) throw new Error('This transaction has already finished')
    try {
      return await fn(this.db)
    } catch (err) {
      throw translate(err)
    }
  }

  async insertEvents(records: NewPost<'event'>[]) {
    // Too many for the cache (STORED_FOR_CACHE): none of them is settled.
    if (this.stored && this.stored.size + records.length > STORED_FOR_CACHE) this.stored = null
    const out = await this.use((db) => write.insertEvents(db, records))
    for (const rec of out) this.note(rec)
    return out
  }
  async insertPost<T extends PostType>(record: NewPost<T>) {
    return this.note(await this.use((db) => write.insertPost(db, record)))
  }
  reserveIds(head: number) {
    return this.use((db) => write.reserveIds(db, head))
  }
  async updatePost<T extends PostType>(id: number, type: T, patch: PostPatch<T>) {
    return this.note(await this.use((db) => write.updatePost(db, id, type, patch)))
  }
  unlinkPost(id: number) {
    return this.use((db) => write.unlinkPost(db, id))
  }
  deletePost(id: number) {
    this.stored?.delete(id)
    return this.use((db) => write.deletePost(db, id))
  }
  insertTerm(term: NewTerm) {
    return this.use((db) => write.insertTerm(db, term))
  }
  updateTerm(id: number, patch: TermPatch) {
    return this.use((db) => write.updateTerm(db, id, patch))
  }
  deleteTerm(id: number) {
    return this.use((db) => write.deleteTerm(db, id))
  }
  putImportLink(link: ImportLink) {
    return this.use((db) => upsertImportLink(db, link))
  }
  importLinksOf(recordIds: readonly number[]) {
    return this.use((db) => selectLinksOf(db, recordIds))
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

class SqlStorageImpl extends Reader implements SqlStorage {
  private readonly dialect: Dialect
  private queue: Promise<unknown> = Promise.resolve()
  private migrated: Promise<void> | null = null
  /** The search indexes reads may use, probed once per migration (see ready()). */
  private fts: Promise<SearchIndexes> | null = null
  /** What `fts` resolved to, once it has: reads then start without waiting on a settled promise. */
  private indexes: SearchIndexes | null = null
  private readonly journal: SqlJournal
  readonly otherWriters: OtherWriters
  readonly replicaReads?: ReplicaReads
  /**
   * With replicas: where the server of the latest journal read for the response cache stood
   * after it (a replica's replay position through a session that `follows`, the primary's
   * position through this storage itself): a cached read must come from a replica past it, or it
   * could keep what the cache has already dropped.
   */
  private journalFloor = 0n
  readonly webhooks: SqlWebhookStore
  readonly importLinks: SqlImportLinkStore

  constructor(
    private readonly driver: SqlDriver,
    private readonly autoMigrate: boolean,
    private readonly maxAttempts: number,
    private readonly log: (line: string) => void,
    private readonly records: RecordCache | null,
  ) {
    super()
    this.dialect = dialectFor(driver.dialect)
    this.journal = new SqlJournal(driver.dialect === 'postgres')
    this.webhooks = new SqlWebhookStore(
      (fn) => this.use(fn),
      (fn) => {
        const run = this.queue.then(() => this.write(fn))
        this.queue = run.catch(() => undefined)
        return run
      },
      driver.dialect === 'postgres',
    )
    this.importLinks = new SqlImportLinkStore(
      (fn) => this.use(fn),
      (fn) => {
        const run = this.queue.then(() => this.write(fn))
        this.queue = run.catch(() => undefined)
        return run
      },
    )
    this.replicaReads = this.replicaReadsOf(driver)
    const dataVersion = driver.dataVersion?.bind(driver)
    this.otherWriters =
      driver.dialect === 'postgres'
        ? { mode: 'poll', ahead: (limit) => this.use((db) => this.journal.ahead(db, limit)) }
        : {
            mode: 'check',
            version: dataVersion
              ? () => {
                  try {
                    const version = dataVersion()
                    return version instanceof Promise
                      ? version.catch((err: unknown) => {
                          throw translate(err)
                        })
                      : version
                  } catch (err) {
                    throw translate(err)
                  }
                }
              : () => this.journalHead(),
          }
  }

  /** Storage.replicaReads, when the driver knows where commits end (PostgreSQL). */
  private replicaReadsOf(driver: SqlDriver): ReplicaReads | undefined {
    const bookmark = driver.bookmark?.bind(driver)
    if (!bookmark) return undefined
    const replicas = driver.replicas
    const host: SessionHost | null = replicas
      ? { replicas, journal: this.journal, via: this.via.bind(this), followed: this.followed.bind(this) }
      : null
    return {
      bookmark() {
        const at = bookmark()
        return at === null ? null : formatLsn(at)
      },
      validBookmark: (text) => parseLsn(text) !== null,
      reading: (base, o) => {
        if (!host) return base
        // A bookmark that is none (the router refuses those first) could name any state: primary.
        let atLeast = o.bookmark === null ? 0n : (parseLsn(o.bookmark) ?? PRIMARY_ONLY)
        // A cached read must not keep what the cache dropped already: what the journal's readers
        // saw, and this process's own commits (dropped at once, never seen again in the journal).
        if (o.cached) for (const floor of [this.journalFloor, bookmark() ?? 0n]) if (floor > atLeast) atLeast = floor
        return new ReplicaSession(host, base, atLeast, o.follows === true)
      },
    }
  }

  async migrate(): Promise<void> {
    await checkEngine(this.driver).catch((err: unknown) => {
      throw translate(err)
    })
    try {
      await runMigrations(this.driver, this.dialect, undefined, this.log)
    } catch (err) {
      throw translate(err)
    }
    this.migrated = Promise.resolve()
    this.fts = null
    this.indexes = null
  }

  /**
   * The first use migrates (or, with `migrate: false`, checks the engine); a failed attempt is
   * forgotten so the next call tries again. Resolves to the search indexes reads may use.
   */
  private async ready(): Promise<SearchIndexes> {
    // Without auto-migration (migrations run in a deploy step) the engine is still checked at
    // the first use: an unsupported one is refused at start, not at some later write.
    this.migrated ??= (this.autoMigrate ? this.migrate() : checkEngine(this.driver)).catch((err: unknown) => {
      this.migrated = null
      throw translate(err)
    })
    await this.migrated
    this.fts ??= (
      this.driver.dialect === 'postgres'
        ? wordIndexState(this.driver).then((words) => ({ posts: false, events: false, words }))
        : searchIndexes(this.driver)
    ).then(
      (indexes) => (this.indexes = indexes),
      (err: unknown) => {
        this.fts = null
        throw translate(err)
      },
    )
    return this.fts
  }

  protected use<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    return this.via(null, fn).catch(rethrowTranslated)
  }

  /** A read on replica `replica`, or on the primary with null; errors as the database gave them. */
  private via<T>(replica: number | null, fn: (db: Db) => Promise<T>): Promise<T> {
    // Once ready, a read goes straight to the driver: awaiting settled promises cost each read
    // several turns of the microtask queue.
    const fts = this.indexes
    if (!fts) return this.ready().then(() => this.via(replica, fn))
    const run = (conn: SqlConnection) => fn(new Db(conn, this.dialect, fts.posts, fts.events, this.records, fts.words))
    try {
      return replica === null ? this.driver.read(run) : this.driver.replicas!.read(replica, run)
    } catch (err) {
      // A driver that throws at once (closed) fails the read as a rejection, as the async form did.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /**
   * With replicas, after a journal read on `db` for the cache's coherence (a replica session that
   * follows the journal): the floor moves to where that server stands now, which is at or past
   * the state the read saw (a replica's replay position, the primary's insert position).
   */
  private async followed(db: Db, onReplica: boolean): Promise<void> {
    const [row] = await db.conn.query<{ lsn: unknown }>(onReplica ? REPLAY_POSITION : COMMIT_POSITION)
    const at = parseLsn(columnText(row?.lsn ?? ''))
    if (at !== null && at > this.journalFloor) this.journalFloor = at
  }

  /** With replicas, the journal's readers' floor moves to the primary's position after their read. */
  private async raiseFloor(): Promise<void> {
    if (!this.driver.replicas || !this.driver.position) return
    try {
      const at = await this.driver.position()
      if (at > this.journalFloor) this.journalFloor = at
    } catch (err) {
      throw translate(err)
    }
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const onCommit = options?.onCommit
    const run = this.queue.then(async () => {
      let last: Tx | null = null
      const [result, entries] = await this.write(async (db) => {
        // The transaction's own journal entries are read back only for someone who wants them.
        const start = onCommit ? await this.journal.begin(db) : 0
        const tx = (last = new Tx(db, this.records !== null))
        let result: T
        try {
          result = await fn(tx)
        } finally {
          tx.finished = true
        }
        const entries: JournalEntry[] = onCommit ? collapseEntries(await this.journal.own(db, start, journalTime())) : []
        return [result, entries] as const
      })
      // Committed: each record is right for the revision it was stored at. One a later statement
      // of the same transaction moved on (a cascade's revision bump) is simply never asked for.
      for (const rec of last!.stored?.values() ?? []) this.records!.set(rec)
      onCommit?.(entries)
      return result
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  async readJournal(after: string, limit: number, until?: string): Promise<JournalPage> {
    const page = await this.use((db) => this.journal.read(db, after, limit, until))
    await this.raiseFloor()
    return page
  }

  async journalHead(): Promise<string> {
    const head = await this.use((db) => this.journal.head(db))
    await this.raiseFloor()
    return head
  }

  journalNames(ids: readonly number[]): Promise<JournalName[]> {
    return this.use((db) => this.journal.names(db, ids))
  }

  compactJournal(beforeUtc: string): Promise<number> {
    const run = this.queue.then(() => this.write((db) => this.journal.compact(db, beforeUtc)))
    this.queue = run.catch(() => undefined)
    return run
  }

  /**
   * Runs `fn` in a write transaction, again on a serialization failure or deadlock (a bounded
   * number of times, with jittered backoff), translating database errors.
   */
  private async write<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const fts = await this.ready()
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.driver.transaction((conn: SqlConnection) =>
          fn(new Db(conn, this.dialect, fts.posts, fts.events, null, fts.words)),
        )
      } catch (err) {
        const e = translate(err)
        if (!(e instanceof RetryTransaction)) throw e
        if (attempt >= this.maxAttempts) {
          throw new StorageUnavailableError('The transaction kept conflicting with concurrent writers', { cause: e.cause })
        }
        // Jittered exponential backoff: concurrent losers should not collide again in lockstep.
        await sleep(Math.random() * Math.min(200, 5 * 2 ** attempt))
      }
    }
  }

  async optimize(): Promise<void> {
    const indexes = await this.ready()
    const tables = [indexes.events ? EVENT_FTS_TABLE : null, indexes.posts ? FTS_TABLE : null].filter((t) => t !== null)
    // One table at a time, each in its own write (a writer waits for one, not both).
    for (const table of tables) {
      try {
        await this.driver.execute(`INSERT INTO ${table} (${table}) VALUES ('optimize')`)
      } catch (err) {
        throw translate(err)
      }
    }
  }

  async close(): Promise<void> {
    await this.queue
    await this.driver.close()
  }
}

/**
 * Storage on a SQL database. `driver` is `sqliteDriver(db)`, `pgDriver(pool)`, or what
 * `openSqliteFile(path)` / `openPostgres(url)` return.
 */
export function createSqlStorage(options: SqlStorageOptions): SqlStorage {
  return new SqlStorageImpl(
    options.driver,
    options.migrate !== false,
    Math.max(1, options.maxAttempts ?? 8),
    options.log ?? ((line) => console.warn(line)),
    options.recordCache === false ? null : new RecordCache(options.recordCache),
  )
}
