/**
 * Recurring series: every occurrence is an event of its own (own id and slug, listed and
 * filtered like any event); later occurrences point at the first through `post_parent`; the
 * first keeps the rule (storage `series.rule`). This module handles the series part of event
 * requests: it turns a `recurrence` write into occurrences (written by occurrences.ts), applies
 * edits and deletes with their `recurrence_scope`. The series fields of a representation are
 * representation/series.ts; the horizon of open-ended series is series-horizon.ts.
 */
import { ApiError, invalidParam } from '../http/errors.js'
import { expandRule, formatRule, isBounded, parseRule, RuleError, type Rule } from '../recurrence/index.js'
import { fieldsWhere } from '../storage/fields.js'
import type { EventRecord, PostPatch, SeriesMember, SeriesRule, StorageTx } from '../storage/types.js'
import { epochSecondsToParts, formatWallClock } from '../time/format.js'
import { parseDateInput } from '../time/parse.js'
import { localToUtc, utcToLocal } from '../time/zone.js'
import type { Context } from '../context.js'
import { schedule } from './dates.js'
import { insertOccurrence, occurrenceOf, occurrenceSlug, placeAt, plusSeconds, seconds } from './occurrences.js'
import { horizonOf } from './series-horizon.js'
import { moveToTrash, writePost } from './trash.js'
import { touchSeries } from './series-version.js'

export type Scope = 'this' | 'following' | 'all'

const bad = (reason: string) => invalidParam('recurrence', { message: `Invalid recurrence: ${reason}`, code: 'rest_invalid_recurrence' })
const badScope = (reason: string) => invalidParam('recurrence_scope', { message: reason, code: 'rest_invalid_recurrence_scope' })

/** What a `recurrence` value asks for, parsed; null: no recurrence (`null` or `""`). */
export interface RecurrenceInput {
  rule: Rule
  rdate: DateRef[]
  exdate: DateRef[]
}

/** A date of rdate/exdate: wall-clock, or a whole day (`dayOnly`) meaning "that day's occurrence". */
interface DateRef {
  wall: string
  dayOnly: boolean
  given: string
}

const DAY_ONLY = /^\s*(\d{4}-\d{2}-\d{2}|\d{8})\s*$/

function dateRef(ctx: Context, value: unknown, tz: string, what: string): DateRef {
  const wall = parseDateInput(value, tz, ctx.now)
  if (wall === null) throw bad(`${what} ${JSON.stringify(value)} is not a date.`)
  return { wall, dayOnly: typeof value === 'string' && DAY_ONLY.test(value), given: String(value) }
}

export function parseRecurrence(ctx: Context, value: unknown, tz: string): RecurrenceInput | null {
  if (value === undefined || value === null || value === '') return null
  // The `recurrence` schema checked this shape (a string, or { rrule, rdate?, exdate? }) and left the value as sent.
  const obj = typeof value === 'string' ? { rrule: value } : (value as { rrule: string; rdate?: unknown[]; exdate?: unknown[] })
  let rule: Rule
  try {
    rule = parseRule(obj.rrule)
  } catch (e) {
    if (e instanceof RuleError) throw bad(e.message)
    throw e
  }
  return {
    rule,
    rdate: (obj.rdate ?? []).map((d) => dateRef(ctx, d, tz, 'rdate')),
    exdate: (obj.exdate ?? []).map((d) => dateRef(ctx, d, tz, 'exdate')),
  }
}

/** The occurrences of a series, validated: what gets written. */
export interface SeriesPlan {
  rule: SeriesRule
  starts: string[]
}

/**
 * UNTIL in the form RFC 5545 asks beside a DTSTART with a zone: a UTC date-time for timed
 * events (a bare date means through the end of that local day), a date for all-day ones.
 */
function normalizeUntil(rule: Rule, tz: string, allDay: boolean): Rule {
  const u = rule.until
  if (!u) return rule
  if (allDay) {
    const date = u.time === undefined ? u.date : (u.utc ? utcToLocal(`${u.date} ${u.time}`, tz) : `${u.date} ${u.time}`).slice(0, 10)
    return { ...rule, until: { date, utc: false } }
  }
  if (u.time !== undefined && u.utc) return rule
  const utc = localToUtc(u.time === undefined ? `${u.date} 23:59:59` : `${u.date} ${u.time}`, tz)
  return { ...rule, until: { date: utc.slice(0, 10), time: utc.slice(11), utc: true } }
}

