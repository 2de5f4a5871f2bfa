/**
 * Calendars read before, per caller and language, reused while the REST sync says nothing
 * changed since they were read: one small REST request instead of a full read, so the many
 * requests of one client sync (PROPFIND, then multigets in batches) read the calendar once.
 * Held by the CalDAV handler of one router (never module-level), bounded in entries.
 */
import type { Principal } from '../auth/principal.js'
import type { Rest } from './api.js'
import { listQuery, readCollection, type Collection } from './store.js'

/** Whether the REST sync from each language's token has nothing for this caller (a token it refuses: changed). */
async function unchangedSince(rest: Rest, c: Collection, canEdit: boolean): Promise<boolean> {
  for (const language of c.languages) {
    const token = encodeURIComponent(c.tokens[language] ?? '')
    const answer = await rest.send('GET', `/events?sync_token=${token}&per_page=1&${listQuery(language, canEdit)}`)
    const empty = answer.status === 200 && answer.json.events.length === 0 && (answer.json.deleted?.length ?? 0) === 0
    if (!empty || answer.json.next_rest_url) return false
  }
  return true
}

/**
 * The names calendar apps gave events, by caller, host and event id, as the collections read
 * showed them to that caller (never another's: a draft's name is not a subscriber's to see): a sync report names a removed event by the href the app knows even once the event is
 * deleted for good (its name went with it). Bounded; held by one router's handler, so after a
 * restart (or in another process) an event deleted for good is named `{id}@{host}.ics` unless
 * it is still in the trash.
 */
class RemovedNames {
  private readonly names = new Map<string, string>()

  constructor(private readonly maxEntries: number) {}

  remember(c: Collection, scope: string): void {
    for (const r of c.resources) {
      if (r.ownUid) continue
      for (const id of r.ids) {
        const key = `${scope}|${id}`
        this.names.delete(key)
        this.names.set(key, r.name)
      }
    }
    // Oldest first in a Map's order.
    for (const key of this.names.keys()) {
      if (this.names.size <= this.maxEntries) break
      this.names.delete(key)
    }
  }

  get(principal: Principal, host: string, id: number): string | undefined {
    return this.names.get(`${principal.id}|${principal.role}|${host}|${id}`)
  }
}

export class CollectionCache {
  private readonly entries = new Map<string, Collection>()
  /** The name an app gave an event, remembered from the collections read (RemovedNames). */
  readonly names = new RemovedNames(100_000)

  constructor(private readonly maxEntries = 64) {}

  async read(
    rest: Rest,
    principal: Principal,
    language: string,
    languages: readonly string[],
    canEdit: boolean,
    host: string,
  ): Promise<Collection> {
    // What a caller sees depends on their id and role; UIDs on the host.
    const key = `${principal.id}|${principal.role}|${language}|${host}`
    const known = this.entries.get(key)
    if (known && (await unchangedSince(rest, known, canEdit))) {
      this.entries.delete(key)
      this.entries.set(key, known)
      return known
    }
    const fresh = await readCollection(rest, language, languages, canEdit, host)
    this.names.remember(fresh, `${principal.id}|${principal.role}|${host}`)
    this.entries.delete(key)
    this.entries.set(key, fresh)
    // Least recently used first in a Map's order.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return fresh
  }
}
