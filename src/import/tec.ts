/**
 * The TEC-site source: a site running The Events Calendar (`tribe/events/v1`), or one running
 * this library (`calendar/events/v1`), read over its REST API v1 (docs/importing.md, "TEC site").
 * Terms first (parents before children), then venues and organizers, then the events page by
 * page; each event names its venue, organizers and terms by source id and the core resolves
 * them. The last completed events page is kept in the source state, so an interrupted run goes
 * on where it stopped.
 */
import type { ImportLinkStore } from '../storage/import-links.js'
import { plainFromTec, plainWireNames } from '../storage/wire-fields.js'
import { toUtcString } from '../time/format.js'
import { BudgetError, resolveBudget, type ImportBudget } from './budget.js'
import { apiRoot, TecHttpError, tecGetter, type TecGet, type TecHttpOptions } from './tec-http.js'
import type { SourceRead, SourceRecord } from '../readers/types.js'

export interface TecOptions extends TecHttpOptions {
  /** Events per page (default 50; TEC caps it at its own maximum). */
  perPage?: number
  /** Read-only run (dry run): the resume point is not stored. */
  dryRun?: boolean
}

/** Every status an authenticated reader may list; TEC lists only `publish` to anyone else. */
const STATUSES = ['publish', 'future', 'draft', 'pending', 'private']
const FAR_PAST = '1970-01-01 00:00:00'
const FAR_FUTURE = '2200-12-31 23:59:59'

type Json = Record<string, unknown>

/** Where an interrupted run goes on: the events pass (its status filter) and its last completed page. */
interface Cursor {
  status: string
  page: number
}

const obj = (x: unknown): x is Json => x !== null && typeof x === 'object' && !Array.isArray(x)
const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined)

/** A listing's items, whatever the collection is called (`events`, `venues`, `categories`...). */
function items(body: unknown, key: string): Json[] {
  return obj(body) && Array.isArray(body[key]) ? (body[key] as unknown[]).filter(obj) : []
}

class TecReader {
  readonly warnings: string[] = []
  /** Source ids already handed to the core in this run, per kind. */
  private readonly given = new Set<string>()
  /** A TEC Pro series (post_parent) already reported. */
  private readonly proSeries = new Set<string>()
  /** Our own API's series heads handed over: local id at the source → source id. */
  private readonly heads = new Map<number, string>()
  complete = true
  /** The events were read to their end (even when this run resumed): the resume point goes. */
  finished = false

  /** A next_rest_url on another origin was reported already. */
  private offOrigin = false

  constructor(
    private readonly root: string,
    private readonly get: TecGet,
    private readonly budget: Required<ImportBudget>,
    private readonly deadline: number,
  ) {}

  /** TEC's global id (`host?id=N`) names a record across sites; without one, the API root and the id. */
  sid(kind: string, x: Json): string {
    if (kind !== 'category' && kind !== 'tag' && str(x.global_id)) return String(x.global_id)
    return `${this.root}/${kind}?id=${String(x.id)}`
  }

  /**
   * Every page of a listing, following `next_rest_url` on the site's own origin (or `page` up to
   * `total_pages`). It ends at an empty page, at a page that repeats the one before (a site that
   * ignores `page`), and at the budget: `pages` per listing, `sourceMs` for the whole site.
   */
  async *pages(
    path: string,
    key: string,
    query: Record<string, string>,
    from = 1,
  ): AsyncGenerator<{ page: number; list: Json[]; size: number }> {
    let page = from
    const at = (n: number) => `${this.root}${path}?${new URLSearchParams({ ...query, page: String(n) })}`
    let url: string = at(page)
    let previous = ''
    for (let read = 1; ; read++) {
      if (read > this.budget.pages) throw new BudgetError(`${this.root}${path} has more than ${this.budget.pages} pages (budget.pages)`)
      if (Date.now() > this.deadline) throw new BudgetError(`reading the site took more than ${this.budget.sourceMs} ms (budget.sourceMs)`)
      let body: unknown
      let size = 0
      try {
        ;({ body, size } = await this.get(url))
      } catch (e) {
        // TEC answers 404 for a page past the last (event-archive-page-not-found): the end.
        if (e instanceof TecHttpError && e.status === 404 && page > 1) return
        throw e
      }
      const list = items(body, key)
      const seen = list.map((x) => String(x.id)).join(',')
      if (list.length && seen === previous) {
        this.warnings.push(`${this.root}${path}: page ${page} repeats page ${page - 1}; the listing ends there`)
        return
      }
      previous = seen
      yield { page, list, size }
      const total = Number(obj(body) ? body.total_pages : 0)
      if (!list.length || (Number.isFinite(total) && total > 0 && page >= total)) return
      page++
      url = this.next(obj(body) ? str(body.next_rest_url) : undefined) ?? at(page)
    }
  }