/** Expands `input` from `start` (wall-clock in `tz`) and checks it against the options. */
export function planSeries(
  ctx: Context,
  input: RecurrenceInput,
  start: string,
  tz: string,
  allDay: boolean,
  horizonFrom?: string,
): SeriesPlan {
  const cap = ctx.options.recurrence.maxOccurrences
  const rule = normalizeUntil(input.rule, tz, allDay)
  if (rule.count !== undefined && rule.count > cap) throw bad(`COUNT=${rule.count} is more than the ${cap} occurrences a series may have.`)
  if (rule.until) {
    const until = rule.until.time === undefined ? `${rule.until.date} 23:59:59` : `${rule.until.date} ${rule.until.time}`
    const first = rule.until.utc ? localToUtc(start, tz) : start
    if (until < first) throw bad('UNTIL is before the start.')
  }
  const horizon = horizonOf(horizonFrom && horizonFrom > ctx.nowLocal ? horizonFrom : ctx.nowLocal, ctx.options.recurrence.horizonMonths)
  const fromRule = expandRule(rule, start, { timezone: tz, horizon: horizon > start ? horizon : start, max: cap + 1 })
  if (isBounded(rule) && fromRule.length > cap) throw bad(`the rule has more than the ${cap} occurrences a series may have.`)
  const time = start.slice(11)
  const all = new Set(fromRule.slice(0, cap))
  for (const r of input.rdate) {
    const wall = r.dayOnly ? `${r.wall.slice(0, 10)} ${time}` : r.wall
    if (wall < start) throw bad(`rdate ${r.given} is before the start.`)
    all.add(wall)
  }
  const exdate: string[] = []
  for (const x of input.exdate) {
    const hit = [...all].find((s) => (x.dayOnly ? s.slice(0, 10) === x.wall.slice(0, 10) : s === x.wall))
    if (hit === undefined) throw bad(`exdate ${x.given} is not an occurrence of the rule.`)
    all.delete(hit)
    exdate.push(hit)
  }
  const starts = [...all].sort()
  if (starts.length === 0) throw bad('the rule has no occurrence from the start on.')
  if (starts.length > cap) throw bad(`the series has more than the ${cap} occurrences a series may have.`)
  const rdate = input.rdate.map((r) => (r.dayOnly ? `${r.wall.slice(0, 10)} ${time}` : r.wall)).filter((w) => !exdate.includes(w))
  const stored: SeriesRule = { rrule: formatRule(rule), rdate: [...new Set(rdate)].sort(), exdate: exdate.sort() }
  if (!isBounded(rule)) stored.through = horizon
  return { rule: stored, starts }
}

/**
 * Makes `event` the first occurrence of the plan's series (moved to the first start when the
 * rule begins later) and writes the others. Runs inside the caller's transaction.
 */
export async function writeSeries(ctx: Context, tx: StorageTx, event: EventRecord, plan: SeriesPlan): Promise<EventRecord> {
  const first = plan.starts[0]!
  // An open-ended series numbers what lies past its horizon in ids of its own (provisional.ts);
  // a rule written again gets a new block, so no id it showed can name another occurrence.
  const rule = plan.rule.through !== undefined && tx.reserveIds ? { ...plan.rule, ids: await tx.reserveIds(event.id) } : plan.rule
  const patch: PostPatch<'event'> = {
    seriesId: event.id,
    parentId: 0,
    series: { position: 1, original: first, rule },
  }
  if (first !== event.startDate) {
    const length = seconds(event.endDate) - seconds(event.startDate)
    Object.assign(patch, placeAt(first, length, event.allDay, event.timezone))
  }
  const head = await tx.updatePost(event.id, 'event', patch)
  await insertOccurrences(
    ctx,
    tx,
    head,
    plan.starts.slice(1).map((start, i) => ({ start, position: i + 2 })),
  )
  return head
}

