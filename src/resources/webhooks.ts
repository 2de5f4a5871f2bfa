/**
 * Webhook endpoints as administrators manage them (`/webhooks`): create, read, update (and
 * rotate the secret), delete, look at deliveries, send some again, ping. Secrets are shown here
 * and nowhere else; only administrators reach these routes (the gate in routes.ts).
 */
import { builtin } from '../webhooks/builtins.js'
import { ApiError, invalidParam } from '../http/errors.js'
import type { Context } from '../context.js'
import type { Input } from '../schemas/index.js'
import { isBlockedAddress } from '../webhooks/address.js'
import { messageId, newSecret } from '../webhooks/signature.js'
import type { ReplaySelection, WebhookDelivery, WebhookEndpoint, WebhookStore } from '../storage/webhooks.js'
import { created, ok, totals, type Reply } from './respond.js'
import { restUrl } from '../urls.js'

const PER_PAGE = 50

function storeOf(ctx: Context): WebhookStore {
  const store = ctx.storage.webhooks
  if (!store) throw new ApiError(501, 'rest_webhooks_unsupported', 'This storage keeps no webhooks.')
  return store
}

const notFound = () => new ApiError(404, 'rest_webhook_not_found', 'No webhook endpoint has this ID.')

/** An endpoint as administrators read it. */
function endpointJson(ctx: Context, e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    secret: e.secret,
    previous_secret_expires: e.previousSecret ? e.previousSecretUntil : null,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    declared: e.declared,
    created: e.created,
    modified: e.modified,
    rest_url: restUrl(ctx, `webhooks/${e.id}`),
  }
}

function deliveryJson(d: WebhookDelivery) {
  return {
    id: d.id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status: d.lastStatus,
    last_attempt_at: d.lastAttemptAt,
    next_attempt_at: d.nextAttemptAt,
    last_response: d.lastResponse,
    created: d.created,
    replay_of: d.replayOf,
    payload: JSON.parse(d.payload) as unknown,
  }
}

/**
 * A URL a webhook may be sent to: http(s), and unless the host allows private addresses, a name
 * none of whose addresses is loopback, private, link-local or reserved (checked again at every
 * delivery on the address actually used).
 */
export async function checkWebhookUrl(ctx: Context, url: string): Promise<void> {
  if (ctx.options.webhooks.allowPrivate) return
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  // Where the runtime cannot resolve names (a worker), IP literals are checked at delivery.
  const dns = builtin<typeof import('node:dns')>('node:dns')
  if (!dns) return
  let addresses: string[]
  try {
    addresses = (await dns.promises.lookup(host, { all: true })).map((a) => a.address)
  } catch {
    // Whatever the resolver's reason (no such name, no answer), nothing can be delivered there now.
    throw invalidParam('url', { message: `url: ${host} does not resolve.` })
  }
  if (addresses.some(isBlockedAddress)) {
    throw invalidParam('url', {
      message:
        'url resolves to an address that is not global unicast (private, loopback, link-local, reserved, or one of these inside IPv6); ' +
        'webhooks are not sent there unless the router option webhooks.allowPrivate is set (development and tests only).',
    })
  }
}

/** Where the dispatcher starts once there is an endpoint: the journal's head, not its history. */
async function startCursor(ctx: Context, store: WebhookStore): Promise<void> {
  if ((await store.cursor()) === null) await store.dispatch(null, await ctx.storage.journalHead(), [])
}

async function endpointOf(ctx: Context, id: number): Promise<WebhookEndpoint> {
  const e = await storeOf(ctx).getEndpoint(id)
  if (!e) throw notFound()
  return e
}

export async function listWebhooks(ctx: Context, q: Input<'webhookList'>): Promise<Reply> {
  const all = await storeOf(ctx).listEndpoints()
  const page = all.slice((q.page - 1) * PER_PAGE, q.page * PER_PAGE)
  const pages = Math.max(1, Math.ceil(all.length / PER_PAGE))
  return ok({ webhooks: page.map((e) => endpointJson(ctx, e)), total: all.length, total_pages: pages }, totals(all.length, pages))
}

export async function createWebhook(ctx: Context, input: Input<'webhookCreate'>): Promise<Reply> {
  const store = storeOf(ctx)
  await checkWebhookUrl(ctx, input.url)
  const now = new Date().toISOString()
  const e = await store.insertEndpoint({
    url: input.url,
    events: input.events ?? ['*'],
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    secret: newSecret(),
    previousSecret: null,
    previousSecretUntil: null,
    disabledReason: null,
    failingSince: null,
    declared: false,
    created: now,
    modified: now,
  })
  await startCursor(ctx, store)
  return created(endpointJson(ctx, e))
}

