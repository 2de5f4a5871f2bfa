/**
 * Turns the change journal into deliveries and sends them (docs/webhooks.md).
 *
 * - dispatch: reads the journal from the store's cursor and, for every entry, adds one delivery
 *   per enabled endpoint that wants its type, with the payload fixed now (the record as an
 *   administrator reads it, with its revision); the cursor moves in the same step, so a change
 *   gets its deliveries exactly once whatever process runs this and whenever it died.
 * - deliver: claims due deliveries (held under a lease, one per endpoint), sends them
 *   concurrently (one slow receiver holds only its own endpoint), and records each attempt:
 *   2xx succeeds; anything else, a timeout or a network error is tried again on the schedule,
 *   with jitter, or after the receiver's Retry-After; 410 disables the endpoint; an endpoint
 *   failing for `disableAfterDays` is disabled.
 */
import type { JournalEntry } from '../storage/journal.js'
import { JournalPositionError } from '../storage/journal.js'
import type { Storage } from '../storage/types.js'
import { messageId, signatureHeader } from './signature.js'
import { send, type SendResult } from './sender.js'
import type { AttemptOutcome, NewWebhookDelivery, WebhookDelivery, WebhookEndpoint, WebhookStore } from '../storage/webhooks.js'

export interface WebhookRunnerOptions {
  /** Deliver to private, loopback and link-local addresses (development and tests only). */
  allowPrivate: boolean
  /** How long one attempt may take. */
  timeoutMs: number
  /** Seconds to wait before each retry: the first attempt is immediate, then these, then give up. */
  retrySchedule: readonly number[]
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterDays: number
  /** Deliveries sent at once (each to another endpoint). */
  concurrency: number
  /** How often the background loop looks for work, besides being woken by this process's commits. */
  pollMs: number
  /** Bytes of each answer kept in the delivery log. */
  keepBytes: number
  /** How long a claimed delivery is held: a runner that died holding it is replaced after this. */
  leaseMs: number
  /** Deliveries of one endpoint claimed at once, sent in order and recorded in one transaction. */
  batchSize: number
}

/**
 * What a journal entry becomes: the event type and the data of its payload (null: nothing to
 * send), its record read through `reads` (the view the entry's journal page was read through).
 */
export type Render = (entry: JournalEntry, reads: Storage) => Promise<{ type: string; data: unknown } | null>

export interface RunReport {
  dispatched: number
  attempted: number
  succeeded: number
}

/** `event.created` from an entry: the kind, and what happened to it (trash and delete are both a deletion). */
export function eventType(entry: Pick<JournalEntry, 'kind' | 'action'>): string {
  const what = entry.action === 'create' ? 'created' : entry.action === 'update' || entry.action === 'count' ? 'updated' : 'deleted'
  return `${entry.kind}.${what}`
}