/** Later occurrences of `head`, in bulk where the storage can; taken slugs get the usual suffix. */
async function insertOccurrences(
  ctx: Context,
  tx: StorageTx,
  head: EventRecord,
  items: Array<{ start: string; position: number }>,
): Promise<void> {
  if (!tx.insertEvents) {
    for (const { start, position } of items) await insertOccurrence(ctx, tx, head, head, start, position)
    return
  }
  // Two occurrences on one day (an RDATE) share a slug: the second goes the one-by-one way.
  const seen = new Set<string>()
  const bulk: typeof items = []
  const later: typeof items = []
  for (const item of items) {
    const slug = occurrenceSlug(head, item.start)
    ;(seen.has(slug) ? later : bulk).push(item)
    seen.add(slug)
  }
  const records = bulk.map(({ start, position }) => ({
    ...occurrenceOf(head, start, position, head.id, ctx),
    slug: occurrenceSlug(head, start),
  }))
  const stored = await tx.insertEvents(records)
  stored.forEach((r, i) => r === null && later.push(bulk[i]!))
  for (const { start, position } of later) await insertOccurrence(ctx, tx, head, head, start, position)
}

// ---------------------------------------------------------------------------------------------
// Updates

/** Fields an `all`/`following` edit copies from the edited occurrence to the others: the field table's `shared` role. */
const SHARED: ReadonlyArray<keyof PostPatch<'event'>> = fieldsWhere('event', 'shared')

/** The scope an update or delete of `current` uses; 400 when one is given for a lone event. */
export function scopeOf(current: EventRecord, asked: Scope | undefined, forDelete = false): Scope | null {
  if (!current.seriesId) {
    if (asked !== undefined) throw badScope('The event is not part of a recurring series.')
    return null
  }
  if (asked !== undefined) return asked
  return current.seriesId === current.id && !forDelete ? 'all' : 'this'
}

export interface SeriesUpdate {
  scope: Scope | null
  /** undefined: the rule stays; null: the series ends; else the new rule. */
  recurrence: RecurrenceInput | null | undefined
  /** The dates changed (start, end, zone or all-day). */
  datesChange: boolean
}

/** Validates what can be validated before the transaction; null: an ordinary update. */
export function seriesUpdate(
  ctx: Context,
  current: EventRecord,
  input: { recurrence_scope?: Scope; recurrence?: unknown },
  datesChange: boolean,
  tz: string,
): SeriesUpdate | null {
  const scope = scopeOf(current, input.recurrence_scope)
  const recurrence = input.recurrence === undefined ? undefined : parseRecurrence(ctx, input.recurrence, tz)
  if (scope === null && !recurrence) return null
  if (scope === 'this' && recurrence !== undefined)
    throw badScope('A rule change applies to following or all occurrences, not this one alone.')
  return { scope, recurrence, datesChange }
}

const seriesChanged = () => new ApiError(409, 'rest-series-changed', 'The series changed while this request ran; read it again and retry.')

/** An event this transaction holds, read again after its own writes; null when it is gone. */
async function eventOrNull(tx: StorageTx, id: number): Promise<EventRecord | null> {
  const post = await tx.getPost(id)
  return post && post.type === 'event' ? post : null
}

/** As eventOrNull, for one the transaction has just written: gone means the series changed. */
async function reread(tx: StorageTx, id: number): Promise<EventRecord> {
  const event = await eventOrNull(tx, id)
  if (!event) throw seriesChanged()
  return event
}

/** One field from a patch or record to another patch, typed as the same key on both sides. */
function copy<K extends keyof PostPatch<'event'>>(to: PostPatch<'event'>, from: PostPatch<'event'>, key: K): void {
  to[key] = from[key]
}

/** `e` as this transaction sees it; 409 when it is gone or (`inSeries`) no longer in a series. */
async function fresh(tx: StorageTx, e: EventRecord, inSeries: boolean): Promise<EventRecord> {
  const now = await tx.getPost(e.id)
  if (!now || now.type !== 'event' || (inSeries && (!now.seriesId || !now.series))) throw seriesChanged()
  return now
}

async function headOf(tx: StorageTx, e: EventRecord): Promise<EventRecord> {
  const head = e.seriesId === e.id ? e : await tx.getPost(e.seriesId!)
  if (!head || head.type !== 'event' || !head.series?.rule)
    throw new ApiError(409, 'rest-series-missing', 'The series of this event no longer exists.')
  return head
}

