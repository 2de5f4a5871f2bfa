/**
 * The memory backend's webhook store claims from its pending queues only (issue 38, finding 1:
 * its claim scanned every delivery ever held, so each claim grew with the history). A claim's
 * cost cannot be timed in a test; what it touches can be observed: every finished delivery the
 * store holds is made to record any read of its fields, and a claim must read none of them.
 */
import { describe, expect, it } from 'vitest'
import { MemoryWebhookStore } from '../../../src/storage/memory-webhooks.js'
import type { NewWebhookDelivery, NewWebhookEndpoint, WebhookDelivery } from '../../../src/storage/webhooks.js'

const T0 = Date.parse('2026-11-26T10:00:00.000Z')
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString()

const endpoint = (url: string): NewWebhookEndpoint => ({
  url,
  events: ['*'],
  description: '',
  enabled: true,
  secret: 'whsec_AAAA',
  previousSecret: null,
  previousSecretUntil: null,
  disabledReason: null,
  failingSince: null,
  declared: false,
  created: at(0),
  modified: at(0),
})

const delivery = (id: string, endpointId: number, seconds: number): NewWebhookDelivery => ({
  id,
  endpointId,
  type: 'event.updated',
  payload: '{}',
  nextAttemptAt: at(seconds),
  created: at(seconds),
})

/** Replaces every field of `d` with a getter that notes the read (the object stays the store's own). */
function watch(d: WebhookDelivery, reads: Set<string>): void {
  const id = d.id
  for (const [key, value] of Object.entries(d)) {
    Object.defineProperty(d, key, {
      get() {
        reads.add(`${id}.${key}`)
        return value as unknown
      },
    })
  }
}

describe('the memory webhook store', () => {
  it('claims without reading any finished delivery, however many it holds', async () => {
    const store = new MemoryWebhookStore()
    const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
    const b = await store.insertEndpoint(endpoint('https://b.example/hook'))
    const history = Array.from({ length: 500 }, (_, i) => delivery(`msg_old${String(i).padStart(4, '0')}`, i % 2 ? a.id : b.id, i))
    await store.addDeliveries(history)
    for (const d of history) {
      await store.finish(d.id, {
        at: at(600),
        status: d.id.endsWith('7') ? 500 : 200,
        response: 'ok',
        next: null,
        succeeded: !d.id.endsWith('7'),
      })
    }
    await store.addDeliveries([delivery('msg_new1', a.id, 700), delivery('msg_new2', b.id, 701)])

    // The store's own objects: reached through its private map, since nothing public hands them out.
    const held = (store as unknown as { deliveries: Map<string, WebhookDelivery> }).deliveries
    const reads = new Set<string>()
    let finished = 0
    for (const d of held.values()) {
      if (d.status === 'pending') continue
      watch(d, reads)
      finished++
    }
    expect(finished).toBe(500)

    const claimed = await store.claim(at(800), at(830), 10, 25)
    expect(claimed.map((d) => d.id)).toEqual(['msg_new1', 'msg_new2'])
    expect([...reads]).toEqual([])
    // The history is still there for the delivery log (and reading it is what the watch sees).
    expect((await store.listDeliveries(a.id, 1000, 0)).total).toBe(251)
    expect(reads.size).toBeGreaterThan(0)
  })
})