  /** `next_rest_url` when it stays on the site's origin; another origin is never followed (credentials). */
  private next(url: string | undefined): string | undefined {
    if (!url) return undefined
    try {
      if (new URL(url).origin === new URL(this.root).origin) return url
    } catch (e) {
      this.warnings.push(`next_rest_url ${url.slice(0, 200)} is not a URL (${(e as Error).message}): pages are counted instead`)
      return undefined
    }
    if (!this.offOrigin)
      this.warnings.push(`next_rest_url leads to another origin (${url.slice(0, 200)}): not followed, pages are counted instead`)
    this.offOrigin = true
    return undefined
  }

  /** Categories with every parent before its children (the core resolves `parent` by source id). */
  async *terms(kind: 'category' | 'tag'): AsyncGenerator<SourceRecord> {
    const key = kind === 'category' ? 'categories' : 'tags'
    const all: Json[] = []
    // Kept until the listing ends (parents before children): at most budget.bytes of answers.
    let kept = 0
    for await (const { list, size } of this.pages(`/${key}`, key, { per_page: '100', hide_empty: 'false' })) {
      kept += size
      if (kept > this.budget.bytes)
        throw new BudgetError(`the ${key} of ${this.root} take more than ${this.budget.bytes} bytes (budget.bytes)`)
      all.push(...list)
    }
    yield* this.termRecords(kind, all)
  }

  private *termRecords(kind: 'category' | 'tag', all: Json[]): Generator<SourceRecord> {
    const byId = new Map(all.map((t) => [Number(t.id), t]))
    const placed = new Set<number>()
    const out: Json[] = []
    const place = (t: Json, depth: number) => {
      const id = Number(t.id)
      if (placed.has(id) || depth > 50) return
      const parent = byId.get(Number(t.parent))
      if (parent && Number(t.parent) !== id) place(parent, depth + 1)
      placed.add(id)
      out.push(t)
    }
    for (const t of all) place(t, 0)
    for (const t of out) {
      const r = this.term(kind, t, byId)
      if (r) yield r
    }
  }

  private term(kind: 'category' | 'tag', t: Json, byId?: Map<number, Json>): SourceRecord | undefined {
    const sourceId = this.sid(kind, t)
    if (this.given.has(`${kind} ${sourceId}`)) return undefined
    this.given.add(`${kind} ${sourceId}`)
    const ref = `${kind} ${String(t.id)}`
    if (!str(t.name)) return { kind, sourceId, ref, error: 'it has no name' }
    const body: Json = { name: t.name, description: typeof t.description === 'string' ? t.description : '' }
    if (str(t.slug)) body.slug = t.slug
    const r: SourceRecord = { kind, sourceId, ref, body }
    const parent = Number(t.parent)
    if (kind === 'category') {
      if (parent > 0) r.refs = { parent: this.sid('category', byId?.get(parent) ?? { id: parent }) }
      else body.parent = 0
    }
    return r
  }

