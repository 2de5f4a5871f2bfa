/**
 * The import core: reads a source's records and writes each one through the router as the
 * importing caller, remembering (source, source id) → record in the storage's import links, so a
 * second run updates instead of duplicating. Each record is all-or-nothing: one that fails is
 * reported with the reason and the others go on.
 *
 * Group commit: records are written a group at a time (`batchSize`, default 100) through the
 * router's batch door, one transaction per group, since a commit costs as much as a record's
 * whole write path. A group that took longer than GROUP_SLICE_MS makes the next ones smaller, and
 * the server's other work runs between groups, so an import never holds reads up for long. A
 * group where one record's write fails inside the transaction is rolled back and written again
 * one record per transaction, so that record fails alone.
 */
import type { Principal } from '../auth/principal.js'
import type { CalendarOptions } from '../options.js'
import { createCalendarRouter, type CalendarRouter } from '../router.js'
import { HOST_REQUEST, type BatchOutcome, type HostRequest, type HostSend, type InTransaction } from '../host-request.js'
import type { ImportKind, ImportLink, ImportLinkStore } from '../storage/import-links.js'
import type { Storage } from '../storage/types.js'
import { toUtcString } from '../time/format.js'
import { apiClient, type ApiAnswer, type ApiClient } from './client.js'
import { at, fingerprint, locallyChanged, project } from './fields.js'
import { scalarText } from '../http/params.js'
import { expandWithRouterRule, type RuleExpandOptions } from '../readers/rule-expand.js'
import type { HtmlKind } from '../sanitize/allowlist.js'
import type { TextFilter } from '../sanitize/policy.js'
import type { Authority, ImportSummary, KindCounts, SourceRead, SourceRecord } from '../readers/types.js'

export interface RunOptions {
  /**
   * overwrite (default): the source wins; keep-local: fields edited here since the last import
   * keep their value; skip: records imported before are left alone.
   */
  authority?: Authority
  /** Trash the events imported from this source before that it no longer has. */
  deleteMissing?: boolean
  /** Read and compare, write nothing (not even the links or the source's validators). */
  dryRun?: boolean
  /** Who the writes are made as (default: user 1, administrator); the HTML filter of that role applies. */
  as?: Principal
  /**
   * Records written per transaction (default 100; 1: each record in its own transaction, as
   * before group commit). A group is taken from the source before its transaction opens, and
   * writers of other requests wait for at most one group's transaction.
   */
  batchSize?: number
  /**
   * Store the sources' HTML as given. By default it goes through the filter of a role without
   * `unfiltered_html` (a contributor's), whoever imports: the HTML of a feed or a sheet is a
   * third party's, not the importing administrator's.
   */
  trustHtml?: boolean
  /** Called for each record once it is written (a group's after its commit). `total` when the source knows it. */
  onProgress?: (done: number, total: number | undefined) => void
}

/** Records per transaction when `batchSize` is not given. */
export const DEFAULT_BATCH_SIZE = 100

/** Where an import writes: a router, or a storage and the options a router over it would get. */
export type ImportTarget = CalendarRouter | { storage: Storage; options?: CalendarOptions }

const PATHS: Record<ImportKind, string> = {
  event: '/events',
  venue: '/venues',
  organizer: '/organizers',
  category: '/categories',
  tag: '/tags',
}

const LIVE = 'publish,future,draft,pending,private'

export function isRouter(target: ImportTarget): target is CalendarRouter {
  return typeof (target as CalendarRouter).handle === 'function'
}

/** The router an import writes through, and the storage's link store. */
export function resolveTarget(target: ImportTarget): { router: CalendarRouter; links: ImportLinkStore; storage: Storage } {
  const router = isRouter(target) ? target : createCalendarRouter(target.storage, target.options)
  const storage = isRouter(target) ? target[HOST_REQUEST]?.storage : target.storage
  if (!storage) throw new TypeError('calendar-events-router: importing needs a router made by createCalendarRouter')
  if (!storage.importLinks) throw new TypeError('calendar-events-router: this storage keeps no import links (storage.importLinks)')
  return { router, links: storage.importLinks, storage }
}

