/**
 * The webhook store on SQL (storage/webhooks.ts): endpoints, deliveries and the dispatcher's
 * cursor in three tables (migration 18). Every write is one transaction of the storage (its
 * queue, its retries); claiming holds a delivery with a lease, so a runner in another process
 * skips it, and a crashed runner's lease simply runs out. On PostgreSQL the claim also takes the
 * rows FOR UPDATE SKIP LOCKED, for deployments that turn the writer lock off.
 */
import type {
  AttemptOutcome,
  NewWebhookDelivery,
  NewWebhookEndpoint,
  ReplaySelection,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookStore,
} from '../webhooks.js'
import type { MigrationStatement } from './dialect.js'
import type { Db } from './db.js'
import { columnText, type SqlParam } from './driver.js'
import { toInt, type Row } from './records.js'

/**
 * Migration 20: what a claim reads stays small however long the queue: the held deliveries (a
 * partial index of the few with a lease) and the queue in sending order.
 */
export const WEBHOOK_QUEUE_DDL: MigrationStatement[] = [
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_leased ON webhook_deliveries (lease_until, endpoint_id) WHERE lease_until IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_queue ON webhook_deliveries (status, created, id)`,
  // Processes starting together declare their option endpoints once (router/webhooks.ts).
  `CREATE UNIQUE INDEX IF NOT EXISTS webhook_endpoints_declared ON webhook_endpoints (url) WHERE declared = TRUE`,
]

/**
 * Migration 25: which delivery a replay sends again (a replay never copies a replay, and one
 * still pending is not queued twice), found through a partial index of the replays.
 */
export const WEBHOOK_REPLAY_DDL: MigrationStatement[] = [
  `ALTER TABLE webhook_deliveries ADD COLUMN replay_of {text}`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_replays ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL`,
]