  linked(kind: 'venue' | 'organizer', x: Json): SourceRecord | undefined {
    const sourceId = this.sid(kind, x)
    if (this.given.has(`${kind} ${sourceId}`)) return undefined
    this.given.add(`${kind} ${sourceId}`)
    const ref = `${kind} ${String(x.id)}`
    const name = str(x[kind])
    if (!name) return { kind, sourceId, ref, error: `it has no ${kind} name` }
    const body: Json = { [kind]: name }
    const fields =
      kind === 'venue'
        ? ['description', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', ...plainWireNames('venue')]
        : ['description', 'email', 'phone', 'website', ...plainWireNames('organizer')]
    for (const f of fields) if (x[f] !== undefined && x[f] !== null) body[f] = x[f]
    if (kind === 'venue') {
      // TEC writes `stateprovince` as a read-only mirror; ours derives it from state/province.
      if (x.geo_lat !== undefined && x.geo_lat !== null) body.geo_lat = x.geo_lat
      if (x.geo_lng !== undefined && x.geo_lng !== null) body.geo_lng = x.geo_lng
    }
    if (str(x.slug)) body.slug = x.slug
    if (typeof x.status === 'string' && STATUSES.includes(x.status)) body.status = x.status
    const image = obj(x.image) ? str(x.image.url) : undefined
    if (image) body.image = image
    return { kind, sourceId, ref, body }
  }

  async *linkedList(kind: 'venue' | 'organizer'): AsyncGenerator<SourceRecord> {
    const key = `${kind}s`
    for await (const { list } of this.pages(`/${key}`, key, { per_page: '50' }))
      for (const x of list) {
        const r = this.linked(kind, x)
        if (r) yield r
      }
  }

  /** The records one listed event brings: what it links to that was not listed, then itself. */
  *event(e: Json): Generator<SourceRecord> {
    const sourceId = this.sid('event', e)
    const ref = `event ${String(e.id)}${str(e.title) ? ` (${String(e.title).slice(0, 60)})` : ''}`
    // Linked records the listings did not show (drafts, private ones): the event's own copy.
    const venues = (Array.isArray(e.venue) ? e.venue : obj(e.venue) ? [e.venue] : []).filter(obj)
    const organizers = (Array.isArray(e.organizer) ? e.organizer : obj(e.organizer) ? [e.organizer] : []).filter(obj)
    const categories = (Array.isArray(e.categories) ? e.categories : []).filter(obj)
    const tags = (Array.isArray(e.tags) ? e.tags : []).filter(obj)
    for (const v of venues) {
      const r = this.linked('venue', v)
      if (r) yield r
    }
    for (const o of organizers) {
      const r = this.linked('organizer', o)
      if (r) yield r
    }
    yield* this.termRecords('category', categories)
    yield* this.termRecords('tag', tags)

    const series = obj(e.series) ? e.series : null
    if (series && Number(series.id) !== Number(e.id) && !series.detached) return // the series' rule makes it
    if (!str(e.title) || !str(e.start_date) || !str(e.end_date)) {
      yield { kind: 'event', sourceId, ref, error: 'it has no title, start_date or end_date' }
      return
    }
    const body: Json = {
      title: e.title,
      description: typeof e.description === 'string' ? e.description : '',
      excerpt: typeof e.excerpt === 'string' ? e.excerpt : '',
      start_date: e.start_date,
      end_date: e.end_date,
      all_day: e.all_day === true,
    }
    if (str(e.timezone)) body.timezone = e.timezone
    if (str(e.slug)) body.slug = e.slug
    if (typeof e.status === 'string' && STATUSES.includes(e.status)) body.status = e.status
    plainFromTec('event', e, body)
    // TEC's own site URL stands in for an empty website: keep only a website of the event's own.
    if (str(e.website) && e.website !== e.url) body.website = e.website
    body.image = obj(e.image) && str(e.image.url) ? e.image.url : null
    body.cost = costOf(e)
    if (e.event_status !== undefined && e.event_status !== null) body.event_status = e.event_status
    const record: SourceRecord = {
      kind: 'event',
      sourceId,
      ref,
      body,
      refs: {
        venue: venues.map((v) => this.sid('venue', v)),
        organizer: organizers.map((o) => this.sid('organizer', o)),
        categories: categories.map((c) => this.sid('category', c)),
        tags: tags.map((t) => this.sid('tag', t)),
      },
    }
    if (!venues.length) body.venue = null
    if (series) {
      const headSid = this.heads.get(Number(series.id))
      if (Number(series.id) === Number(e.id) && obj(e.recurrence) && str(e.recurrence.rrule)) {
        body.recurrence = { rrule: e.recurrence.rrule, rdate: e.recurrence.rdate ?? [], exdate: e.recurrence.exdate ?? [] }
        this.heads.set(Number(e.id), sourceId)
      } else if (series.detached && headSid) {
        // Our API shows an occurrence's place in its series, not its original start: matched by position.
        record.occurrenceOf = { sourceId: headSid, original: String(e.start_date), position: Number(series.position) }
      }
    } else if (Number(e.post_parent) > 0) {
      // TEC Pro's occurrences are posts under their first one; its API gives no rule to rebuild
      // them from, so each comes in as a single event (our rules cannot be inferred safely).
      const parent = String(e.post_parent)
      if (!this.proSeries.has(parent)) {
        this.proSeries.add(parent)
        record.warnings = [`part of TEC Pro's recurring series ${parent}: its occurrences are imported as single events`]
      }
    }
    yield record
  }
}

/** TEC's cost: the numbers it parsed with the site's currency symbol, else the text as written. */
function costOf(e: Json): unknown {
  const d = obj(e.cost_details) ? e.cost_details : {}
  const values = Array.isArray(d.values) ? d.values.filter((v: unknown) => typeof v === 'string' && v !== '') : []
  const symbol = str(d.currency_symbol) ?? ''
  if (values.length && values.every((v: string) => /^\d+(?:[.,]\d+)?$/.test(v)))
    return values.map((v: string) => (d.currency_position === 'postfix' ? `${v}${symbol}` : `${symbol}${v}`))
  return str(e.cost) ?? null
}

/** The resume point a run stored, or null: none stored, or not one this reader wrote. */
function resumePoint(stored: string | null | undefined): Cursor | null {
  if (!stored) return null
  let parsed: Cursor
  try {
    parsed = JSON.parse(stored) as Cursor
  } catch {
    return null // a resume point that does not parse says nothing: the run starts from the first page
  }
  return parsed && typeof parsed.status === 'string' && Number.isInteger(parsed.page) ? parsed : null
}

/**
 * The statuses read one pass each: all at once, or (a TEC site, which takes one status at a
 * time) one pass per status. Reading the first page now makes a refused or unreadable source
 * fail as a whole (exit 1), before anything is written.
 */
async function statusPasses(
  events: string,
  get: TecGet,
  query: (status: string) => Record<string, string>,
  resume: Cursor | null,
  o: TecOptions,
): Promise<string[]> {
  let passes = o.auth ? [STATUSES.join(',')] : ['publish']
  const probeFrom = resume ? resume.page + 1 : 1
  try {
    await get(`${events}?${new URLSearchParams({ ...query(resume?.status ?? passes[0]!), page: String(probeFrom) })}`)
  } catch (e) {
    const data = e instanceof TecHttpError && e.status === 400 && obj(e.body) ? e.body.data : undefined
    const params = obj(data) ? data.params : undefined
    if (!(obj(params) && 'status' in params)) {
      if (!(e instanceof TecHttpError && e.status === 404 && probeFrom > 1)) throw e
    } else if (o.auth && !resume) {
      // TEC takes one status at a time: a pass per status.
      passes = [...STATUSES]
      await get(`${events}?${new URLSearchParams({ ...query(passes[0]!), page: '1' })}`)
    } else throw e
  }
  if (o.auth && resume && !resume.status.includes(',')) passes = [...STATUSES]
  return passes
}

/**
 * Reads a TEC site (or another calendar-events-router) into source records. `links` holds the
 * resume point of an interrupted run.
 *
 * @example
 * const read = await readTec('https://site.example', 'tec:https://site.example', storage.importLinks!, { auth: 'me:app pass word' })
 * for await (const r of read.records) console.log(r.kind, r.sourceId)
 */
export async function readTec(base: string, source: string, links: ImportLinkStore, o: TecOptions = {}): Promise<SourceRead> {
  const budget = resolveBudget(o.budget)
  const deadline = Date.now() + budget.sourceMs
  const get = tecGetter(base, o, deadline)
  const root = await apiRoot(base, get)
  const reader = new TecReader(root, get, budget, deadline)
  const perPage = String(o.perPage ?? 50)
  const state = await links.sourceState(source)
  const resume = resumePoint(state?.resume)
  const query = (status: string): Record<string, string> => ({
    start_date: FAR_PAST,
    end_date: FAR_FUTURE,
    per_page: perPage,
    ...(status === 'publish' && !o.auth ? {} : { status }),
  })
  const passes = await statusPasses(`${root}/events`, get, query, resume, o)
  if (resume) reader.complete = false // records before the resume point are not seen: nothing may be trashed

  const save = async (cursor: Cursor | null) => {
    if (o.dryRun) return
    const now = await links.sourceState(source)
    await links.putSourceState({
      source,
      etag: now?.etag ?? null,
      lastModified: now?.lastModified ?? null,
      checkedAt: toUtcString(new Date()),
      resume: cursor ? JSON.stringify(cursor) : null,
    })
  }

  // The last events page handed out whole: stored once the core says its records are written.
  let reached: Cursor | null = null

  async function* records(): AsyncGenerator<SourceRecord> {
    try {
      yield* reader.terms('category')
      yield* reader.terms('tag')
      yield* reader.linkedList('venue')
      yield* reader.linkedList('organizer')
    } catch (e) {
      reader.complete = false
      yield { kind: 'event', sourceId: 'source', ref: 'terms, venues and organizers', error: (e as Error).message }
      return
    }
    let skipping = resume !== null
    // After a failed pass the resume point stays before it; the other passes are still read.
    let failed = false
    for (const status of passes) {
      if (skipping && status !== resume!.status) continue
      const from = skipping ? resume!.page + 1 : 1
      skipping = false
      try {
        for await (const { page, list } of reader.pages('/events', 'events', query(status), from)) {
          for (const e of list) yield* reader.event(e)
          // Handed out, not yet written: the core takes a group of records before it writes them.
          if (!failed) reached = { status, page }
        }
      } catch (e) {
        failed = true
        reader.complete = false
        yield { kind: 'event', sourceId: 'source', ref: `events (${status})`, error: (e as Error).message }
      }
    }
    reader.finished = !failed
  }

  return {
    records: records(),
    complete: () => reader.complete,
    warnings: () => reader.warnings,
    async written() {
      const cursor = reached
      reached = null
      if (cursor) await save(cursor)
    },
    // The whole source was read: the next run starts from the first page again.
    commit: () => (reader.finished ? save(null) : Promise.resolve()),
  }
}