/** The reason an API answer gives: code, message and each named parameter's complaint. */
export function reasonOf(answer: ApiAnswer): string {
  const b = answer.body
  if (!b || typeof b !== 'object') return `HTTP ${answer.status}`
  const given = at(b, 'data', 'params')
  const params = given && typeof given === 'object' ? Object.entries(given) : []
  const detail = params.map(([k, v]) => `${k}: ${String(v)}`).join('; ')
  return `${answer.status} ${scalarText(at(b, 'code'))}: ${scalarText(at(b, 'message'))}${detail ? ` (${detail})` : ''}`.trim()
}

/** The text fields of a write that may hold HTML: paragraphs (`rich`), and one-line names (`inline`). */
const TEXT_FIELDS: Record<string, HtmlKind> = {
  description: 'rich',
  excerpt: 'rich',
  title: 'inline',
  venue: 'inline',
  organizer: 'inline',
  name: 'inline',
  address: 'inline',
  city: 'inline',
}

/** The body with its text as an untrusted role would store it. */
function untrustedText(body: Record<string, unknown>, kind: ImportKind, filter: TextFilter): Record<string, unknown> {
  const resource = kind === 'category' || kind === 'tag' ? 'term' : kind
  const out = { ...body }
  for (const [field, htmlKind] of Object.entries(TEXT_FIELDS)) {
    const v = out[field]
    if (typeof v === 'string') out[field] = filter(v, { resource, field, kind: htmlKind })
  }
  return out
}

const linkKey = (kind: ImportKind, sourceId: string) => `${kind}\u0000${sourceId}`

/** Where a run stood before a group: what the group's writes are undone to when it rolls back. */
interface Mark {
  counts: [number, number, number, number, number]
  kinds: string
  failed: number
  warnings: number
  pending: number
}

class ImportRun {
  readonly summary: ImportSummary
  private readonly known = new Map<string, ImportLink>()
  private readonly seen = new Set<string>()
  private readonly authority: Authority
  private readonly now = toUtcString(new Date())
  /** Links whose `importedFields` wait to be written in one batch (see `linkIn`). */
  private pending: ImportLink[] = []
  /** Where this run's requests go: the router's door, or a batch's while a group is written. */
  private api: ApiClient
  /** Undoes the changes of `known` and `seen` since the last `mark()`; null outside a group. */
  private undo: Array<() => void> | null = null
  /** Links of records whose group's commit reported a failure yet landed (see `adoptCommitted`). */
  private readonly landed = new Set<string>()
  /** The filter the sources' text goes through (an untrusted role's), or null with `trustHtml`. */
  untrusted: TextFilter | null = null
  /** The router's series limits, for a refused rule's single events. */
  rules: RuleExpandOptions = {}

  constructor(
    private readonly client: (door?: HostSend) => ApiClient,
    private readonly links: ImportLinkStore,
    private readonly source: string,
    private readonly o: RunOptions,
  ) {
    this.api = client()
    this.authority = o.authority ?? 'overwrite'
    this.summary = {
      source,
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      trashed: 0,
      failed: [],
      warnings: [],
      kinds: {},
      notModified: false,
      dryRun: o.dryRun === true,
    }
  }

  async load(): Promise<void> {
    for (const l of await this.links.links(this.source)) this.known.set(linkKey(l.kind, l.sourceId), l)
  }

  private idOf(kind: ImportKind, sourceId: string): number | undefined {
    return this.known.get(linkKey(kind, sourceId))?.recordId
  }

  /** `known` changed (a link, or none for `undefined`), undoably while a group is written. */
  private setKnown(key: string, link: ImportLink | undefined) {
    if (this.undo) {
      const before = this.known.get(key)
      this.undo.push(before ? () => this.known.set(key, before) : () => this.known.delete(key))
    }
    if (link) this.known.set(key, link)
    else this.known.delete(key)
  }

  private see(key: string) {
    if (this.undo) this.undo.push(() => this.seen.delete(key))
    this.seen.add(key)
  }

  /** The run's state now; from here on its changes of `known` and `seen` can be undone. */
  private mark(): Mark {
    this.undo = []
    const s = this.summary
    return {
      counts: [s.created, s.updated, s.unchanged, s.skipped, s.trashed],
      kinds: JSON.stringify(s.kinds),
      failed: s.failed.length,
      warnings: s.warnings.length,
      pending: this.pending.length,
    }
  }

