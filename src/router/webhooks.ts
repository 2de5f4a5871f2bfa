/**
 * The router's webhook runner: what a journal entry's payload holds (the record as an
 * administrator reads it alone, with its revision; for deletions its id and kind), the endpoints
 * the host declares in its options, and the runner's background life.
 */
import { createContext } from '../context.js'
import type { FragmentCache } from '../cache/fragment-cache.js'
import { serializeJson } from '../http/raw-json.js'
import type { ResolvedOptions } from '../options.js'
import { eventSingle } from '../resources/events.js'
import { termSingle } from '../resources/terms.js'
import { linkedSingle } from '../resources/venues-organizers.js'
import type { RecordAt, Single } from '../resources/record-tag.js'
import type { Schemas } from '../schemas/index.js'
import type { JournalEntry } from '../storage/journal.js'
import type { Storage } from '../storage/types.js'
import { eventType, WebhookRunner, type Render } from '../webhooks/runner.js'
import { isSecret, newSecret } from '../webhooks/signature.js'
import { OWN_NAMES } from '../wire-names.js'
import { emptyParams } from '../http/params.js'
import { httpUrlText } from '../http/url.js'

const ADMINISTRATOR = { id: 0, role: 'administrator' as const }

const SINGLE: Record<JournalEntry['kind'], (ctx: ReturnType<typeof createContext>, at: RecordAt) => Promise<Single | null>> = {
  event: eventSingle,
  venue: (ctx, at) => linkedSingle(ctx, at, 'venue'),
  organizer: (ctx, at) => linkedSingle(ctx, at, 'organizer'),
  category: (ctx, at) => termSingle(ctx, at, 'category'),
  tag: (ctx, at) => termSingle(ctx, at, 'tag'),
}

function renderer(options: ResolvedOptions, schemas: Schemas, fragments: FragmentCache | null): Render {
  // A payload answers no request: its links are built as HTTP answers build them when baseUrl
  // pins them (docs/webhooks.md), else on the site's address; its global_id is siteUrl's either way.
  const origin = options.baseUrl ?? options.siteUrl ?? 'http://localhost'
  return async (entry, storage) => {
    const type = eventType(entry)
    if (entry.action === 'delete' || entry.action === 'trash') {
      return { type, data: { id: entry.id, kind: entry.kind, revision: entry.revision, trashed: entry.action === 'trash' } }
    }
    const language = options.languages.includes(entry.language) ? entry.language : options.defaultLanguage
    const ctx = createContext({
      storage,
      options,
      principal: ADMINISTRATOR,
      language,
      // Payloads are not answers to a request: their links use our own namespace.
      names: OWN_NAMES,
      origin,
      pathLanguage: false,
      params: emptyParams(),
      query: emptyParams(),
      body: emptyParams(),
      path: emptyParams(),
      accept: 'application/json',
      request: { method: 'GET', url: `${origin}${options.prefix}/${OWN_NAMES.namespace}/`, headers: { get: () => null } },
      schemas,
      fragments,
    })
    const single = await SINGLE[entry.kind](ctx, { id: entry.id })
    // Gone since (deleted before this was dispatched): the change still gets its delivery, which
    // says so (docs/webhooks.md §2); the deletion has an entry, and a delivery, of its own.
    if (!single) return { type, data: { id: entry.id, kind: entry.kind, revision: entry.revision, deleted: true } }
    // The record as it is when the delivery is made (at once, with a background runner), with
    // the revision it is at: no older version is kept to rebuild the one the entry names.
    const data = JSON.parse(serializeJson(single.body)) as Record<string, unknown>
    return { type, data: { ...data, revision: single.revision } }
  }
}

/** Puts the endpoints the options declare into the store (by URL), keeping their generated secrets. */
async function declare(storage: Storage, options: ResolvedOptions): Promise<void> {
  const store = storage.webhooks
  if (!store || !options.webhooks.endpoints.length) return
  const existing = await store.listEndpoints()
  const now = new Date().toISOString()
  for (const d of options.webhooks.endpoints) {
    if (d.secret !== undefined && !isSecret(d.secret))
      throw new TypeError(`calendar-events-router: webhooks.endpoints: ${d.url} has a secret that is not whsec_ + base64 of 24 to 64 bytes`)
    const events = d.events ?? ['*']
    // d.url is serialized (options.ts); one declared before that was kept as given is the same endpoint.
    const found = existing.find((e) => e.declared && (e.url === d.url || httpUrlText(e.url) === d.url))
    if (found) {
      await store.updateEndpoint(found.id, {
        url: d.url,
        events,
        description: d.description ?? '',
        ...(d.secret ? { secret: d.secret } : {}),
      })
      continue
    }
    // Another process starting at the same time may declare it first (a unique index refuses the second).
    await store
      .insertEndpoint({
        url: d.url,
        events,
        description: d.description ?? '',
        enabled: true,
        secret: d.secret ?? newSecret(),
        previousSecret: null,
        previousSecretUntil: null,
        disabledReason: null,
        failingSince: null,
        declared: true,
        created: now,
        modified: now,
      })
      .catch(async (err: unknown) => {
        if (!(await store.listEndpoints()).some((e) => e.declared && e.url === d.url)) throw err
      })
  }
}

export interface RouterWebhooks {
  /** Delivers in the background of this process (a long-lived server): every `pollMs`, and right after this router's commits. */
  start(): Promise<void>
  /** Stops delivering; resolves once the attempts under way have ended (close the storage after it). */
  stop(): Promise<void>
  /**
   * One pass for a scheduler (serverless hosts): makes the deliveries of new changes and sends
   * what is due, for at most `maxMs`.
   */
  run(o?: { maxMs?: number }): Promise<{ dispatched: number; attempted: number; succeeded: number }>
}

/** The runner of a router, or one that refuses to run when the storage keeps no webhooks. */
export function routerWebhooks(
  storage: Storage,
  options: ResolvedOptions,
  schemas: Schemas,
  fragments: FragmentCache | null,
  onError: (error: unknown) => void,
): { api: RouterWebhooks; wake: () => void } {
  const store = storage.webhooks
  if (!store) {
    const none = () => Promise.reject(new Error('calendar-events-router: this storage keeps no webhooks'))
    return { api: { start: none, stop: () => Promise.resolve(), run: none }, wake: () => undefined }
  }
  const runner = new WebhookRunner(storage, store, options.webhooks, renderer(options, schemas, fragments), onError)
  let ready: Promise<void> | null = null
  const prepare = () =>
    (ready ??= (async () => {
      await declare(storage, options)
      if ((await store.listEndpoints()).length) await runner.ensureCursor()
    })().catch((err: unknown) => {
      ready = null
      throw err
    }))
  const api: RouterWebhooks = {
    async start() {
      await prepare()
      runner.start()
    },
    stop: () => runner.stop(),
    async run(o = {}) {
      await prepare()
      return runner.runOnce(o.maxMs)
    },
  }
  if (options.webhooks.background) api.start().catch(onError)
  return { api, wake: () => runner.wake() }
}
