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

export class CollectionCache {
  private readonly entries = new Map<string, Collection>()

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
    this.entries.delete(key)
    this.entries.set(key, fresh)
    // Least recently used first in a Map's order.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return fresh
  }
}