  /** Back to `m`, as if the records written since had not been seen. */
  private restore(m: Mark) {
    const undo = this.undo ?? []
    for (let i = undo.length - 1; i >= 0; i--) undo[i]!()
    undo.length = 0
    const s = this.summary
    ;[s.created, s.updated, s.unchanged, s.skipped, s.trashed] = m.counts
    s.kinds = JSON.parse(m.kinds) as ImportSummary['kinds']
    s.failed.length = m.failed
    s.warnings.length = m.warnings
    // Never flushed inside a group (see `group`): the queue only grew since the mark.
    this.pending.length = m.pending
  }

  /**
   * Writes `records` in one transaction of the router's storage (`door.batch`). When one of
   * them failed inside it, or the commit failed, everything is undone and each record is
   * written again in its own transaction, so the failure is reported for its record alone.
   */
  async group(records: readonly SourceRecord[], door: HostRequest): Promise<void> {
    const m = this.mark()
    let outcome: BatchOutcome<void> | null
    let commitFailure: unknown = null
    try {
      outcome = await door.batch(async (send, failed) => {
        // The storage may run this again (a serialization failure): each attempt starts at the mark.
        this.restore(m)
        this.api = this.client(send)
        try {
          for (const r of records) {
            // A write failed: the transaction is rolled back, nothing more is written in it.
            if (failed()) return
            await this.record(r)
          }
        } finally {
          this.api = this.client()
        }
      })
    } catch (cause) {
      // The commit itself failed (an outage, retries exhausted): replayed below, where each
      // record reports its own failure; the summary says why the group was not enough.
      outcome = null
      commitFailure = cause
    }
    if (outcome?.committed) {
      this.undo = null
      return
    }
    this.restore(m)
    this.undo = null
    if (!outcome) {
      // After `restore`, which drops what the group's attempts warned of.
      this.warn(groupRef(records), `the group's commit failed (${messageOf(commitFailure)}): each record written again on its own`)
      // A commit that failed may have landed all the same (a connection lost during COMMIT):
      // what it linked is known, so the records are not created twice.
      await this.adoptCommitted(records)
    }
    for (const r of records) await this.record(r)
  }

  /** Adds the links the storage has that this run does not know (written by a commit that reported failure). */
  private async adoptCommitted(records: readonly SourceRecord[]): Promise<void> {
    try {
      for (const l of await this.links.links(this.source)) {
        const key = linkKey(l.kind, l.sourceId)
        if (this.known.has(key)) continue
        this.known.set(key, l)
        this.landed.add(key)
      }
    } catch (cause) {
      // Unreadable now: the replay goes on (its own writes will say what is wrong), but what
      // the failed commit may have landed is not known, which the summary says.
      this.warn(groupRef(records), `what the failed commit wrote could not be read back (${messageOf(cause)})`)
    }
  }

  /** The body with the record's references to this source's records replaced by local ids. */
  private resolve(r: SourceRecord): Record<string, unknown> {
    const body = { ...r.body }
    const refs = r.refs ?? {}
    const many = (kind: ImportKind, list: string[] | undefined) => {
      const out: number[] = []
      for (const sid of list ?? []) {
        const id = this.idOf(kind, sid)
        if (id === undefined) this.warn(r.ref, `its ${kind} ${sid} was not imported; the link is left out`)
        else out.push(id)
      }
      return out
    }
    if (refs.venue) body.venue = many('venue', refs.venue)[0] ?? null
    if (refs.organizer) body.organizer = many('organizer', refs.organizer)
    if (refs.categories) body.categories = many('category', refs.categories)
    if (refs.tags) body.tags = many('tag', refs.tags)
    if (refs.parent !== undefined) body.parent = many(r.kind, [refs.parent])[0] ?? 0
    return this.untrusted ? untrustedText(body, r.kind, this.untrusted) : body
  }

  /** One more record of `kind` created, updated...: in the totals and in that kind's counts. */
  private count(kind: ImportKind, what: keyof KindCounts) {
    this.summary[what]++
    const counts = (this.summary.kinds[kind] ??= { created: 0, updated: 0, unchanged: 0, skipped: 0, trashed: 0 })
    counts[what]++
  }

