/**
 * Streaming replicas of a PostgreSQL primary, as the driver sees them: where each one's replay
 * stands and whether it may serve reads.
 *
 * Positions are WAL positions (LSNs, `X/Y` in hex), compared as numbers. A commit's bookmark is
 * the primary's insert position read right after its COMMIT returned, so a replica whose
 * `pg_last_wal_replay_lsn()` reached it has replayed that commit: on a hot standby, a commit is
 * visible exactly once its record is replayed.
 *
 * Health. While reads use the replicas, a poll every `pollMs` samples the primary's flushed
 * position and each replica's replay position (one tiny statement each). A replica is fresh when
 * it has replayed what the primary had flushed at most `maxLagMs` ago; one that errors, times
 * out or falls behind that is skipped until a later poll finds it fresh again. A read that fails
 * on a replica is run on the primary by the caller (storage/sql/session.ts), so a replica going
 * down costs readers nothing but that retry. The poll stops after a while without reads (its
 * timer never keeps the process alive); the replicas count as unknown then, and reads go to the
 * primary until the next poll has answered.
 */
import { classify } from './errors.js'

/** `X/Y`: the two 32-bit halves of a WAL position, in hex, as PostgreSQL prints them. */
const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/

export function parseLsn(text: string): bigint | null {
  const m = LSN_TEXT.exec(text)
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null
}