/** The rule of a series cut before `start`: it ends with the occurrence before it. */
function cutBefore(rule: SeriesRule, start: string, tz: string, allDay: boolean): SeriesRule {
  const parsed = parseRule(rule.rrule)
  delete parsed.count
  if (allDay) parsed.until = { date: formatWallClock(epochSecondsToParts(seconds(start) - 86400)).slice(0, 10), utc: false }
  else {
    const utc = localToUtc(start, tz)
    const before = formatWallClock(epochSecondsToParts(seconds(utc) - 1))
    parsed.until = { date: before.slice(0, 10), time: before.slice(11), utc: true }
  }
  const { through: _t, ids: _i, ...rest } = rule
  return { ...rest, rrule: formatRule(parsed), rdate: rule.rdate.filter((d) => d < start), exdate: rule.exdate.filter((d) => d < start) }
}

/** An update of a series member, as this transaction sees it. */
interface SeriesEdit {
  ctx: Context
  tx: StorageTx
  /** The changed fields, already resolved (links included). */
  patch: PostPatch<'event'>
  slug: string | undefined
  /** The edited occurrence, read inside the transaction. */
  current: EventRecord
  head: EventRecord
  members: EventRecord[]
}

/**
 * Applies an update of a series member (or makes a lone event a series) inside the transaction.
 * `patch` holds the changed fields, already resolved (links included).
 */
export async function applySeriesUpdate(
  ctx: Context,
  tx: StorageTx,
  patch: PostPatch<'event'>,
  slug: string | undefined,
  u: SeriesUpdate,
  stale: EventRecord,
): Promise<EventRecord> {
  // The request read the event before its transaction began: a concurrent series edit may have
  // moved it since, so everything below works from this transaction's own reads.
  const current = await fresh(tx, stale, u.scope !== null)
  if (u.scope === null) return startSeries(ctx, tx, current, patch, slug, u.recurrence!)
  const head = await headOf(tx, current)
  const members = await tx.seriesMembers(head.id)
  const edit: SeriesEdit = { ctx, tx, patch, slug, current, head, members }
  if (u.recurrence === null) return endSeries(edit, u.scope)
  if (u.scope === 'this') return editOccurrence(edit)
  // `following` from the first occurrence is `all`.
  const scope = u.scope === 'following' && current.id === head.id ? 'all' : u.scope
  return editSeries(edit, scope, u.recurrence, u.datesChange)
}

/** A lone event becoming a series: the event as patched is its first occurrence. */
async function startSeries(
  ctx: Context,
  tx: StorageTx,
  current: EventRecord,
  patch: PostPatch<'event'>,
  slug: string | undefined,
  recurrence: RecurrenceInput,
): Promise<EventRecord> {
  const written = await writePost(tx, current, patch, slug)
  const plan = planSeries(ctx, recurrence, written.startDate, written.timezone, written.allDay)
  return writeSeries(ctx, tx, written, plan)
}

/**
 * Ends the series: the first occurrence stays as a lone event (or, from `following`, the
 * series is cut before this one).
 */
async function endSeries({ ctx, tx, patch, slug, current, head, members }: SeriesEdit, scope: Scope): Promise<EventRecord> {
  if (scope === 'following' && current.id !== head.id) {
    for (const m of members) if (m.startDate >= current.startDate) await tx.deletePost(m.id)
    const rule = cutBefore(head.series!.rule!, current.series!.original, head.timezone, head.allDay)
    await tx.updatePost(head.id, 'event', touchSeries(ctx, head, rule))
    return reread(tx, head.id)
  }
  for (const m of members) if (m.id !== head.id) await tx.deletePost(m.id)
  const edited = head.id === current.id
  return writePost(tx, head, { ...(edited ? patch : {}), seriesId: 0, series: null, parentId: 0 }, edited ? slug : undefined)
}

/** A `this` edit: the occurrence is marked detached so that later edits of the series leave it as it is. */
async function editOccurrence({ ctx, tx, patch, slug, current, head }: SeriesEdit): Promise<EventRecord> {
  // Trashing one occurrence (or restoring it) is an exception of the series, as DELETE is.
  const trashing = patch.status === 'trash' && current.status !== 'trash'
  const restoring = patch.status !== undefined && patch.status !== 'trash' && current.status === 'trash'
  const series: SeriesMember = { ...current.series!, detached: true }
  if (trashing || restoring) {
    const rule = head.series!.rule!
    const original = current.series!.original
    const exdate = trashing ? [...new Set([...rule.exdate, original])].sort() : rule.exdate.filter((d) => d !== original)
    if (head.id === current.id) series.rule = { ...rule, exdate }
    else await tx.updatePost(head.id, 'event', touchSeries(ctx, head, { ...rule, exdate }))
  }
  const written = await writePost(tx, current, { ...patch, series }, slug)
  // The series VEVENT stands for its occurrences edited on their own too: a change a feed shows
  // of one is a change of the series, recorded on its first occurrence.
  if (head.id !== current.id && !trashing && !restoring && written.sequence !== current.sequence)
    await tx.updatePost(head.id, 'event', touchSeries(ctx, head))
  return written
}

