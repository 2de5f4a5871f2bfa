/**
 * The webhook store of the memory backend: endpoints and deliveries for the life of the process
 * (a restart forgets them, as it forgets the events). Pending deliveries are kept in a queue per
 * endpoint apart from the finished ones, so a claim looks at the queues' heads and the leases
 * held, never at the history; finished deliveries stay for the delivery log until `prune`.
 */
/* eslint-disable @typescript-eslint/require-await -- the memory webhook store implements a Promise-returning contract
   with synchronous work: `async` keeps its throws (not found, conflicts, bad input) rejections, as
   the SQL backend's are, for callers that chain `.catch` or `Promise.all` over it. */
import type {
  AttemptOutcome,
  NewWebhookDelivery,
  NewWebhookEndpoint,
  ReplaySelection,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookStore,
} from './webhooks.js'

/** Sending order: oldest first, then by id (ids made in the same millisecond sort in order). */
const byAge = (a: WebhookDelivery, b: WebhookDelivery) =>
  a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

const copy = (e: WebhookEndpoint): WebhookEndpoint => ({ ...e, events: [...e.events] })

export class MemoryWebhookStore implements WebhookStore {
  private endpoints = new Map<number, WebhookEndpoint>()
  /** Every delivery held, pending or finished, by id. */
  private deliveries = new Map<string, WebhookDelivery>()
  /** Each endpoint's pending deliveries, in sending order. */
  private queues = new Map<number, WebhookDelivery[]>()
  /** Each endpoint's finished deliveries, in the order they finished. */
  private finished = new Map<number, WebhookDelivery[]>()
  /** Claimed deliveries: their endpoint and until when they are held. */
  private leases = new Map<string, { endpointId: number; until: string }>()
  /** The pending replay of a delivery, by the delivery's id. */
  private replays = new Map<string, string>()
  private nextId = 1
  private position: string | null = null

  async listEndpoints() {
    return [...this.endpoints.values()].map(copy)
  }

  async getEndpoint(id: number) {
    const e = this.endpoints.get(id)
    return e ? copy(e) : null
  }

  async insertEndpoint(endpoint: NewWebhookEndpoint) {
    const e: WebhookEndpoint = { ...endpoint, events: [...endpoint.events], id: this.nextId++ }
    this.endpoints.set(e.id, e)
    this.queues.set(e.id, [])
    this.finished.set(e.id, [])
    return copy(e)
  }

  async updateEndpoint(id: number, patch: WebhookEndpointPatch) {
    const current = this.endpoints.get(id)
    if (!current) return null
    const next: WebhookEndpoint = { ...current, ...patch, id, events: [...(patch.events ?? current.events)] }
    this.endpoints.set(id, next)
    return copy(next)
  }

  async deleteEndpoint(id: number) {
    if (!this.endpoints.delete(id)) return false
    for (const d of [...(this.queues.get(id) ?? []), ...(this.finished.get(id) ?? [])]) this.forget(d)
    this.queues.delete(id)
    this.finished.delete(id)
    return true
  }

  private forget(d: WebhookDelivery): void {
    this.deliveries.delete(d.id)
    this.leases.delete(d.id)
    if (d.replayOf !== null && this.replays.get(d.replayOf) === d.id) this.replays.delete(d.replayOf)
  }

  async cursor() {
    return this.position
  }

  async dispatch(from: string | null, to: string, deliveries: NewWebhookDelivery[]) {
    if (this.position !== from) return false
    this.position = to
    await this.addDeliveries(deliveries)
    return true
  }

  async addDeliveries(deliveries: NewWebhookDelivery[]) {
    for (const d of deliveries) this.enqueue(d)
  }

  private enqueue(n: NewWebhookDelivery): WebhookDelivery | null {
    const queue = this.queues.get(n.endpointId)
    if (!queue) return null
    const d: WebhookDelivery = {
      ...n,
      replayOf: n.replayOf ?? null,
      status: 'pending',
      attempts: 0,
      lastAttemptAt: null,
      lastStatus: null,
      lastResponse: null,
    }
    this.deliveries.set(d.id, d)
    // Deliveries arrive in sending order nearly always: the insertion walks back a step or two.
    let at = queue.length
    while (at > 0 && byAge(queue[at - 1] as WebhookDelivery, d) > 0) at--
    queue.splice(at, 0, d)
    if (d.replayOf !== null) this.replays.set(d.replayOf, d.id)
    return d
  }

