/**
 * The reads of one request on a PostgreSQL storage with replicas (Storage.replicaReads).
 *
 * The first read picks a replica that has replayed at least `atLeast` (the request's bookmark,
 * and for a cached read what the cache has already dropped); every later read of the request
 * goes to the same replica, whose state only moves forward. When none qualifies, or a read fails
 * there (down, a recovery conflict, a journal position it has not replayed yet), the read runs
 * on the primary, and so does the rest of the request: the primary holds everything any replica
 * showed, so the request never sees the data go back in time. That fallback is what keeps a
 * reader from a 5xx when a replica goes away.
 *
 * The response cache's coherence poll reads through such a session too (`follows`): the journal,
 * its held-back entries and the records it names, from one server; afterwards what the cache's
 * reads must reach moves to where that server stands (storage.ts, `journalFloor`).
 *
 * A sync page reads the journal and then the records it names: both come from one server that
 * has replayed past the token's positions (journal.ts refuses a replica behind them), so a page
 * served by a replica is the page the primary would have served at that replica's position.
 */
import type { JournalName, JournalPage } from '../journal.js'
import type { OtherWriters, Storage, StorageTx, TransactionOptions } from '../types.js'
import type { Db } from './db.js'
import type { SqlReplicas } from './driver.js'
import { translate } from './errors.js'
import type { SqlJournal } from './journal.js'
import { Reader } from './reader.js'

/** What a session needs of its storage. */
export interface SessionHost {
  readonly replicas: SqlReplicas
  readonly journal: SqlJournal
  /** Runs `fn` on replica `replica` (the primary with null), errors untranslated. */
  via<T>(replica: number | null, fn: (db: Db) => Promise<T>): Promise<T>
  /** After a journal read for the response cache on `db`: what cached reads must reach moves there. */
  followed(db: Db, onReplica: boolean): Promise<void>
}

export class ReplicaSession extends Reader implements Storage {
  /**
   * The replica this request reads from (null: the primary), chosen once, at its first read:
   * reads the request makes at the same time share the choice, so they all see one server.
   */
  private choice: Promise<number | null> | undefined

  constructor(
    private readonly host: SessionHost,
    private readonly base: Storage,
    private readonly atLeast: bigint | null,
    /** The response cache's coherence reads the journal through this session (see `followed`). */
    private readonly follows = false,
  ) {
    super()
  }

  private choose(): Promise<number | null> {
    const { replicas } = this.host
    return (this.choice ??= (async () => {
      const chosen = replicas.choose(this.atLeast)
      // A bookmark younger than the last poll: the replica may well have replayed it by now.
      if (chosen !== null || this.atLeast === null || this.atLeast === 0n) return chosen
      return replicas.probe(this.atLeast)
    })())
  }

  /** `fn` learns whether it runs on a replica (the journal checks the replica is not behind). */
  private async route<T>(fn: (db: Db, onReplica: boolean) => Promise<T>): Promise<T> {
    const { replicas } = this.host
    const replica = await this.choose()
    if (replica !== null) {
      try {
        return await this.host.via(replica, (db) => fn(db, true))
      } catch (err) {
        // Run again on the primary below, as is the rest of the request; a replica that cannot
        // be reached is set aside until its poll answers again.
        replicas.failed(replica, err)
        this.choice = Promise.resolve(null)
      }
    }
    replicas.primaryRead()
    try {
      return await this.host.via(null, (db) => fn(db, false))
    } catch (err) {
      throw translate(err)
    }
  }

  protected use<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    return this.route((db) => fn(db))
  }

  readJournal(after: string, limit: number, until?: string): Promise<JournalPage> {
    return this.route(async (db, onReplica) => {
      const page = await this.host.journal.read(db, after, limit, until, onReplica)
      if (this.follows) await this.host.followed(db, onReplica)
      return page
    })
  }

  async readAtLeast(position: string): Promise<void> {
    // The empty stretch up to `position`: a replica behind it refuses (journal.ts), which moves
    // this request to the primary.
    await this.readJournal(position, 1, position)
  }

  journalHead(): Promise<string> {
    return this.route(async (db, onReplica) => {
      const head = await this.host.journal.head(db)
      if (this.follows) await this.host.followed(db, onReplica)
      return head
    })
  }

  journalNames(ids: readonly number[]): Promise<JournalName[]> {
    return this.route((db) => this.host.journal.names(db, ids))
  }

  // Everything but reads goes to the storage the request would have used without replicas.

  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.base.transaction(fn, options)
  }
  compactJournal(beforeUtc: string): Promise<number> {
    return this.base.compactJournal(beforeUtc)
  }
  get otherWriters(): OtherWriters | undefined {
    const writers = this.base.otherWriters
    // The coherence's held-back entries come from the server its journal reads come from.
    if (!this.follows || writers?.mode !== 'poll') return writers
    return { mode: 'poll', ahead: (limit) => this.route((db) => this.host.journal.ahead(db, limit)) }
  }
  get webhooks() {
    return this.base.webhooks
  }
  get importLinks() {
    return this.base.importLinks
  }
}