/** What a `following` or `all` edit writes to the occurrences it reaches. */
interface SeriesRewrite {
  /** The head with the edit applied: the model the other occurrences follow. */
  template: EventRecord
  /** The rule of the series being edited (after a split: of its later part). */
  rule: SeriesRule
  /** Members that take the shared fields: occurrences edited on their own or trashed keep theirs. */
  affected: EventRecord[]
  /** Members of the series being edited (after a split: this occurrence and the later ones). */
  inSeries: EventRecord[]
}

/** A `following` or `all` edit of a series, `following` from a later occurrence. */
async function editSeries(
  e: SeriesEdit,
  scope: Exclude<Scope, 'this'>,
  recurrence: RecurrenceInput | undefined,
  datesChange: boolean,
): Promise<EventRecord> {
  const { tx, patch, slug, current, head, members } = e
  const affected = members.filter(
    (m) => !m.series?.detached && (scope === 'all' || m.startDate >= current.startDate) && m.status !== 'trash',
  )
  const { newHead, rule } = scope === 'following' ? await splitAt(e) : { newHead: head, rule: head.series!.rule! }
  // The edited occurrence's changes, applied to the head as the template of the series.
  const template = await writePost(tx, newHead, shiftPatch(newHead, current, patch), newHead.id === current.id ? slug : undefined)
  const inSeries = members.filter((m) => scope === 'all' || m.startDate >= current.startDate)
  const rewrite: SeriesRewrite = { template, rule, affected, inSeries }
  if (recurrence !== undefined || datesChange) return reexpandSeries(e, rewrite, newHead, recurrence)
  return propagateShared(e, rewrite, scope === 'following' ? current.series!.position - 1 : 0)
}

/** Split: the old series ends before this occurrence; this one heads the rest, with the rule it keeps. */
async function splitAt({ ctx, tx, current, head, members }: SeriesEdit): Promise<{ newHead: EventRecord; rule: SeriesRule }> {
  const old = head.series!.rule!
  const cut = cutBefore(old, current.series!.original, head.timezone, head.allDay)
  await tx.updatePost(head.id, 'event', touchSeries(ctx, head, cut))
  const parsed = parseRule(old.rrule)
  if (parsed.count !== undefined) {
    // COUNT counts the rule's occurrences, excluded ones included: those from here on remain.
    const all = expandRule(parsed, head.series!.original, { timezone: head.timezone, horizon: head.series!.original, max: parsed.count })
    parsed.count = Math.max(1, all.filter((w) => w >= current.series!.original).length)
  }
  const rule: SeriesRule = {
    ...old,
    rrule: formatRule(parsed),
    rdate: old.rdate.filter((d) => d >= current.series!.original),
    exdate: old.exdate.filter((d) => d >= current.series!.original),
  }
  for (const m of members) {
    if (m.startDate < current.startDate) continue
    await tx.updatePost(m.id, 'event', { seriesId: current.id, parentId: m.id === current.id ? 0 : current.id })
  }
  return { newHead: await reread(tx, current.id), rule }
}

/**
 * Neither the dates nor the rule changed: the occurrences stay where they are and only take the
 * shared fields the patch holds; after a split (`shift`) they are numbered from the new head.
 */
async function propagateShared(
  { ctx, tx, patch, current }: SeriesEdit,
  { template, rule, affected, inSeries }: SeriesRewrite,
  shift: number,
): Promise<EventRecord> {
  const shared: PostPatch<'event'> = {}
  for (const k of SHARED) if (k in patch) copy(shared, patch, k)
  shared.modified = ctx.nowLocal
  shared.modifiedUtc = ctx.nowUtc
  for (const m of inSeries) {
    if (m.id === template.id) continue
    const latest = await reread(tx, m.id)
    const place: PostPatch<'event'> = shift ? { series: { ...latest.series!, position: latest.series!.position - shift } } : {}
    await writePost(tx, latest, affected.some((x) => x.id === m.id) ? { ...shared, ...place } : place)
  }
  await tx.updatePost(template.id, 'event', { series: { ...template.series!, position: template.series!.position - shift, rule } })
  return reread(tx, current.id)
}