export async function readWebhook(ctx: Context, at: Input<'webhookById'>): Promise<Reply> {
  return ok(endpointJson(ctx, await endpointOf(ctx, at.id)))
}

export async function updateWebhook(ctx: Context, at: Input<'webhookById'>, fields: () => Input<'webhookUpdate'>): Promise<Reply> {
  const current = await endpointOf(ctx, at.id)
  if (current.declared)
    throw new ApiError(403, 'rest_webhook_declared', 'This endpoint is declared in the router options; change it there.')
  const input = fields()
  if (input.url !== undefined) await checkWebhookUrl(ctx, input.url)
  const now = new Date()
  const patch: Parameters<WebhookStore['updateEndpoint']>[1] = { modified: now.toISOString() }
  if (input.url !== undefined) patch.url = input.url
  if (input.events !== undefined) patch.events = input.events
  if (input.description !== undefined) patch.description = input.description ?? ''
  if (input.enabled !== undefined) {
    patch.enabled = input.enabled
    // Turned on again by hand: the runner's verdict is cleared, and failures are counted afresh.
    if (input.enabled) Object.assign(patch, { disabledReason: null, failingSince: null })
  }
  if (input.rotate_secret) {
    patch.previousSecret = current.secret
    patch.previousSecretUntil = new Date(now.getTime() + ctx.options.webhooks.secretOverlapHours * 3_600_000).toISOString()
    patch.secret = newSecret()
  }
  const e = await storeOf(ctx).updateEndpoint(current.id, patch)
  if (!e) throw notFound()
  return ok(endpointJson(ctx, e))
}

export async function deleteWebhook(ctx: Context, at: Input<'webhookById'>): Promise<Reply> {
  const current = await endpointOf(ctx, at.id)
  if (current.declared)
    throw new ApiError(403, 'rest_webhook_declared', 'This endpoint is declared in the router options; remove it there.')
  await storeOf(ctx).deleteEndpoint(current.id)
  return ok({ deleted: true, previous: endpointJson(ctx, current) })
}

export async function listDeliveries(ctx: Context, q: Input<'webhookDeliveries'>): Promise<Reply> {
  const e = await endpointOf(ctx, q.id)
  const { items, total } = await storeOf(ctx).listDeliveries(e.id, PER_PAGE, (q.page - 1) * PER_PAGE)
  const pages = Math.max(1, Math.ceil(total / PER_PAGE))
  return ok({ deliveries: items.map(deliveryJson), total, total_pages: pages }, totals(total, pages))
}

/** Deliveries one replay queues at most; `more: true` says to ask again for the rest. */
export const REPLAY_LIMIT = 1000

/**
 * Sends deliveries again as new messages (new ids: the receiver is meant to take them again).
 * A replay sends the dispatcher's deliveries, never earlier replays, and queues each once: a
 * delivery whose replay is still pending is left out, so asking twice queues what asking once
 * did, and the deliveries one call queues are at most REPLAY_LIMIT.
 */
export async function replayDeliveries(ctx: Context, q: Input<'webhookReplay'>): Promise<Reply> {
  const e = await endpointOf(ctx, q.id)
  const store = storeOf(ctx)
  let what: ReplaySelection
  if (q.delivery !== undefined) {
    const d = await store.getDelivery(q.delivery)
    if (!d || d.endpointId !== e.id) throw invalidParam('delivery')
    // A replay's replay is its original's.
    what = { delivery: d.replayOf ?? d.id }
  } else if (q.since !== undefined) {
    const since = new Date(`${String(q.since).replace(' ', 'T')}Z`)
    if (!Number.isFinite(since.getTime())) throw invalidParam('since')
    what = { since: since.toISOString() }
  } else throw invalidParam('delivery', { message: 'Give delivery (an ID) or since (a time).' })
  const now = new Date().toISOString()
  const { queued, more } = await store.replay(e.id, what, REPLAY_LIMIT, (d) => ({
    id: messageId(),
    endpointId: e.id,
    type: d.type,
    payload: d.payload,
    nextAttemptAt: now,
    created: now,
    replayOf: d.id,
  }))
  return ok({ replayed: queued.length, deliveries: queued.map((d) => d.id), more })
}

/** A `webhook.ping` delivery, to check an endpoint end to end. */
export async function pingWebhook(ctx: Context, at: Input<'webhookById'>): Promise<Reply> {
  const e = await endpointOf(ctx, at.id)
  const now = new Date().toISOString()
  const id = messageId()
  const payload = JSON.stringify({ type: 'webhook.ping', timestamp: now, data: { webhook_id: e.id } })
  await storeOf(ctx).addDeliveries([{ id, endpointId: e.id, type: 'webhook.ping', payload, nextAttemptAt: now, created: now }])
  return created({ delivery: id })
}
