/**
 * What one CalDAV request works with: the caller, the REST client acting as them, the URL space
 * (root, principal, calendar home, one calendar per language) and the collections it read, each
 * read at most once per request.
 */
import { canEditPosts, type Principal } from '../auth/principal.js'
import type { ResolvedOptions } from '../options.js'
import type { Rest } from './api.js'
import { renderResources, type Collection, type Resource } from './store.js'
import type { CollectionCache, KnownChanges } from './collections.js'
import { escapeXml } from './xml.js'
import { strongEtag } from '../http/etag.js'
import type { JournalName, Storage } from '../storage/types.js'
import { decodeExtras, EXTRA_FIELD } from './extras.js'
import type { RawResponse } from '../http/types.js'
import type { BatchOutcome, HostSend } from '../host-request.js'

/** The router's batch of host requests in one transaction, with that transaction's own reads. */
export type DavBatch = <T>(fn: (send: HostSend, failed: () => boolean, storage: Storage) => Promise<T>) => Promise<BatchOutcome<T>>

/** What a Dav is made of beside the options: the caller's REST client for a door, and the batch. */
export interface DavDoor {
  restFor(send: HostSend): Rest
  send: HostSend
  batch: DavBatch
  storage: Storage
}

export interface Dav {
  rest: Rest
  principal: Principal
  /** Contributors and up write (contributors' events become drafts); subscribers only read. */
  canWrite: boolean
  options: ResolvedOptions
  /** The CalDAV root path, e.g. `/caldav`. */
  root: string
  /** The host part of the feed's own UIDs (`{id}@{host}`). */
  host: string
  principalPath: string
  homePath: string
  calendarPath(language: string): string
  collection(language: string): Promise<Collection>
  /** What changed in `c` since a calendar token, from the deltas the cache applied; null when it cannot say. */
  changesSince(c: Collection, token: string): KnownChanges | null
  /** The names apps gave these events, as the change journal recorded them (Storage.journalNames). */
  journalNames(ids: readonly number[]): Promise<JournalName[]>
  /** The iCalendar text of these resources of a collection. */
  render(c: Collection, resources: Resource[]): Promise<Map<number, string>>
  /**
   * A resource's ETag as last rendered outside a transaction, if it was. Sound because the cache
   * makes a new Resource object whenever the REST sync reports one of its events changed (a
   * venue, organizer or term it shows included): an object's ETag is never asked of an old one.
   */
  knownEtag(r: Resource): string | undefined
  /**
   * Runs a write and its preconditions in ONE transaction (the router's batch): `inside` reads
   * and writes in it, so an `If-Match` checked there holds for the write. An answer of 300 or
   * more rolls back whatever `fn` wrote before it (nothing is left half-written).
   */
  atomically(fn: (inside: Dav) => Promise<RawResponse>): Promise<RawResponse>
}

/** Thrown to roll a batch back after `fn` answered a refusal; carries nothing. */
class Rollback extends Error {}

/**
 * The kept lines of these events (extras.ts), read from the storage: the hidden field no REST
 * read shows. Only ids of events the REST feed has just given this caller are asked for.
 */
export function extrasReader(storage: Storage): (ids: number[]) => Promise<ReadonlyMap<number, string[]>> {
  return async (ids) => {
    const out = new Map<number, string[]>()
    if (!ids.length) return out
    for (const p of await storage.getPosts(ids)) {
      const lines = decodeExtras(p.customFields?.[EXTRA_FIELD])
      if (lines.length) out.set(p.id, lines)
    }
    return out
  }
}

export function davContext(options: ResolvedOptions, door: DavDoor, principal: Principal, host: string, cache: CollectionCache): Dav {
  const root = options.caldav!.path
  const read = new Map<string, Promise<Collection>>()
  const canWrite = canEditPosts(principal)
  const rest = door.restFor(door.send)
  const outside: Dav = {
    rest,
    principal,
    canWrite,
    options,
    root,
    host,
    principalPath: `${root}/principal/`,
    homePath: `${root}/calendars/`,
    calendarPath: (language) => `${root}/calendars/${language}/`,
    collection(language) {
      let c = read.get(language)
      if (!c) read.set(language, (c = cache.read(rest, principal, language, options.languages, canWrite, host)))
      return c
    },
    async render(c, resources) {
      const out = new Map<number, string>()
      const missing: Resource[] = []
      for (const r of resources) {
        const known = cache.texts.get(r)
        if (known === undefined) missing.push(r)
        else out.set(r.key, known)
      }
      if (!missing.length) return out
      const texts = await renderResources(rest, c, canWrite, missing, extrasReader(door.storage))
      for (const r of missing) {
        const text = texts.get(r.key) ?? ''
        cache.etags.set(r, etagOf(text))
        cache.texts.set(r, text)
        out.set(r.key, text)
      }
      return out
    },
    knownEtag: (r) => cache.etags.get(r),
    changesSince: (c, token) => cache.changesSince(principal, c.language, host, c, token),
    journalNames: (ids) => door.storage.journalNames(ids),
    atomically: (fn) => atomically(door, outside, fn),
  }
  return outside
}

async function atomically(door: DavDoor, outside: Dav, fn: (inside: Dav) => Promise<RawResponse>): Promise<RawResponse> {
  let answer: RawResponse | null = null
  try {
    const outcome = await door.batch(async (send, failed, storage) => {
      const rest = door.restFor(send)
      const inside: Dav = {
        ...outside,
        rest,
        // The journal (the REST sync) is not readable inside a transaction: collections are read before.
        collection: () => Promise.reject(new Error('calendar-events-router: a CalDAV collection is read before the write')),
        render: (c, resources) => renderResources(rest, c, outside.canWrite, resources, extrasReader(storage)),
        // What a transaction reads may yet roll back: it neither uses nor leaves remembered ETags.
        knownEtag: () => undefined,
        changesSince: () => null,
        atomically: () => Promise.reject(new Error('calendar-events-router: CalDAV writes do not nest')),
      }
      answer = await fn(inside)
      // A write that failed itself fails the batch (PostgreSQL then runs it again); a refusal rolls back.
      if (answer.status >= 300 && !failed()) throw new Rollback()
      return answer
    })
    if (outcome.committed) return outcome.result
  } catch (error) {
    if (!(error instanceof Rollback)) throw error
  }
  return answer ?? { status: 500, headers: {}, body: null }
}

/** An href as written in a multistatus (path-only, XML-escaped). */
export const hrefXml = (path: string) => `<d:href>${escapeXml(path)}</d:href>`

/** A resource's path in its calendar. */
export const objectPath = (dav: Dav, c: Collection, r: Resource) =>
  `${dav.calendarPath(c.language)}${r.name.replace(/[^A-Za-z0-9@._~+%-]/g, (ch) => encodeURIComponent(ch))}`

/** A strong ETag: the router's hash of the exact bytes served (http/etag.ts). */
export const etagOf = (text: string): string => strongEtag(text)