export const WEBHOOK_DDL: MigrationStatement[] = [
  `CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id {id}, url {text} NOT NULL, events {text} NOT NULL, description {text} NOT NULL, enabled {bool} NOT NULL,
    secret {text} NOT NULL, previous_secret {text}, previous_secret_until {text}, disabled_reason {text},
    failing_since {text}, declared {bool} NOT NULL, created {text} NOT NULL, modified {text} NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id {text} PRIMARY KEY, endpoint_id {int} NOT NULL, type {text} NOT NULL, payload {text} NOT NULL,
    status {text} NOT NULL, attempts {int} NOT NULL, next_attempt_at {text}, last_attempt_at {text},
    last_status {int}, last_response {text}, created {text} NOT NULL, lease_until {text})`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created)`,
  `CREATE TABLE IF NOT EXISTS webhook_cursor (one {int} PRIMARY KEY, position {text})`,
]

const ENDPOINT_COLUMNS =
  'id, url, events, description, enabled, secret, previous_secret, previous_secret_until, disabled_reason, failing_since, declared, created, modified'
const DELIVERY_COLUMNS =
  'id, endpoint_id, type, payload, status, attempts, next_attempt_at, last_attempt_at, last_status, last_response, created, replay_of'

const text = (v: unknown) => (v === null || v === undefined ? null : columnText(v))
const flag = (v: unknown) => v === true || v === 1 || v === '1' || v === 't'

function endpointOf(r: Row): WebhookEndpoint {
  return {
    id: toInt(r.id),
    url: String(r.url),
    events: JSON.parse(String(r.events)) as string[],
    description: String(r.description),
    enabled: flag(r.enabled),
    secret: String(r.secret),
    previousSecret: text(r.previous_secret),
    previousSecretUntil: text(r.previous_secret_until),
    disabledReason: text(r.disabled_reason),
    failingSince: text(r.failing_since),
    declared: flag(r.declared),
    created: String(r.created),
    modified: String(r.modified),
  }
}

function deliveryOf(r: Row): WebhookDelivery {
  return {
    id: String(r.id),
    endpointId: toInt(r.endpoint_id),
    type: String(r.type),
    payload: String(r.payload),
    status: String(r.status) as WebhookDelivery['status'],
    attempts: toInt(r.attempts),
    nextAttemptAt: text(r.next_attempt_at),
    lastAttemptAt: text(r.last_attempt_at),
    lastStatus: r.last_status === null || r.last_status === undefined ? null : toInt(r.last_status),
    lastResponse: text(r.last_response),
    created: String(r.created),
    replayOf: text(r.replay_of),
  }
}

/** The patchable fields and their columns. */
const PATCH_COLUMNS: Array<[keyof WebhookEndpointPatch, string]> = [
  ['url', 'url'],
  ['events', 'events'],
  ['description', 'description'],
  ['enabled', 'enabled'],
  ['secret', 'secret'],
  ['previousSecret', 'previous_secret'],
  ['previousSecretUntil', 'previous_secret_until'],
  ['disabledReason', 'disabled_reason'],
  ['failingSince', 'failing_since'],
  ['modified', 'modified'],
]

const encodeValue = (key: keyof WebhookEndpointPatch, v: unknown): SqlParam => (key === 'events' ? JSON.stringify(v) : (v as SqlParam))

export class SqlWebhookStore implements WebhookStore {
  constructor(
    /** A read outside any transaction. */
    private readonly read: <T>(fn: (db: Db) => Promise<T>) => Promise<T>,
    /** A write transaction of the storage (queued, retried). */
    private readonly write: <T>(fn: (db: Db) => Promise<T>) => Promise<T>,
    private readonly postgres: boolean,
  ) {}

  listEndpoints() {
    return this.read(async (db) => (await db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY id`)).map(endpointOf))
  }

  getEndpoint(id: number) {
    return this.read(async (db) => {
      const [row] = await db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`, [id])
      return row ? endpointOf(row) : null
    })
  }

  insertEndpoint(e: NewWebhookEndpoint) {
    return this.write(async (db) => {
      const [row] = await db.query(
        `INSERT INTO webhook_endpoints (url, events, description, enabled, secret, previous_secret, previous_secret_until,
           disabled_reason, failing_since, declared, created, modified)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${ENDPOINT_COLUMNS}`,
        [
          e.url,
          JSON.stringify(e.events),
          e.description,
          e.enabled,
          e.secret,
          e.previousSecret,
          e.previousSecretUntil,
          e.disabledReason,
          e.failingSince,
          e.declared,
          e.created,
          e.modified,
        ],
      )
      return endpointOf(row as Row)
    })
  }

  updateEndpoint(id: number, patch: WebhookEndpointPatch) {
    return this.write(async (db) => {
      const sets = PATCH_COLUMNS.filter(([key]) => patch[key] !== undefined)
      if (sets.length) {
        await db.run(`UPDATE webhook_endpoints SET ${sets.map(([, c]) => `${c} = ?`).join(', ')} WHERE id = ?`, [
          ...sets.map(([key]) => encodeValue(key, patch[key])),
          id,
        ])
      }
      const [row] = await db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`, [id])
      return row ? endpointOf(row) : null
    })
  }

  deleteEndpoint(id: number) {
    return this.write(async (db) => {
      await db.run('DELETE FROM webhook_deliveries WHERE endpoint_id = ?', [id])
      return (await db.run('DELETE FROM webhook_endpoints WHERE id = ?', [id])).changes > 0
    })
  }

  cursor() {
    return this.read(async (db) => {
      const [row] = await db.query<{ position: unknown }>('SELECT position FROM webhook_cursor WHERE one = 1')
      return row ? text(row.position) : null
    })
  }

  dispatch(from: string | null, to: string, deliveries: NewWebhookDelivery[]) {
    return this.write(async (db) => {
      const [row] = await db.query<{ position: unknown }>('SELECT position FROM webhook_cursor WHERE one = 1')
      const at = row ? text(row.position) : null
      if (at !== from) return false
      if (row) await db.run('UPDATE webhook_cursor SET position = ? WHERE one = 1', [to])
      else await db.run('INSERT INTO webhook_cursor (one, position) VALUES (1, ?)', [to])
      await this.insert(db, deliveries)
      return true
    })
  }

  addDeliveries(deliveries: NewWebhookDelivery[]) {
    return this.write((db) => this.insert(db, deliveries))
  }

  private async insert(db: Db, deliveries: NewWebhookDelivery[]) {
    for (const d of deliveries) {
      await db.run(
        `INSERT INTO webhook_deliveries (id, endpoint_id, type, payload, status, attempts, next_attempt_at, created, replay_of)
         SELECT ?, ?, ?, ?, 'pending', 0, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)`,
        [d.id, d.endpointId, d.type, d.payload, d.nextAttemptAt, d.created, d.replayOf ?? null, d.endpointId],
      )
    }
  }

  claim(now: string, leaseUntil: string, limit: number, perEndpoint = 1) {
    return this.write(async (db) => {
      const rows = await db.query(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
           AND d.endpoint_id NOT IN (SELECT h.endpoint_id FROM webhook_deliveries h WHERE h.lease_until > ? AND h.status = 'pending')
         ORDER BY d.created, d.id LIMIT ?${this.postgres ? ' FOR UPDATE SKIP LOCKED' : ''}`,
        [now, now, now, limit * 4],
      )
      const taken = new Map<number, number>()
      const chosen: WebhookDelivery[] = []
      for (const r of rows) {
        const d = deliveryOf(r)
        if ((taken.get(d.endpointId) ?? 0) >= perEndpoint || chosen.length >= limit) continue
        taken.set(d.endpointId, (taken.get(d.endpointId) ?? 0) + 1)
        chosen.push(d)
      }
      for (const d of chosen) await db.run('UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?', [leaseUntil, d.id])
      return chosen
    })
  }

  finish(id: string, o: AttemptOutcome) {
    return this.settle([{ id, outcome: o }], [])
  }

  release(ids: string[]) {
    return this.settle([], ids)
  }

  settle(outcomes: Array<{ id: string; outcome: AttemptOutcome }>, release: string[]) {
    if (!outcomes.length && !release.length) return Promise.resolve()
    return this.write(async (db) => {
      for (const { id, outcome: o } of outcomes) {
        await db.run(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_response = ?,
             next_attempt_at = ?, status = ?, lease_until = NULL WHERE id = ?`,
          [o.at, o.status, o.response, o.next, o.succeeded ? 'succeeded' : o.next === null ? 'failed' : 'pending', id],
        )
      }
      for (const id of release) await db.run('UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ?', [id])
    })
  }

  getDelivery(id: string) {
    return this.read(async (db) => {
      const [row] = await db.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`, [id])
      return row ? deliveryOf(row) : null
    })
  }

  listDeliveries(endpointId: number, limit: number, offset: number) {
    return this.read(async (db) => {
      const [rows, count] = await Promise.all([
        db.query(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created DESC, id DESC LIMIT ? OFFSET ?`,
          [endpointId, limit, offset],
        ),
        db.query<{ n: unknown }>('SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?', [endpointId]),
      ])
      return { items: rows.map(deliveryOf), total: toInt(count[0]?.n ?? 0) }
    })
  }

  replay(endpointId: number, what: ReplaySelection, limit: number, make: (source: WebhookDelivery) => NewWebhookDelivery) {
    // One write transaction: two replays asked at once cannot both find no pending replay.
    return this.write(async (db) => {
      const unreplayed = `NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.replay_of = d.id AND r.status = 'pending')`
      const rows =
        'since' in what
          ? await db.query(
              `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
               WHERE d.endpoint_id = ? AND d.created >= ? AND d.type <> 'webhook.ping' AND d.replay_of IS NULL AND ${unreplayed}
               ORDER BY d.created, d.id LIMIT ?`,
              [endpointId, what.since, limit + 1],
            )
          : await db.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.endpoint_id = ? AND d.id = ? AND ${unreplayed}`, [
              endpointId,
              what.delivery,
            ])
      const copies = rows.slice(0, limit).map((r) => make(deliveryOf(r)))
      await this.insert(db, copies)
      const queued = copies.map((c): WebhookDelivery => ({
        ...c,
        replayOf: c.replayOf ?? null,
        status: 'pending',
        attempts: 0,
        lastAttemptAt: null,
        lastStatus: null,
        lastResponse: null,
      }))
      return { queued, more: rows.length > limit }
    })
  }

  prune(finishedBefore: string, keepPerEndpoint: number) {
    return this.write(async (db) => {
      const old = await db.run(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND COALESCE(last_attempt_at, created) < ?`, [
        finishedBefore,
      ])
      // Beyond the newest `keepPerEndpoint` finished ones of each endpoint.
      const many = await db.run(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM (
             SELECT id, ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY created DESC, id DESC) AS n
             FROM webhook_deliveries WHERE status <> 'pending') ranked
           WHERE n > ?)`,
        [keepPerEndpoint],
      )
      return old.changes + many.changes
    })
  }
}