/**
 * Re-expand: occurrences on days the new rule keeps stay (same id), the others go, new days
 * are added. Exceptions stay excluded (at the new time of day) and occurrences edited on their
 * own stay as they are, re-anchored to the new occurrence of their day (their RECURRENCE-ID).
 */
async function reexpandSeries(
  e: SeriesEdit,
  { template, rule, affected, inSeries }: SeriesRewrite,
  newHead: EventRecord,
  recurrence: RecurrenceInput | undefined,
): Promise<EventRecord> {
  const { ctx, tx, current } = e
  const { plan, day } = replan(ctx, template, newHead, rule, recurrence)
  const keep = new Map(affected.filter((m) => m.id !== template.id).map((m) => [day(m.startDate.slice(0, 10)), m]))
  const detached = inSeries.filter((m) => m.series?.detached && m.id !== template.id)
  const detachedDays = new Map(detached.map((m) => [day(m.series!.original.slice(0, 10)), m]))
  const first = plan.starts[0]!
  const headFields = first === template.startDate ? {} : movedTo(template, first)
  await placeOccurrences(e, template, plan.starts, keep, detachedDays)
  // Edited occurrences on days the new rule no longer has stay in the series as extra dates.
  for (const own of detachedDays.values()) {
    plan.rule.rdate = [...new Set([...plan.rule.rdate, own.startDate])].sort()
    await tx.updatePost(own.id, 'event', { series: { ...own.series!, original: own.startDate } })
  }
  const written = await tx.updatePost(template.id, 'event', { ...headFields, series: { position: 1, original: first, rule: plan.rule } })
  for (const gone of keep.values()) await tx.deletePost(gone.id)
  return (await eventOrNull(tx, current.id)) ?? written
}

/**
 * The occurrences of the series from the template's dates (the stored rule when no new one was
 * sent), less the days its exceptions fall on, and which new day each old day becomes.
 */
function replan(
  ctx: Context,
  template: EventRecord,
  newHead: EventRecord,
  rule: SeriesRule,
  recurrence: RecurrenceInput | undefined,
): { plan: SeriesPlan; day: (d: string) => string } {
  const input: RecurrenceInput = recurrence ?? {
    rule: parseRule(rule.rrule),
    rdate: rule.rdate.map((w) => ({ wall: `${w.slice(0, 10)} 00:00:00`, dayOnly: true, given: w })),
    exdate: [],
  }
  const plan = planSeries(ctx, input, template.startDate, template.timezone, template.allDay)
  const day = dayTranslation(recurrence === undefined, newHead, rule, plan.starts)
  const excludedDays = new Set((recurrence ? [] : rule.exdate).map((x) => day(x.slice(0, 10))))
  const removed = plan.starts.filter((s, i) => i > 0 && excludedDays.has(s.slice(0, 10)))
  plan.starts = plan.starts.filter((s, i) => i === 0 || !excludedDays.has(s.slice(0, 10)))
  plan.rule.exdate = [...new Set([...plan.rule.exdate, ...removed])].sort()
  return { plan, day }
}

/**
 * Writes every occurrence after the first: one edited on its own is re-anchored, one kept is
 * moved and takes the shared fields, a day with neither gets a new occurrence. Those used are
 * taken out of `keep` and `detachedDays`, so what is left there has no day in the new series.
 */
async function placeOccurrences(
  { ctx, tx }: SeriesEdit,
  template: EventRecord,
  starts: string[],
  keep: Map<string, EventRecord>,
  detachedDays: Map<string, EventRecord>,
): Promise<void> {
  const shared: PostPatch<'event'> = { modified: ctx.nowLocal, modifiedUtc: ctx.nowUtc }
  for (const k of SHARED) copy(shared, template, k)
  for (let i = 1; i < starts.length; i++) {
    const start = starts[i]!
    const day = start.slice(0, 10)
    const own = detachedDays.get(day)
    if (own) {
      detachedDays.delete(day)
      await tx.updatePost(own.id, 'event', {
        parentId: template.id,
        seriesId: template.id,
        series: { ...own.series!, position: i + 1, original: start },
      })
      continue
    }
    const existing = keep.get(day)
    if (existing) {
      keep.delete(day)
      await writePost(tx, existing, {
        ...shared,
        ...movedTo(template, start),
        parentId: template.id,
        seriesId: template.id,
        series: { position: i + 1, original: start },
      })
    } else await insertOccurrence(ctx, tx, template, template, start, i + 1)
  }
}

