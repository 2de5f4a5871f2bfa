/**
 * The storage contract's webhook store: endpoints, the dispatcher's cursor moved with its
 * deliveries in one step, claims that hold one delivery per endpoint under a lease, attempts.
 */
import assert from 'node:assert/strict'
import type { Storage } from '../storage/types.js'
import type { NewWebhookDelivery, NewWebhookEndpoint } from '../storage/webhooks.js'

type It = (name: string, fn: () => Promise<void>) => void
type WithStorage = (fn: (s: Storage) => Promise<void>) => () => Promise<void>

const T0 = '2026-11-26T10:00:00.000Z'
const later = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString()

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
  created: T0,
  modified: T0,
})

const delivery = (id: string, endpointId: number, created = T0): NewWebhookDelivery => ({
  id,
  endpointId,
  type: 'event.created',
  payload: `{"id":"${id}"}`,
  nextAttemptAt: created,
  created,
})

export function webhookContract(it: It, withStorage: WithStorage): void {
  it(
    'keeps endpoints: insert, list, update, delete (with their deliveries)',
    withStorage(async (s) => {
      const store = s.webhooks
      assert.ok(store, 'the backend offers a webhook store')
      const a = await store.insertEndpoint({ ...endpoint('https://a.example/hook'), events: ['event.created', 'venue.*'] })
      const b = await store.insertEndpoint(endpoint('https://b.example/hook'))
      assert.notEqual(a.id, b.id)
      assert.deepEqual((await store.getEndpoint(a.id))?.events, ['event.created', 'venue.*'])
      const updated = await store.updateEndpoint(a.id, { enabled: false, disabledReason: 'gone', modified: later(1) })
      assert.equal(updated?.enabled, false)
      assert.equal(updated?.disabledReason, 'gone')
      assert.equal(updated?.url, 'https://a.example/hook')
      assert.equal(await store.updateEndpoint(999_999, { enabled: true }), null)
      await store.addDeliveries([delivery('msg_1', a.id), delivery('msg_2', b.id)])
      assert.equal(await store.deleteEndpoint(a.id), true)
      assert.equal(await store.deleteEndpoint(a.id), false)
      assert.deepEqual(
        (await store.listEndpoints()).map((e) => e.id),
        [b.id],
      )
      assert.equal(await store.getDelivery('msg_1'), null)
      assert.equal((await store.getDelivery('msg_2'))?.status, 'pending')
    }),
  )

  it(
    'moves the dispatch cursor with its deliveries in one step, only from where it stands',
    withStorage(async (s) => {
      const store = s.webhooks!
      const e = await store.insertEndpoint(endpoint('https://a.example/hook'))
      assert.equal(await store.cursor(), null)
      assert.equal(await store.dispatch(null, 'p1', [delivery('msg_a', e.id)]), true)
      // A second dispatcher that read the cursor before: refused, nothing added.
      assert.equal(await store.dispatch(null, 'p1', [delivery('msg_b', e.id)]), false)
      assert.equal(await store.getDelivery('msg_b'), null)
      assert.equal(await store.cursor(), 'p1')
      assert.equal(await store.dispatch('p1', 'p2', []), true)
      assert.equal(await store.cursor(), 'p2')
      // A delivery for an endpoint deleted meanwhile is dropped.
      assert.equal(await store.dispatch('p2', 'p3', [delivery('msg_c', 999_999)]), true)
      assert.equal(await store.getDelivery('msg_c'), null)
    }),
  )

  it(
    'claims due deliveries one per endpoint under a lease, and records attempts',
    withStorage(async (s) => {
      const store = s.webhooks!
      const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
      const b = await store.insertEndpoint(endpoint('https://b.example/hook'))
      await store.addDeliveries([
        delivery('msg_a1', a.id, later(0)),
        delivery('msg_a2', a.id, later(1)),
        delivery('msg_b1', b.id, later(2)),
        { ...delivery('msg_b2', b.id, later(3)), nextAttemptAt: later(3600) },
      ])
      const first = await store.claim(later(10), later(40), 10)
      assert.deepEqual(
        first.map((d) => d.id),
        ['msg_a1', 'msg_b1'],
      )
      // Held: another runner gets nothing of these endpoints until the lease runs out.
      assert.deepEqual(await store.claim(later(11), later(41), 10), [])
      await store.finish('msg_a1', { at: later(12), status: 200, response: 'ok', next: null, succeeded: true })
      await store.finish('msg_b1', { at: later(12), status: 500, response: 'boom', next: later(20), succeeded: false })
      const next = await store.claim(later(13), later(43), 10)
      assert.deepEqual(
        next.map((d) => d.id),
        ['msg_a2'],
      )
      // A lease that ran out (a crashed runner) makes the delivery claimable again.
      const afterLease = await store.claim(later(50), later(80), 10)
      assert.deepEqual(afterLease.map((d) => d.id).sort(), ['msg_a2', 'msg_b1'])
      const b1 = await store.getDelivery('msg_b1')
      assert.equal(b1?.attempts, 1)
      assert.equal(b1?.lastStatus, 500)
      assert.equal(b1?.lastResponse, 'boom')
      assert.equal(b1?.status, 'pending')
      await store.finish('msg_b1', { at: later(51), status: 410, response: null, next: null, succeeded: false })
      assert.equal((await store.getDelivery('msg_b1'))?.status, 'failed')
      assert.equal((await store.getDelivery('msg_a1'))?.status, 'succeeded')
      const listed = await store.listDeliveries(b.id, 10, 0)
      assert.equal(listed.total, 2)
      assert.deepEqual(
        listed.items.map((d) => d.id),
        ['msg_b2', 'msg_b1'],
      )
    }),
  )

  it(
    "replays the dispatcher's deliveries since a time: never a replay or a ping, once while pending, at most the limit",
    withStorage(async (s) => {
      const store = s.webhooks!
      const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
      await store.addDeliveries([1, 2, 3].map((i) => delivery(`msg_r${i}`, a.id, later(i))))
      await store.addDeliveries([{ ...delivery('msg_ping', a.id, later(4)), type: 'webhook.ping' }])
      let n = 0
      const make = (d: { id: string; payload: string; type: string }): NewWebhookDelivery => ({
        ...delivery(`msg_copy${++n}`, a.id, later(10 + n)),
        type: d.type,
        payload: d.payload,
        replayOf: d.id,
      })
      const first = await store.replay(a.id, { since: later(2) }, 10, make)
      assert.deepEqual(
        first.queued.map((d) => [d.id, d.replayOf]),
        [
          ['msg_copy1', 'msg_r2'],
          ['msg_copy2', 'msg_r3'],
        ],
      )
      assert.equal(first.more, false)
      assert.equal((await store.getDelivery('msg_copy1'))?.replayOf, 'msg_r2')
      // Asked again while those are pending: nothing more; the replays themselves are never copied.
      assert.deepEqual(
        (await store.replay(a.id, { since: later(0) }, 10, make)).queued.map((d) => d.replayOf),
        ['msg_r1'],
      )
      assert.deepEqual((await store.replay(a.id, { since: later(0) }, 10, make)).queued, [])
      assert.deepEqual((await store.replay(a.id, { delivery: 'msg_r2' }, 10, make)).queued, [])
      // Once a replay has finished, the original can be replayed again.
      await store.finish('msg_copy1', { at: later(20), status: 200, response: 'ok', next: null, succeeded: true })
      assert.deepEqual(
        (await store.replay(a.id, { delivery: 'msg_r2' }, 10, make)).queued.map((d) => d.replayOf),
        ['msg_r2'],
      )
      // The limit: the oldest first, and `more` says some are left.
      const b = await store.insertEndpoint(endpoint('https://b.example/hook'))
      await store.addDeliveries([1, 2, 3].map((i) => delivery(`msg_b${i}`, b.id, later(i))))
      const capped = await store.replay(b.id, { since: later(0) }, 2, make)
      assert.deepEqual(
        capped.queued.map((d) => d.replayOf),
        ['msg_b1', 'msg_b2'],
      )
      assert.equal(capped.more, true)
      assert.deepEqual(
        (await store.replay(b.id, { since: later(0) }, 2, make)).queued.map((d) => d.replayOf),
        ['msg_b3'],
      )
    }),
  )

  it(
    'prunes finished deliveries past their age and beyond the newest few per endpoint, never pending ones',
    withStorage(async (s) => {
      const store = s.webhooks!
      const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
      const b = await store.insertEndpoint(endpoint('https://b.example/hook'))
      await store.addDeliveries([1, 2, 3, 4, 5].map((i) => delivery(`msg_a${i}`, a.id, later(i))))
      await store.addDeliveries([1, 2].map((i) => delivery(`msg_b${i}`, b.id, later(i))))
      for (const id of ['msg_a1', 'msg_a2', 'msg_a3', 'msg_a4', 'msg_b1', 'msg_b2']) {
        const at = id === 'msg_a1' ? later(10) : later(100)
        await store.finish(id, { at, status: id === 'msg_a2' ? 500 : 200, response: 'r', next: null, succeeded: id !== 'msg_a2' })
      }
      // a1 finished before the cutoff; of the rest, each endpoint keeps its newest two finished.
      assert.equal(await store.prune(later(50), 2), 2)
      const ids = async (e: number) => (await store.listDeliveries(e, 100, 0)).items.map((d) => d.id)
      assert.deepEqual(await ids(a.id), ['msg_a5', 'msg_a4', 'msg_a3'])
      assert.deepEqual(await ids(b.id), ['msg_b2', 'msg_b1'])
      assert.equal(await store.getDelivery('msg_a1'), null)
      // What the log keeps of a finished delivery stays whole.
      assert.equal((await store.getDelivery('msg_a4'))?.lastResponse, 'r')
      assert.equal(await store.prune(later(50), 2), 0)
      // The pending one is still claimed and sent.
      assert.deepEqual(
        (await store.claim(later(200), later(230), 10)).map((d) => d.id),
        ['msg_a5'],
      )
    }),
  )

  it(
    'claims the head of an endpoint queue in order, several at once, and lets go of what a runner did not send',
    withStorage(async (s) => {
      const store = s.webhooks!
      const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
      await store.addDeliveries([1, 2, 3, 4].map((i) => delivery(`msg_q${i}`, a.id, later(i))))
      const batch = await store.claim(later(10), later(40), 10, 3)
      assert.deepEqual(
        batch.map((d) => d.id),
        ['msg_q1', 'msg_q2', 'msg_q3'],
      )
      await store.finish('msg_q1', { at: later(11), status: 200, response: '', next: null, succeeded: true })
      // q2 failed: its retry is scheduled and q3 is let go unsent.
      await store.finish('msg_q2', { at: later(11), status: 500, response: '', next: later(100), succeeded: false })
      await store.release(['msg_q3'])
      assert.deepEqual(
        (await store.claim(later(12), later(42), 10, 3)).map((d) => d.id),
        ['msg_q3', 'msg_q4'],
      )
      assert.equal((await store.getDelivery('msg_q3'))?.attempts, 0)
    }),
  )

  it(
    'settles a sent batch in one step: outcomes recorded, the unsent let go',
    withStorage(async (s) => {
      const store = s.webhooks!
      const a = await store.insertEndpoint(endpoint('https://a.example/hook'))
      await store.addDeliveries([1, 2, 3].map((i) => delivery(`msg_s${i}`, a.id, later(i))))
      assert.equal((await store.claim(later(10), later(40), 10, 3)).length, 3)
      await store.settle(
        [
          { id: 'msg_s1', outcome: { at: later(11), status: 204, response: '', next: null, succeeded: true } },
          { id: 'msg_s2', outcome: { at: later(11), status: 503, response: 'later', next: later(100), succeeded: false } },
        ],
        ['msg_s3'],
      )
      const [s1, s2, s3] = await Promise.all(['msg_s1', 'msg_s2', 'msg_s3'].map((id) => store.getDelivery(id)))
      assert.equal(s1?.status, 'succeeded')
      assert.equal(s1?.attempts, 1)
      assert.equal(s1?.nextAttemptAt, null)
      assert.equal(s2?.status, 'pending')
      assert.equal(s2?.lastStatus, 503)
      assert.equal(s2?.nextAttemptAt, later(100))
      assert.equal(s3?.attempts, 0)
      // s3 was let go and is due; s2 waits for its retry.
      assert.deepEqual(
        (await store.claim(later(12), later(42), 10, 3)).map((d) => d.id),
        ['msg_s3'],
      )
    }),
  )
}
