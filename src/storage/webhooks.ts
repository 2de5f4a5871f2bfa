/**
 * Webhooks as the storage keeps them: endpoints (where to send what) and deliveries (one POST
 * to one endpoint for one change, retried until it succeeds or gives up). Deliveries are made
 * from the change journal by a dispatcher that moves a cursor in the same transaction as it
 * adds them (a transactional outbox), so a committed change gets its deliveries even when the
 * process that wrote it dies right after the commit (docs/webhooks.md).
 */

export interface WebhookEndpoint {
  id: number
  url: string
  /** Event types (`event.created`, `venue.*`, `*`). */
  events: string[]
  description: string
  enabled: boolean
  /** `whsec_` + base64 of the key; signs every delivery. */
  secret: string
  /** The secret before the last rotation, still signing until `previousSecretUntil` (UTC). */
  previousSecret: string | null
  previousSecretUntil: string | null
  /** Why the endpoint was disabled by the runner (`gone`: it answered 410; `failing`: too long failing), null otherwise. */
  disabledReason: string | null
  /** Since when every delivery attempt failed (UTC), null after a success. */
  failingSince: string | null
  /** Declared in the router options rather than through the API (not editable there). */
  declared: boolean
  created: string
  modified: string
}

export type NewWebhookEndpoint = Omit<WebhookEndpoint, 'id'>
export type WebhookEndpointPatch = Partial<Omit<WebhookEndpoint, 'id' | 'created' | 'declared'>>

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface WebhookDelivery {
  /** `msg_...`: the `webhook-id` header, the same on every attempt (receivers dedupe by it). */
  id: string
  endpointId: number
  /** `event.created`, ... or `webhook.ping`. */
  type: string
  /** The JSON body, fixed when the delivery was made (so every attempt sends the same bytes). */
  payload: string
  status: DeliveryStatus
  attempts: number
  /** When to try next (UTC ISO with milliseconds), null once finished. */
  nextAttemptAt: string | null
  lastAttemptAt: string | null
  lastStatus: number | null
  /** The start of the last answer's body, or what went wrong (timeout, refused address). */
  lastResponse: string | null
  created: string
  /** The delivery this one sends again (a replay), null for one the dispatcher or a ping made. */
  replayOf: string | null
}

export type NewWebhookDelivery = Omit<
  WebhookDelivery,
  'status' | 'attempts' | 'lastAttemptAt' | 'lastStatus' | 'lastResponse' | 'replayOf'
> & {
  replayOf?: string | null
}

/** What a replay sends again: every delivery since a time, or one delivery. */
export type ReplaySelection = { since: string } | { delivery: string }

export interface AttemptOutcome {
  at: string
  status: number | null
  response: string | null
  /** Next attempt (UTC ISO), or null: finished. */
  next: string | null
  succeeded: boolean
}

/**
 * What a storage offers for webhooks. Every method is one atomic step. Finished deliveries stay
 * until `prune` removes them (router.compactJournal calls it with the retention options).
 */
export interface WebhookStore {
  listEndpoints(): Promise<WebhookEndpoint[]>
  getEndpoint(id: number): Promise<WebhookEndpoint | null>
  insertEndpoint(endpoint: NewWebhookEndpoint): Promise<WebhookEndpoint>
  updateEndpoint(id: number, patch: WebhookEndpointPatch): Promise<WebhookEndpoint | null>
  /** Removes the endpoint and its deliveries. */
  deleteEndpoint(id: number): Promise<boolean>
  /** The journal position the dispatcher has made deliveries up to; null before the first run. */
  cursor(): Promise<string | null>
  /**
   * Adds these deliveries and moves the cursor from `from` to `to`, in one step; false (and
   * nothing written) when the cursor was no longer at `from` (another process dispatched).
   */
  dispatch(from: string | null, to: string, deliveries: NewWebhookDelivery[]): Promise<boolean>
  /** Adds deliveries outside the journal's flow (a test ping, a replay). */
  addDeliveries(deliveries: NewWebhookDelivery[]): Promise<void>
  /**
   * Up to `limit` pending deliveries due at `now`, oldest first, that no other runner holds,
   * at most `perEndpoint` (default 1) of one endpoint, the oldest of its queue, and none of an
   * endpoint with a delivery held: each is held until `leaseUntil` (another runner skips it
   * meanwhile; a crashed runner's lease runs out). A runner sends one endpoint's in order.
   */
  claim(now: string, leaseUntil: string, limit: number, perEndpoint?: number): Promise<WebhookDelivery[]>
  /** Records an attempt and releases the lease. */
  finish(id: string, outcome: AttemptOutcome): Promise<void>
  /** Lets go of claimed deliveries without an attempt (a runner that stops early). */
  release(ids: string[]): Promise<void>
  /**
   * Records several attempts and lets go of other claimed deliveries, in one step: a runner
   * sends a claimed batch of one endpoint in order and records the outcomes together, so a
   * delivery costs a fraction of a write transaction.
   */
  settle(outcomes: Array<{ id: string; outcome: AttemptOutcome }>, release: string[]): Promise<void>
  getDelivery(id: string): Promise<WebhookDelivery | null>
  /** An endpoint's deliveries, newest first. */
  listDeliveries(endpointId: number, limit: number, offset: number): Promise<{ items: WebhookDelivery[]; total: number }>
  /**
   * Queues again, in one step, what a replay names, as new deliveries `make` builds: the
   * endpoint's deliveries made at or after `since` (UTC) by the dispatcher (never a replay, never
   * a ping), or one delivery by id; each only when no replay of it is still pending, so a replay
   * asked twice queues once. At most `limit`, oldest first; `more` says some were left for the
   * next call.
   */
  replay(
    endpointId: number,
    what: ReplaySelection,
    limit: number,
    make: (source: WebhookDelivery) => NewWebhookDelivery,
  ): Promise<{ queued: WebhookDelivery[]; more: boolean }>
  /**
   * Removes finished deliveries (succeeded or failed) whose last attempt was before
   * `finishedBefore`, and beyond the newest `keepPerEndpoint` finished ones of each endpoint;
   * pending deliveries stay. Returns how many were removed.
   */
  prune(finishedBefore: string, keepPerEndpoint: number): Promise<number>
}