/** The dates of `event` moved to `start`, its length kept. */
function movedTo(event: EventRecord, start: string): PostPatch<'event'> {
  const length = seconds(event.endDate) - seconds(event.startDate)
  return placeAt(start, length, event.allDay, event.timezone)
}

/**
 * Which new day an occurrence of old day `d` becomes. When only the dates of the series moved to
 * another day (same rule, no extra dates), the n-th occurrence becomes the n-th one: it keeps its
 * id, an edited one stays anchored to it and an excluded one stays excluded. Otherwise a day
 * stays the day (occurrences on days the new rule keeps stay).
 */
function dayTranslation(sameRule: boolean, head: EventRecord, rule: SeriesRule, starts: string[]): (d: string) => string {
  const same = (d: string) => d
  const from = head.series!.original
  if (!sameRule || rule.rdate.length || !starts.length || starts[0]!.slice(0, 10) === from.slice(0, 10)) return same
  const parsed = parseRule(rule.rrule)
  const before = expandRule(parsed, from, { timezone: head.timezone, horizon: rule.through ?? from, max: starts.length })
  const days = new Map<string, string>()
  const count = Math.min(before.length, starts.length)
  for (let i = 0; i < count; i++) days.set(before[i]!.slice(0, 10), starts[i]!.slice(0, 10))
  // Not one-to-one (two occurrences on a day): fall back to days.
  if (days.size !== count || new Set(days.values()).size !== count) return same
  // An old day past the new list has no counterpart: a key no new day can match.
  return (d) => days.get(d) ?? `gone ${d}`
}

/**
 * An `all` edit sent to a later occurrence names that occurrence's dates: the head moves by the
 * same change of time of day and length, not to that day.
 */
function shiftPatch(head: EventRecord, edited: EventRecord, patch: PostPatch<'event'>): PostPatch<'event'> {
  if (head.id === edited.id || patch.startDate === undefined) return patch
  const delta = seconds(patch.startDate) - seconds(edited.startDate)
  const length = seconds(patch.endDate ?? edited.endDate) - seconds(patch.startDate)
  const start = plusSeconds(head.startDate, delta)
  const tz = patch.timezone ?? head.timezone
  return { ...patch, ...schedule(start, plusSeconds(start, length), patch.allDay ?? head.allDay, tz) }
}

// ---------------------------------------------------------------------------------------------
// Deletes

/**
 * Trashes (or deletes for good) an occurrence with its scope: `this` adds it to the series'
 * exceptions, `following` cuts the series before it, `all` takes the whole series.
 */
export async function deleteInSeries(ctx: Context, tx: StorageTx, stale: EventRecord, scope: Scope, force: boolean): Promise<EventRecord> {
  const current = await fresh(tx, stale, true)
  const head = await headOf(tx, current)
  if (force && scope === 'this' && current.id === head.id) {
    throw badScope('The first occurrence holds the series: delete it for good with recurrence_scope=all, or trash it.')
  }
  const members = await tx.seriesMembers(head.id)
  const targets = scope === 'all' ? members : scope === 'following' ? members.filter((m) => m.startDate >= current.startDate) : [current]
  const rule = head.series!.rule!
  if (scope === 'this') {
    const exdate = [...new Set([...rule.exdate, current.series!.original])].sort()
    await tx.updatePost(head.id, 'event', touchSeries(ctx, head, { ...rule, exdate }))
  } else if (scope === 'following' && current.id !== head.id) {
    await tx.updatePost(head.id, 'event', touchSeries(ctx, head, cutBefore(rule, current.series!.original, head.timezone, head.allDay)))
  }
  let result = current
  for (const m of targets) {
    const latest = await eventOrNull(tx, m.id)
    if (!latest) continue
    if (force) await tx.deletePost(m.id)
    else if (latest.status !== 'trash') {
      const trashed = await moveToTrash(ctx, tx, latest)
      if (m.id === current.id) result = trashed
    }
    if (m.id === current.id && force) result = latest
  }
  return result
}