  /** Endpoints with a delivery held under a lease that has not run out. */
  private busy(now: string): Set<number> {
    const busy = new Set<number>()
    for (const [id, lease] of this.leases) {
      if (lease.until > now) busy.add(lease.endpointId)
      else this.leases.delete(id)
    }
    return busy
  }

  async claim(now: string, leaseUntil: string, limit: number, perEndpoint = 1) {
    const busy = this.busy(now)
    const due: WebhookDelivery[] = []
    for (const [endpointId, queue] of this.queues) {
      if (busy.has(endpointId)) continue
      let taken = 0
      for (const d of queue) {
        if (taken >= perEndpoint) break
        if (d.nextAttemptAt === null || d.nextAttemptAt > now) continue
        due.push(d)
        taken++
      }
    }
    const chosen = due.sort(byAge).slice(0, limit)
    for (const d of chosen) this.leases.set(d.id, { endpointId: d.endpointId, until: leaseUntil })
    return chosen.map((d) => ({ ...d }))
  }

  async finish(id: string, o: AttemptOutcome) {
    this.record(id, o)
  }

  private record(id: string, o: AttemptOutcome): void {
    const d = this.deliveries.get(id)
    if (!d) return
    Object.assign(d, {
      attempts: d.attempts + 1,
      lastAttemptAt: o.at,
      lastStatus: o.status,
      lastResponse: o.response,
      nextAttemptAt: o.next,
      status: o.succeeded ? 'succeeded' : o.next === null ? 'failed' : 'pending',
    } satisfies Partial<WebhookDelivery>)
    this.leases.delete(id)
    if (d.status === 'pending') return
    const queue = this.queues.get(d.endpointId) ?? []
    const at = queue.indexOf(d)
    if (at >= 0) queue.splice(at, 1)
    this.finished.get(d.endpointId)?.push(d)
    if (d.replayOf !== null && this.replays.get(d.replayOf) === d.id) this.replays.delete(d.replayOf)
  }

  async settle(outcomes: Array<{ id: string; outcome: AttemptOutcome }>, release: string[]) {
    for (const { id, outcome } of outcomes) this.record(id, outcome)
    for (const id of release) this.leases.delete(id)
  }

  async release(ids: string[]) {
    for (const id of ids) this.leases.delete(id)
  }

  async getDelivery(id: string) {
    const d = this.deliveries.get(id)
    return d ? { ...d } : null
  }

  /** An endpoint's deliveries, pending and finished, newest first. */
  private held(endpointId: number): WebhookDelivery[] {
    return [...(this.queues.get(endpointId) ?? []), ...(this.finished.get(endpointId) ?? [])].sort((a, b) => byAge(b, a))
  }

  async listDeliveries(endpointId: number, limit: number, offset: number) {
    const all = this.held(endpointId)
    return { items: all.slice(offset, offset + limit).map((d) => ({ ...d })), total: all.length }
  }

  async replay(endpointId: number, what: ReplaySelection, limit: number, make: (source: WebhookDelivery) => NewWebhookDelivery) {
    const sources = this.held(endpointId)
      .reverse()
      .filter((d) =>
        'since' in what ? d.created >= what.since && d.type !== 'webhook.ping' && d.replayOf === null : d.id === what.delivery,
      )
      .filter((d) => !this.replays.has(d.id))
    const queued = sources.slice(0, limit).map((d) => this.enqueue(make(d)) as WebhookDelivery)
    return { queued: queued.map((d) => ({ ...d })), more: sources.length > limit }
  }

  async prune(finishedBefore: string, keepPerEndpoint: number) {
    let removed = 0
    for (const [endpointId, list] of this.finished) {
      const newest = [...list].sort((a, b) => byAge(b, a))
      const keep = new Set(newest.filter((d) => (d.lastAttemptAt ?? d.created) >= finishedBefore).slice(0, keepPerEndpoint))
      const kept = list.filter((d) => keep.has(d))
      for (const d of list) if (!keep.has(d)) this.forget(d)
      removed += list.length - kept.length
      this.finished.set(endpointId, kept)
    }
    return removed
  }
}
