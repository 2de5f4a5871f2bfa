/**
 * The webhook store of the memory backend: endpoints and deliveries for the life of the
 * process (a restart forgets them, as it forgets the events).
 */
import type {
  AttemptOutcome,
  NewWebhookDelivery,
  NewWebhookEndpoint,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookStore,
} from './types.js'

interface Held {
  delivery: WebhookDelivery
  leaseUntil: string | null
}

export class MemoryWebhookStore implements WebhookStore {
  private endpoints = new Map<number, WebhookEndpoint>()
  private deliveries = new Map<string, Held>()
  private nextId = 1
  private position: string | null = null

  async listEndpoints() {
    return [...this.endpoints.values()].map((e) => ({ ...e, events: [...e.events] }))
  }

  async getEndpoint(id: number) {
    const e = this.endpoints.get(id)
    return e ? { ...e, events: [...e.events] } : null
  }

  async insertEndpoint(endpoint: NewWebhookEndpoint) {
    const e: WebhookEndpoint = { ...endpoint, events: [...endpoint.events], id: this.nextId++ }
    this.endpoints.set(e.id, e)
    return { ...e, events: [...e.events] }
  }

  async updateEndpoint(id: number, patch: WebhookEndpointPatch) {
    const current = this.endpoints.get(id)
    if (!current) return null
    const next: WebhookEndpoint = { ...current, ...patch, id, events: [...(patch.events ?? current.events)] }
    this.endpoints.set(id, next)
    return { ...next, events: [...next.events] }
  }

  async deleteEndpoint(id: number) {
    if (!this.endpoints.delete(id)) return false
    for (const [key, held] of this.deliveries) if (held.delivery.endpointId === id) this.deliveries.delete(key)
    return true
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
    for (const d of deliveries) {
      if (!this.endpoints.has(d.endpointId)) continue
      this.deliveries.set(d.id, {
        delivery: { ...d, status: 'pending', attempts: 0, lastAttemptAt: null, lastStatus: null, lastResponse: null },
        leaseUntil: null,
      })
    }
  }

  async claim(now: string, leaseUntil: string, limit: number, perEndpoint = 1) {
    const busy = new Set<number>()
    for (const held of this.deliveries.values()) if (held.leaseUntil !== null && held.leaseUntil > now) busy.add(held.delivery.endpointId)
    const due = [...this.deliveries.values()]
      .filter((h) => h.delivery.status === 'pending' && h.delivery.nextAttemptAt !== null && h.delivery.nextAttemptAt <= now)
      .filter((h) => !(h.leaseUntil !== null && h.leaseUntil > now))
      .sort((a, b) => (a.delivery.created < b.delivery.created ? -1 : a.delivery.created > b.delivery.created ? 1 : 0))
    const out: WebhookDelivery[] = []
    const taken = new Map<number, number>()
    for (const h of due) {
      if (out.length >= limit) break
      const id = h.delivery.endpointId
      if (busy.has(id) || (taken.get(id) ?? 0) >= perEndpoint) continue
      taken.set(id, (taken.get(id) ?? 0) + 1)
      h.leaseUntil = leaseUntil
      out.push({ ...h.delivery })
    }
    return out
  }

  async finish(id: string, o: AttemptOutcome) {
    const held = this.deliveries.get(id)
    if (!held) return
    const d = held.delivery
    held.delivery = {
      ...d,
      attempts: d.attempts + 1,
      lastAttemptAt: o.at,
      lastStatus: o.status,
      lastResponse: o.response,
      nextAttemptAt: o.next,
      status: o.succeeded ? 'succeeded' : o.next === null ? 'failed' : 'pending',
    }
    held.leaseUntil = null
  }

  async release(ids: string[]) {
    for (const id of ids) {
      const held = this.deliveries.get(id)
      if (held) held.leaseUntil = null
    }
  }

  async getDelivery(id: string) {
    const held = this.deliveries.get(id)
    return held ? { ...held.delivery } : null
  }

  async listDeliveries(endpointId: number, limit: number, offset: number) {
    const all = [...this.deliveries.values()]
      .map((h) => h.delivery)
      .filter((d) => d.endpointId === endpointId)
      .sort((a, b) => (a.created > b.created ? -1 : a.created < b.created ? 1 : a.id < b.id ? 1 : -1))
    return { items: all.slice(offset, offset + limit).map((d) => ({ ...d })), total: all.length }
  }

  async deliveriesSince(endpointId: number, since: string) {
    return [...this.deliveries.values()]
      .map((h) => h.delivery)
      .filter((d) => d.endpointId === endpointId && d.created >= since && d.type !== 'webhook.ping')
      .sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0))
      .map((d) => ({ ...d }))
  }
}