/** Whether an endpoint wants a type: `*`, the type itself, or `kind.*`. */
export function wants(endpoint: Pick<WebhookEndpoint, 'events'>, type: string): boolean {
  const kind = type.split('.')[0]
  return endpoint.events.some((e) => e === '*' || e === type || e === `${kind}.*`)
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Claimed deliveries grouped by endpoint, each group in claim (queue) order. */
function byEndpoint(batch: WebhookDelivery[]): WebhookDelivery[][] {
  const groups = new Map<number, WebhookDelivery[]>()
  for (const d of batch) {
    const g = groups.get(d.endpointId)
    if (g) g.push(d)
    else groups.set(d.endpointId, [d])
  }
  return [...groups.values()]
}

export class WebhookRunner {
  private timer: ReturnType<typeof setInterval> | null = null
  private dispatching: Promise<number> | null = null
  private again = false
  private filling = false
  private inflight = 0
  /** The background chains under way, for `stop` to wait on. */
  private readonly chains = new Set<Promise<unknown>>()
  /** Set by `stop`: chains under way let their remaining deliveries go instead of attempting them. */
  private halted = false

  constructor(
    private readonly storage: Storage,
    private readonly store: WebhookStore,
    private readonly options: WebhookRunnerOptions,
    private readonly render: Render,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Where the dispatcher starts on a store that never ran: the journal's head, so that a site
   * adding its first endpoint is not sent its whole history.
   */
  async ensureCursor(): Promise<void> {
    if ((await this.store.cursor()) !== null) return
    await this.store.dispatch(null, await this.storage.journalHead(), [])
  }

  /**
   * Where a round of the dispatcher reads the journal and the records: with read replicas, one
   * that has replayed this process's own last commit (which woke the runner), else the primary;
   * a replica behind the cursor refuses the journal read and the round reads the primary. The
   * cursor and the deliveries are written on the primary, the cursor compared as before, so a
   * change still gets its deliveries exactly once; a payload shows its record as that server has
   * it, at or past the entry's commit, as it would on the primary a moment earlier.
   */
  private reads(): Storage {
    const replicas = this.storage.replicaReads
    return replicas ? replicas.reading(this.storage, { bookmark: replicas.bookmark(), cached: false }) : this.storage
  }

  /** Makes deliveries of the journal entries since the cursor. */
  async dispatch(): Promise<number> {
    let made = 0
    for (let round = 0; round < 1000; round++) {
      const from = await this.store.cursor()
      if (from === null) {
        await this.ensureCursor()
        continue
      }
      const reads = this.reads()
      let page
      try {
        page = await reads.readJournal(from, 200)
      } catch (err) {
        if (!(err instanceof JournalPositionError)) throw err
        // The journal was compacted past the cursor (no runner ran for longer than the
        // retention): what is lost is reported, and dispatching goes on from the head.
        this.onError(new Error(`webhooks: the journal no longer covers position ${from}; changes before the head were not delivered`))
        await this.store.dispatch(from, await this.storage.journalHead(), [])
        continue
      }
      // Nothing new: the cursor stays (moving it would be a write for nothing; on PostgreSQL the
      // position moves with every transaction, the runner's own included).
      if (page.entries.length === 0) return made
      const endpoints = (await this.store.listEndpoints()).filter((e) => e.enabled)
      const deliveries: NewWebhookDelivery[] = []
      const now = Date.now()
      for (const entry of page.entries) {
        const type = eventType(entry)
        const targets = endpoints.filter((e) => wants(e, type))
        if (!targets.length) continue
        const rendered = await this.render(entry, reads)
        if (!rendered) continue
        const payload = JSON.stringify({ type: rendered.type, timestamp: iso(now), data: rendered.data })
        for (const e of targets) {
          deliveries.push({ id: messageId(), endpointId: e.id, type: rendered.type, payload, nextAttemptAt: iso(now), created: iso(now) })
        }
      }
      if (await this.store.dispatch(from, page.next, deliveries)) made += deliveries.length
      if (!page.more && page.next === from) return made
      if (!page.more) return made
    }
    return made
  }

  /**
   * Sends the deliveries due now, `concurrency` endpoints at a time, until none is left or
   * `deadline` (epoch ms) passes. Each worker claims the head of one endpoint's queue (up to
   * `batchSize` deliveries, one claim) and sends them in order: a slow receiver holds one
   * worker, the others go on with other endpoints.
   */
  async deliver(deadline = Infinity): Promise<{ attempted: number; succeeded: number }> {
    let attempted = 0
    let succeeded = 0
    const worker = async () => {
      while (Date.now() < deadline) {
        const batch = await this.claim(this.options.batchSize, this.options.batchSize)
        if (!batch.length) return
        for (const chain of byEndpoint(batch)) {
          const r = await this.chain(chain, deadline)
          attempted += r.attempted
          succeeded += r.succeeded
        }
      }
    }
    await Promise.all(Array.from({ length: this.options.concurrency }, worker))
    return { attempted, succeeded }
  }

  private claim(limit: number, perEndpoint: number): Promise<WebhookDelivery[]> {
    const now = Date.now()
    return this.store.claim(iso(now), iso(now + this.options.leaseMs), limit, perEndpoint)
  }

  /**
   * One endpoint's claimed deliveries, in order. After a failure (its retry is scheduled) or
   * when the lease would not cover another full attempt, the rest are let go for a later claim.
   * The outcomes are recorded together when the chain ends, with the release of the rest: one
   * write transaction for the batch, not one per attempt (a runner that dies meanwhile leaves
   * its leases to run out, and the batch is sent again with the same webhook-ids).
   */
  private async chain(list: WebhookDelivery[], deadline = Infinity): Promise<{ attempted: number; succeeded: number }> {
    const claimedAt = Date.now()
    const outcomes: Array<{ id: string; outcome: AttemptOutcome }> = []
    let rest: WebhookDelivery[] = []
    let succeeded = 0
    let endpoint = await this.store.getEndpoint((list[0] as WebhookDelivery).endpointId)
    try {
      for (let i = 0; i < list.length; i++) {
        const leaseLeft = claimedAt + this.options.leaseMs - Date.now()
        if (leaseLeft < this.options.timeoutMs + 5_000 || Date.now() >= deadline || this.halted) {
          rest = list.slice(i)
          break
        }
        const d = list[i] as WebhookDelivery
        const { outcome, gone } = await this.attempt(endpoint, d)
        outcomes.push({ id: d.id, outcome })
        // A disabled or deleted endpoint's deliveries fail without an attempt: nothing to track.
        if (endpoint?.enabled) endpoint = await this.track(endpoint, outcome.succeeded, gone, new Date(outcome.at))
        if (outcome.succeeded) succeeded++
        else {
          rest = list.slice(i + 1)
          break
        }
      }
    } finally {
      await this.store.settle(
        outcomes,
        rest.map((d) => d.id),
      )
    }
    return { attempted: outcomes.length, succeeded }
  }

  /** One attempt, to an endpoint as the chain last saw it; the outcome is recorded by the chain. */
  private async attempt(endpoint: WebhookEndpoint | null, d: WebhookDelivery): Promise<{ outcome: AttemptOutcome; gone: boolean }> {
    const at = new Date()
    if (!endpoint || !endpoint.enabled) {
      return { outcome: { at: at.toISOString(), status: null, response: 'endpoint disabled', next: null, succeeded: false }, gone: false }
    }
    const timestamp = Math.floor(at.getTime() / 1000)
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'calendar-events-router webhooks',
      'webhook-id': d.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signatureHeader(endpoint, d.id, timestamp, d.payload, at),
    }
    let result: SendResult
    try {
      result = await send(endpoint.url, headers, d.payload, {
        timeoutMs: this.options.timeoutMs,
        allowPrivate: this.options.allowPrivate,
        keepBytes: this.options.keepBytes,
      })
    } catch (err) {
      result = { status: null, response: err instanceof Error ? err.message : String(err), retryAfterMs: null }
    }
    const ok = result.status !== null && result.status >= 200 && result.status < 300
    const gone = result.status === 410
    const next = ok || gone ? null : this.nextAttempt(d.attempts + 1, result.retryAfterMs)
    const outcome = {
      at: at.toISOString(),
      status: result.status,
      response: result.response.slice(0, this.options.keepBytes),
      next,
      succeeded: ok,
    }
    return { outcome, gone }
  }

  /** When to try again after `attempts` failed ones: the schedule with ±20% jitter, or Retry-After. */
  private nextAttempt(attempts: number, retryAfterMs: number | null): string | null {
    const schedule = this.options.retrySchedule
    if (attempts > schedule.length) return null
    const base = (schedule[attempts - 1] as number) * 1000
    const jittered = base * (0.8 + Math.random() * 0.4)
    return iso(Date.now() + Math.max(jittered, retryAfterMs ?? 0))
  }

  /**
   * Keeps the endpoint's failure state: 410 disables it, and so does failing for too long. Writes
   * only when the state changes; returns the endpoint as it now is (null: gone meanwhile).
   */
  private async track(endpoint: WebhookEndpoint, ok: boolean, gone: boolean, at: Date): Promise<WebhookEndpoint | null> {
    const stamp = at.toISOString()
    if (ok) return endpoint.failingSince === null ? endpoint : this.store.updateEndpoint(endpoint.id, { failingSince: null })
    if (gone) return this.store.updateEndpoint(endpoint.id, { enabled: false, disabledReason: 'gone', modified: stamp })
    const since = endpoint.failingSince ?? stamp
    const tooLong = at.getTime() - Date.parse(since) >= this.options.disableAfterDays * 86_400_000
    if (tooLong)
      return this.store.updateEndpoint(endpoint.id, { enabled: false, disabledReason: 'failing', failingSince: since, modified: stamp })
    return endpoint.failingSince === null ? this.store.updateEndpoint(endpoint.id, { failingSince: since }) : endpoint
  }

  /**
   * One pass: dispatch what the journal holds, then deliver what is due, for at most `maxMs`
   * (a host's scheduler calls this where no process lives long).
   */
  async runOnce(maxMs = 25_000): Promise<RunReport> {
    this.halted = false
    const deadline = Date.now() + maxMs
    const dispatched = await this.dispatchOnce()
    const { attempted, succeeded } = await this.deliver(deadline)
    return { dispatched, attempted, succeeded }
  }

  /** One dispatch at a time per process (another one asked meanwhile runs right after). */
  private dispatchOnce(): Promise<number> {
    if (this.dispatching) {
      this.again = true
      return this.dispatching
    }
    this.dispatching = (async () => {
      let made = 0
      do {
        this.again = false
        made += await this.dispatch()
      } while (this.again)
      return made
    })().finally(() => {
      this.dispatching = null
    })
    return this.dispatching
  }

  /** Runs in the background: every `pollMs`, and at once after this process's commits (wake). */
  start(): void {
    this.halted = false
    if (this.timer) return
    this.timer = setInterval(() => this.wake(), this.options.pollMs)
    this.timer.unref?.()
    this.wake()
  }

  /**
   * Looks for work now (a commit happened, an attempt ended): dispatches, then fills the free
   * delivery slots. Attempts run on their own; none waits for another.
   */
  wake(): void {
    if (!this.timer) return
    // Sending does not wait for the dispatcher: while commits keep landing during its reads, its
    // loop (dispatchOnce) goes round again and again, and deliveries already made would wait
    // until the writers paused (issue 38: none sent for a minute on a loaded host).
    this.fill().catch((err: unknown) => this.onError(err))
    this.dispatchOnce()
      .then(() => this.fill())
      .catch((err: unknown) => this.onError(err))
  }

  private async fill(): Promise<void> {
    if (this.filling) return
    this.filling = true
    try {
      while (this.timer && this.inflight < this.options.concurrency) {
        // One claim for every free slot (a claim is a write transaction), each slot one endpoint's chain.
        const free = this.options.concurrency - this.inflight
        const batch = await this.claim(free * this.options.batchSize, this.options.batchSize)
        for (const chain of byEndpoint(batch)) {
          this.inflight++
          const running: Promise<void> = this.chain(chain)
            .then(() => undefined)
            .catch((err: unknown) => this.onError(err))
            .finally(() => {
              this.inflight--
              this.chains.delete(running)
              this.wake()
            })
          this.chains.add(running)
        }
        if (batch.length === 0) return
      }
    } finally {
      this.filling = false
    }
  }

  /**
   * Stops looking for work; resolves once the attempts under way have ended and their outcomes
   * are stored (the rest of their chains are let go for another process's claim), so a server
   * may close its storage after it.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.halted = true
    while (this.chains.size) await Promise.allSettled([...this.chains])
  }
}