/** A position no replica ever reaches: the reads that must see it go to the primary. */
export const PRIMARY_ONLY = (1n << 64n) - 1n

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`
}

/**
 * Raised by a journal read on a replica that has not replayed up to the position asked for (a
 * sync token made on a server further ahead): the session reads it on the primary instead.
 */
export class ReplicaBehind extends Error {
  constructor(position: string) {
    super(`This replica has not replayed the journal up to ${position} yet`)
    this.name = 'ReplicaBehind'
  }
}

/** What the poll needs of a server: one statement, its rows. */
export interface LsnSource {
  query(text: string): Promise<{ rows: unknown[] }>
}

export interface ReplicaHealthOptions {
  /** Time between two polls of the replicas' positions (default 200 ms). */
  pollMs?: number
  /** A replica further behind the primary than this is skipped (default 5000 ms). */
  maxLagMs?: number
  /**
   * Why a server was set aside (it failed, timed out, is not a replica): `replica` is its index
   * in `replicas`, -1 for the primary. Told once each time a server goes from answering to not.
   */
  onError?: (err: Error, replica: number) => void
}

interface ReplicaState {
  /** The replay position the last poll read; null when unknown. */
  lsn: bigint | null
  fresh: boolean
  /** When this replica had last replayed what the primary had flushed (performance.now()). */
  caughtUpAt: number
}

/** A replica's replay position (every commit before it is visible there). */
export const REPLAY_POSITION = 'SELECT pg_last_wal_replay_lsn()::text AS lsn'
/**
 * Where a commit ended: the primary's insert position read right after COMMIT returned, so at or
 * past the commit record (whatever synchronous_commit says: the insert position counts records
 * not flushed yet). It may include other transactions' records too: a later position is as good.
 */
export const COMMIT_POSITION = 'SELECT pg_current_wal_insert_lsn()::text AS lsn'

/** Polls with no read asking for a replica before the poll stops. */
const IDLE_POLLS = 50
/** Samples of the primary's position kept: the lag bound needs those of the last maxLagMs. */
const MAX_SAMPLES = 256

const textOf = async (source: LsnSource, sql: string): Promise<string | null> => {
  const { rows } = await source.query(sql)
  const value = (rows[0] as { lsn?: unknown } | undefined)?.lsn
  return typeof value === 'string' ? value : null
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

export class ReplicaHealth {
  private readonly states: ReplicaState[]
  private readonly samples: { at: number; lsn: bigint }[] = []
  private readonly pollMs: number
  private readonly maxLagMs: number
  private turn = 0
  private lastAsked = -Infinity
  private timer: ReturnType<typeof setTimeout> | null = null
  private running = false
  private closed = false
  private primaryDown = false
  /** Reads each replica served, and reads sessions sent to the primary (for figures). */
  readonly served: number[]
  primaryReads = 0

  constructor(
    private readonly primary: LsnSource,
    private readonly replicas: readonly LsnSource[],
    private readonly o: ReplicaHealthOptions = {},
  ) {
    this.pollMs = Math.max(10, o.pollMs ?? 200)
    this.maxLagMs = Math.max(this.pollMs, o.maxLagMs ?? 5000)
    this.states = replicas.map(() => ({ lsn: null, fresh: false, caughtUpAt: -Infinity }))
    this.served = replicas.map(() => 0)
  }

  /**
   * A fresh replica that has replayed at least `atLeast` (any fresh one with null), taken in
   * turns; null: the read goes to the primary.
   */
  choose(atLeast: bigint | null): number | null {
    this.lastAsked = performance.now()
    if (!this.running && !this.closed) this.schedule(0)
    const n = this.states.length
    for (let k = 0; k < n; k++) {
      const i = (this.turn + k) % n
      const s = this.states[i]!
      if (s.fresh && s.lsn !== null && (atLeast === null || s.lsn >= atLeast)) {
        this.turn = i + 1
        return i
      }
    }
    return null
  }

  /**
   * When no replica is known to have reached `atLeast` (the poll's answers are up to `pollMs`
   * old, and a bookmark is usually younger), asks the fresh replica furthest ahead where it
   * stands now: one tiny statement, which spares the primary the read when the replica has
   * replayed the commit meanwhile (without an apply delay, usually within a millisecond).
   */
  async probe(atLeast: bigint): Promise<number | null> {
    let best: number | null = null
    for (const [i, s] of this.states.entries())
      if (s.fresh && s.lsn !== null && (best === null || s.lsn > this.states[best]!.lsn!)) best = i
    if (best === null) return null
    const s = this.states[best]!
    try {
      const lsn = parseLsn((await within(this.maxLagMs, textOf(this.replicas[best]!, REPLAY_POSITION))) ?? '')
      if (lsn === null) return null
      if (s.lsn === null || lsn > s.lsn) s.lsn = lsn
      return lsn >= atLeast && s.fresh ? best : null
    } catch (err) {
      this.failed(best, err)
      return null
    }
  }

  /** A read on replica `i` failed: one that cannot be reached is skipped until a poll finds it again. */
  failed(i: number, err: unknown): void {
    if (classify(err) === 'unavailable') this.states[i]!.fresh = false
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private schedule(ms: number): void {
    this.running = true
    this.timer = setTimeout(() => {
      this.timer = null
      if (this.closed) return
      if (performance.now() - this.lastAsked > IDLE_POLLS * this.pollMs) return this.idle()
      void this.poll().finally(() => {
        if (!this.closed) this.schedule(this.pollMs)
      })
    }, ms)
    this.timer.unref?.()
  }

  /** Nobody reads: stop, and forget what the replicas were (the next read goes to the primary). */
  private idle(): void {
    this.running = false
    for (const s of this.states) s.fresh = false
  }

  private async poll(): Promise<void> {
    const at = performance.now()
    try {
      const lsn = parseLsn((await within(this.maxLagMs, textOf(this.primary, 'SELECT pg_current_wal_flush_lsn()::text AS lsn'))) ?? '')
      if (lsn !== null) this.sample(at, lsn)
      this.primaryDown = false
    } catch (err) {
      // The primary is unreachable: its reads and writes fail on their own; the replicas are
      // judged by the samples taken so far, which age until they are too old.
      if (!this.primaryDown) this.o.onError?.(err instanceof Error ? err : new Error(String(err)), -1)
      this.primaryDown = true
    }
    await Promise.all(this.replicas.map((_, i) => this.pollReplica(i)))
  }

  private sample(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn })
    const old = performance.now() - this.maxLagMs * 2
    while (this.samples.length > MAX_SAMPLES || (this.samples.length > 1 && this.samples[0]!.at < old)) this.samples.shift()
  }

  private async pollReplica(i: number): Promise<void> {
    const s = this.states[i]!
    try {
      const text = await within(this.maxLagMs, textOf(this.replicas[i]!, REPLAY_POSITION))
      const lsn = text === null ? null : parseLsn(text)
      if (lsn === null) throw new Error('this server is not a streaming replica (pg_last_wal_replay_lsn() is null)')
      s.lsn = lsn
      // The newest sample of the primary this replica has replayed past: it lags by its age.
      for (let k = this.samples.length - 1; k >= 0; k--) {
        const sample = this.samples[k]!
        if (sample.lsn <= lsn) {
          s.caughtUpAt = Math.max(s.caughtUpAt, sample.at)
          break
        }
      }
      s.fresh = performance.now() - s.caughtUpAt <= this.maxLagMs
    } catch (err) {
      const wasFresh = s.fresh
      s.fresh = false
      s.lsn = null
      if (wasFresh || s.caughtUpAt !== -Infinity) this.o.onError?.(err instanceof Error ? err : new Error(String(err)), i)
      s.caughtUpAt = -Infinity
    }
  }
}