  warn(ref: string, reason: string) {
    this.summary.warnings.push({ ref, reason })
  }

  fail(ref: string, reason: string) {
    this.summary.failed.push({ ref, reason })
  }

  async record(r: SourceRecord): Promise<void> {
    for (const w of r.warnings ?? []) this.warn(r.ref, w)
    if (r.error !== undefined || !r.body) return this.fail(r.ref, r.error ?? 'nothing to import')
    const key = linkKey(r.kind, r.sourceId)
    if (this.seen.has(key)) {
      // A venue, organizer or term named by several events is written once per run (the first
      // description wins); an event twice is the source's mistake.
      if (r.kind !== 'event') return
      return this.fail(r.ref, `${r.sourceId} appears twice in the source: the first one was imported`)
    }
    this.see(key)
    try {
      await this.write(r)
    } catch (error) {
      // A storage outage or a bug of ours: this record fails, the next ones try again.
      this.fail(r.ref, error instanceof Error ? error.message : String(error))
    }
  }

  private async write(r: SourceRecord): Promise<void> {
    const body = this.resolve(r)
    const print = fingerprint(body)
    const link = this.known.get(linkKey(r.kind, r.sourceId))
    if (!link) return this.create(r, body, print)
    // Created by this run, in a group whose commit was reported failed but landed.
    if (this.landed.has(linkKey(r.kind, r.sourceId)) && link.fingerprint === print) {
      this.count(r.kind, 'created')
      return
    }
    if (this.authority === 'skip') {
      this.count(r.kind, 'skipped')
      return
    }
    if (link.fingerprint === print) {
      this.count(r.kind, 'unchanged')
      return
    }
    if (this.o.dryRun) {
      this.count(r.kind, 'updated')
      return
    }
    let send = body
    let kept: Record<string, unknown> = {}
    if (this.authority === 'keep-local') {
      const current = await this.api.send('GET', `${PATHS[r.kind]}/${link.recordId}`)
      if (current.status === 200) {
        const now = project(r.kind, current.body, Object.keys(link.importedFields))
        const changed = locallyChanged(now, link.importedFields)
        send = Object.fromEntries(Object.entries(body).filter(([f]) => !changed.has(f)))
        kept = Object.fromEntries([...changed].map((f) => [f, link.importedFields[f]]))
        if (changed.size) this.warn(r.ref, `kept the local value of ${[...changed].join(', ')}`)
      } else if (current.status !== 404) {
        // Trashed or unreadable here: a local decision the source does not overrule.
        this.count(r.kind, 'skipped')
        return this.keepLink(link, print)
      }
    }
    const scope = r.kind === 'event' ? (r.occurrenceOf ? '?recurrence_scope=this' : '?recurrence_scope=all') : ''
    const inTx = this.linkIn(r, print, link.importedFields, link.recordId)
    let answer = await this.api.send('PATCH', `${PATHS[r.kind]}/${link.recordId}${scope}`, send, inTx)
    // recurrence_scope on an event that is no longer part of a series: send it plainly.
    if (answer.status === 400 && scope && at(answer.body, 'data', 'params', 'recurrence_scope') !== undefined)
      answer = await this.api.send('PATCH', `${PATHS[r.kind]}/${link.recordId}`, send, inTx)
    if (answer.status === 404) {
      // Deleted here for good: the source still has it, so it comes back.
      this.setKnown(linkKey(r.kind, r.sourceId), undefined)
      return this.create(r, body, print)
    }
    if (answer.status !== 200) return this.fail(r.ref, reasonOf(answer))
    this.count(r.kind, 'updated')
    this.remember(r, link.recordId, print, { ...project(r.kind, answer.body, Object.keys(body)), ...kept })
  }

  /**
   * The link confirmed without a write of its record: queued with the others (`flush`), since a
   * write of the link store inside a group would wait for the group's own transaction.
   */
  private keepLink(link: ImportLink, print: string) {
    if (!this.o.dryRun) this.pending.push({ ...link, fingerprint: print, importedAt: this.now })
  }

  private async create(r: SourceRecord, body: Record<string, unknown>, print: string): Promise<void> {
    if (this.o.dryRun) {
      this.count(r.kind, 'created')
      // Later records of this dry run may name it.
      this.setKnown(linkKey(r.kind, r.sourceId), {
        source: this.source,
        kind: r.kind,
        sourceId: r.sourceId,
        recordId: 0,
        fingerprint: print,
        importedFields: {},
        importedAt: this.now,
      })
      return
    }
    if (r.occurrenceOf) return this.detach(r, body, print)
    const answer = await this.api.send('POST', PATHS[r.kind], body, this.linkIn(r, print, {}))
    if (answer.status === 201) {
      this.count(r.kind, 'created')
      return this.remember(r, Number(at(answer.body, 'id')), print, project(r.kind, answer.body, Object.keys(body)))
    }
    if (answer.status === 400 && at(answer.body, 'code') === 'term_exists' && Number(at(answer.body, 'data', 'term_id')) > 0)
      return this.adopt(r, Number(at(answer.body, 'data', 'term_id')), body, print)
    const refused = answer.status === 400 ? at(answer.body, 'data', 'params', 'recurrence') : undefined
    if (refused !== undefined && (r.expand || (r.body?.recurrence as { rrule?: unknown } | undefined)?.rrule)) {
      // The router's own expander gives the dates (rule-expand.ts); a source's `expand` only
      // where the record carries no rule of ours.
      const occurrences = r.expand ? r.expand() : expandWithRouterRule(r, this.rules)
      if (!occurrences.length) return this.fail(r.ref, `its rule was refused (${scalarText(refused)}) and gives no date: not imported`)
      this.warn(r.ref, `the rule was refused (${scalarText(refused)}): imported as ${occurrences.length} single events`)
      for (const o of occurrences) await this.record(o)
      return
    }
    this.fail(r.ref, reasonOf(answer))
  }

  /**
   * A category or tag that exists here by name (and parent), made by hand or by another source:
   * to a reader it is the same term, so this source links to it instead of failing. Nothing of
   * it is rewritten; a later change at the source updates it as any linked record.
   */
  private async adopt(r: SourceRecord, id: number, body: Record<string, unknown>, print: string): Promise<void> {
    const path = r.kind === 'category' ? '/categories' : '/tags'
    const current = await this.api.send('GET', `${path}/${id}`)
    if (current.status !== 200)
      return this.fail(r.ref, `a ${r.kind} of that name exists (id ${id}) but cannot be read: ${reasonOf(current)}`)
    this.warn(r.ref, `adopted the ${r.kind} "${scalarText(at(current.body, 'name'))}" that exists here (id ${id})`)
    this.count(r.kind, 'unchanged')
    this.remember(r, id, print, project(r.kind, current.body, Object.keys(body)))
  }

  /** A RECURRENCE-ID override: the occurrence of the imported series it replaces, edited on its own. */
  private async detach(r: SourceRecord, body: Record<string, unknown>, print: string): Promise<void> {
    const { sourceId, original, position } = r.occurrenceOf!
    const seriesId = this.idOf('event', sourceId)
    let target: number | null = null
    if (seriesId !== undefined) {
      const day = original.slice(0, 10)
      const from = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)
      const to = new Date(Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10)
      const head = await this.api.send('GET', `/events/${seriesId}`)
      const list = await this.api.send(
        'GET',
        `/events?post_parent=${seriesId}&start_date=${from}&end_date=${to}&status=${LIVE}&per_page=50`,
      )
      const listed = list.status === 200 ? at(list.body, 'events') : undefined
      const candidates: unknown[] = [head.status === 200 ? head.body : null, ...(Array.isArray(listed) ? (listed as unknown[]) : [])]
      const match = candidates.find(
        (e) =>
          at(e, 'series') &&
          !at(e, 'series', 'detached') &&
          (position !== undefined ? at(e, 'series', 'position') === position : at(e, 'start_date') === original),
      )
      if (match) target = Number(at(match, 'id'))
    }
    if (target === null) {
      this.warn(r.ref, `the occurrence it replaces (${original}) is not in the imported series: imported as a single event`)
      const answer = await this.api.send('POST', '/events', body, this.linkIn(r, print, {}))
      if (answer.status !== 201) return this.fail(r.ref, reasonOf(answer))
      this.count(r.kind, 'created')
      return this.remember(r, Number(at(answer.body, 'id')), print, project('event', answer.body, Object.keys(body)))
    }
    const answer = await this.api.send('PATCH', `/events/${target}?recurrence_scope=this`, body, this.linkIn(r, print, {}, target))
    if (answer.status !== 200) return this.fail(r.ref, reasonOf(answer))
    this.count(r.kind, 'created')
    return this.remember(r, target, print, project('event', answer.body, Object.keys(body)))
  }

  /**
   * The hook that writes the record's link inside the record's own transaction (SQL backends),
   * so a record never commits without its link (a crash between the two would import it again)
   * and no second transaction per record is needed. The fields as the representation shows them
   * are known only from the answer: `remember` queues them for a batch write; until that lands
   * the link keeps `importedFields` (the last import's on an update; none on a create, which
   * `keep-local` reads as "nothing edited here").
   */
  private linkIn(r: SourceRecord, print: string, importedFields: Record<string, unknown>, recordId?: number): InTransaction {
    return async (tx, written) => {
      // A create: the first record of the imported kind the write stored (a series: its first occurrence).
      const id = recordId ?? written.find((w) => w.type === r.kind)?.id
      if (!tx.putImportLink || id === undefined) return
      await tx.putImportLink({
        source: this.source,
        kind: r.kind,
        sourceId: r.sourceId,
        recordId: id,
        fingerprint: print,
        importedFields,
        importedAt: this.now,
      })
    }
  }

  private remember(r: SourceRecord, recordId: number, print: string, importedFields: Record<string, unknown>): void {
    const link: ImportLink = {
      source: this.source,
      kind: r.kind,
      sourceId: r.sourceId,
      recordId,
      fingerprint: print,
      importedFields,
      importedAt: this.now,
    }
    this.setKnown(linkKey(r.kind, r.sourceId), link)
    this.pending.push(link)
  }

  /**
   * `flush` once enough links are queued. Called between groups only: inside one, the links'
   * own transaction would wait for the group's, which waits for the group's records.
   */
  async flushIfFull(): Promise<void> {
    if (this.pending.length >= 500) await this.flush()
  }

  /** Writes the queued links in one transaction (their records are stored already). */
  async flush(): Promise<void> {
    const batch = this.pending
    this.pending = []
    try {
      await this.links.putLinks(batch)
    } catch (error) {
      // The links themselves are in place (written with their records on SQL): only the fields
      // keep-local compares are missing, which it then reads as "nothing edited here".
      this.warn(
        'links',
        `the imported fields of ${batch.length} records were not saved: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  /** Trashes the events of this source's earlier imports that this run did not see. */
  async deleteMissing(): Promise<void> {
    for (const link of this.known.values()) {
      if (link.kind !== 'event' || this.seen.has(linkKey(link.kind, link.sourceId))) continue
      if (this.o.dryRun) {
        this.count(link.kind, 'trashed')
        continue
      }
      let answer = await this.api.send('DELETE', `/events/${link.recordId}?recurrence_scope=all`)
      if (answer.status === 400) answer = await this.api.send('DELETE', `/events/${link.recordId}`)
      if (answer.status === 200) this.count(link.kind, 'trashed')
      else if (answer.status !== 404 && answer.status !== 410) {
        this.fail(`${link.kind} ${link.sourceId}`, `could not trash it: ${reasonOf(answer)}`)
        continue
      }
      await this.links.removeLink(this.source, link.kind, link.sourceId)
    }
  }
}

/** A source's records, taken a group at a time. */
function iterate(records: SourceRead['records']) {
  const it: AsyncIterator<SourceRecord> | Iterator<SourceRecord> =
    Symbol.asyncIterator in records ? records[Symbol.asyncIterator]() : records[Symbol.iterator]()
  let done = false
  return {
    async take(n: number): Promise<SourceRecord[]> {
      const out: SourceRecord[] = []
      while (!done && out.length < n) {
        const next = await it.next()
        if (next.done) done = true
        else out.push(next.value)
      }
      return out
    },
    /** As `for await` does when a loop ends early: the source's generator runs its `finally`. */
    async close(): Promise<void> {
      if (!done) {
        done = true
        await it.return?.()
      }
    },
  }
}

/**
 * Runs one source's records through the router. The sources (ics.ts, csv.ts, tec.ts) read; this
 * writes. Prefer `importCalendar` (index.ts), which picks the source by format.
 *
 * @example
 * const summary = await runImport({ storage }, 'csv:events.csv', read, { authority: 'keep-local' })
 */
export async function runImport(
  target: ImportTarget,
  source: string,
  read: (links: ImportLinkStore) => Promise<SourceRead>,
  o: RunOptions = {},
): Promise<ImportSummary> {
  const { router, links } = resolveTarget(target)
  const as = o.as ?? { id: 1, role: 'administrator' }
  const run = new ImportRun((door) => apiClient(router, as, door), links, source, o)
  run.rules = { ...router.options.recurrence }
  run.untrusted = o.trustHtml ? null : router.options.sanitize({ id: 0, role: 'contributor' })
  let src: SourceRead
  try {
    src = await read(links)
  } catch (error) {
    run.fail('source', error instanceof Error ? error.message : String(error))
    return run.summary
  }
  if (src.notModified) {
    run.summary.notModified = true
    run.summary.unchanged = (await links.links(source)).length
    return run.summary
  }
  await run.load()
  let done = 0
  const total = (src as { total?: number }).total
  const door = router[HOST_REQUEST]!
  // A dry run writes nothing: there is nothing to commit together. Anything but a count is 1.
  const asked = Math.floor(Number(o.batchSize ?? DEFAULT_BATCH_SIZE))
  const most = o.dryRun || !(asked >= 1) ? 1 : asked
  // The first group is kept modest until the time a record takes here is known.
  let size = Math.min(most, FIRST_GROUP)
  const records = iterate(src.records)
  try {
    for (;;) {
      // Taken before the group's transaction opens: no transaction waits on a source's HTTP.
      const group = await records.take(size)
      if (!group.length) break
      const started = performance.now()
      if (group.length > 1) await run.group(group, door)
      else await run.record(group[0]!)
      size = nextGroupSize(group.length, performance.now() - started, most)
      await yieldToServer()
      await run.flushIfFull()
      await src.written?.()
      for (let i = 0; i < group.length; i++) o.onProgress?.(++done, total)
    }
  } finally {
    await records.close()
    await run.flush()
  }
  for (const w of src.warnings?.() ?? []) run.warn('source', w)
  if (o.deleteMissing) {
    if (src.complete()) await run.deleteMissing()
    else run.warn('source', 'the source was not read to its end: nothing was trashed')
  }
  if (!o.dryRun) await src.commit?.()
  return run.summary
}

/**
 * How long one group may hold the event loop and the other writers, in wall time. On memory and
 * SQLite a group's writes run without a pause, so a group of 100 records (about 120 ms on an
 * idle machine, three times that under load) would hold every read of the server that long.
 * 30 ms: a reader's p99 must stay under 100 ms on a loaded machine too (bench/import-hostile).
 */
const GROUP_SLICE_MS = 30
/** Records in the first group, before the time one takes is known. */
const FIRST_GROUP = 32
/** Never fewer (unless `batchSize` is): each commit costs about as much as a record's write. */
const LEAST_GROUP = 8

/**
 * The next group's size: as many records as the last group wrote in GROUP_SLICE_MS, at least
 * LEAST_GROUP and at most `most`, and at most twice the last group (one quick group on a loaded
 * machine is no promise).
 */
function nextGroupSize(written: number, ms: number, most: number): number {
  const perRecord = Math.max(ms / written, 0.01)
  return Math.min(most, Math.max(LEAST_GROUP, Math.min(2 * written, Math.floor(GROUP_SLICE_MS / perRecord))))
}

/** Lets the server answer what came in while a group was written (a macrotask, not a microtask). */
function yieldToServer(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)))
}

/** A group of records named in the summary: its first and last record. */
function groupRef(records: readonly SourceRecord[]): string {
  const first = records[0]?.ref ?? 'a group'
  return records.length > 1 ? `${first} to ${records[records.length - 1]!.ref}` : first
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))
