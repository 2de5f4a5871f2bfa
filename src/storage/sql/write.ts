/**
 * The write statements, one function per StorageTx method; they run inside the transaction the
 * storage opened. Slug uniqueness is the database's job (unique indexes), never a read-then-
 * write race: inserts say ON CONFLICT DO NOTHING and report a conflict when no row came back;
 * updates that move a slug run inside a SAVEPOINT on PostgreSQL so the transaction survives the
 * conflict and the caller can try another slug.
 */
import type { EventRecord, NewPost, NewTerm, PostPatch, PostRecord, PostType, RecordOf, TermPatch, TermRecord } from '../types.js'
import { ID_BLOCK, ID_BLOCK_START, SlugConflictError } from '../types.js'
import type { Db } from './db.js'
import type { ColumnKind } from './dialect.js'
import type { SqlParam } from './driver.js'
import { classify } from './errors.js'
import { linkedShownChanged, nextSequence, seriesRuleShownChanged } from '../sequence.js'
import { clonePost } from '../clone.js'
import { dropFilterRef, insertEventFilters, syncEventFilters } from './event-filters.js'
import { insertEventWords, syncEventWords } from './event-words.js'
import { insertCustomValues, syncCustomValues } from './custom-values.js'
import { getPost, getTermRecord } from './read.js'
import { fieldsWhere } from '../fields.js'
import {
  POST_FIELDS,
  REFS,
  REF_COLUMNS,
  REF_KINDS,
  SEARCH_FIELDS,
  addRefRows,
  dayOf,
  encode,
  eventSearchText,
  linkedSearchText,
  linkedSearchValues,
  liveTermCount,
  newPostColumns,
  newPostRow,
  toInt,
  type LinkTable,
  type RefList,
} from './records.js'

/** Runs a write that may hit a unique slug index; a hit becomes SlugConflictError. */
async function guardSlug<T>(db: Db, slug: string, write: () => Promise<T>): Promise<T> {
  const savepoint = db.dialect.failedStatementAbortsTransaction
  if (savepoint) await db.run('SAVEPOINT calendar_slug')
  try {
    const result = await write()
    if (savepoint) await db.run('RELEASE SAVEPOINT calendar_slug')
    return result
  } catch (err) {
    if (classify(err) !== 'unique') throw err
    if (savepoint) await db.run('ROLLBACK TO SAVEPOINT calendar_slug')
    throw new SlugConflictError(slug)
  }
}

/** Multi-row INSERT in chunks that stay far below every engine's parameter limit. */
function insertRows(db: Db, table: string, columns: string[], kinds: ColumnKind[], rows: SqlParam[][]): Promise<unknown> {
  return db.insertMany(`INSERT INTO ${table} (${columns.join(', ')})`, kinds, rows)
}

/** Replaces an event's rows for the given link lists, keeping list order in `seq`. */
async function writeRefs(db: Db, eventId: number, lists: Partial<Record<RefList, number[]>>, replace: boolean): Promise<void> {
  for (const { list, kind, table } of REFS) {
    const ids = lists[list]
    if (!ids) continue
    if (replace) await db.run(`DELETE FROM ${table} WHERE event_id = ? AND kind = ?`, [eventId, kind])
    const rows = ids.map((id, seq) => [eventId, kind, seq, id])
    await insertRows(db, table, REF_COLUMNS[table], REF_KINDS, rows)
  }
}

/**
 * Rewrites a venue's or organizer's lower-cased search rows (one per non-empty field) and, on an
 * update, its search_text (an insert wrote it with the row).
 */
async function writeSearch(db: Db, post: PostRecord, replace: boolean): Promise<void> {
  if (post.type === 'event') return
  const rec = post as unknown as Record<string, unknown>
  if (replace) {
    await db.run('DELETE FROM post_search WHERE post_id = ?', [post.id])
    await db.run('UPDATE posts SET search_text = ? WHERE id = ?', [linkedSearchText(post.type, rec), post.id])
  }
  const rows = linkedSearchValues(post.type, rec).map(([field, value]) => [post.id, field, value] as SqlParam[])
  await insertRows(db, 'post_search', ['post_id', 'field', 'value'], ['int', 'text', 'text'], rows)
}

// What each derived table depends on: views of the field table (fields.ts).
/** The event fields copied into event_filters. */
const FILTERED_BY = fieldsWhere('event', 'filtered')
/** What an event's posts.search_text is made of. */
const EVENT_TEXT = fieldsWhere('event', 'searched')
/** What an event's postings in event_words depend on (event-words.ts). */
const WORDS_BY = fieldsWhere('event', 'indexed')
/** What an event's rows of event_custom_values depend on (custom-values.ts). */
const CUSTOM_INDEXED = fieldsWhere('event', 'customIndexed')
/** What term_counts depend on. */
const TERM_COUNTED = fieldsWhere('event', 'termCounted')
/** What event_day_counts depend on. */
const DAY_COUNTED = fieldsWhere('event', 'dayCounted')

type Counted = Pick<EventRecord, 'status' | 'language' | 'categoryIds' | 'tagIds'>

/**
 * Keeps term_counts right when an event changes from `before` (null: new) to `after` (null:
 * deleted): a
 * published event adds one to each term it lists (twice listed, twice counted) if the term is of
 * the event's language. Only the net changes are written, in term order (no lock-order cycles
 * between concurrent transactions).
 */
async function adjustTermCounts(db: Db, before: Counted | null, after: Counted | null): Promise<void> {
  const deltas = new Map<string, { id: number; language: string; k: number }>()
  const add = (e: Counted, sign: number) => {
    if (e.status !== 'publish') return
    for (const id of [...e.categoryIds, ...e.tagIds]) {
      const key = `${id} ${e.language}`
      const d = deltas.get(key) ?? { id, language: e.language, k: 0 }
      d.k += sign
      deltas.set(key, d)
    }
  }
  if (before) add(before, -1)
  if (after) add(after, 1)
  const changes = [...deltas.values()].filter((d) => d.k !== 0).sort((a, b) => a.id - b.id || (a.language < b.language ? -1 : 1))
  if (!changes.length) return
  // One statement for every term: each statement on term_counts also runs the journal's trigger
  // (a term's count is part of what it shows), so a statement per term cost a trigger per term.
  // A term counts only an event of its own language: the CASE adds nothing to another one's row.
  const cases = changes.map(() => 'WHEN term_id = ? AND t.language = ? THEN ?').join(' ')
  await db.run(
    `UPDATE term_counts SET n = n + (SELECT CASE ${cases} ELSE 0 END FROM terms t WHERE t.id = term_counts.term_id)
     WHERE ${db.dialect.inList('term_id', 'int')}`,
    [...changes.flatMap((d) => [d.id, d.language, d.k]), db.dialect.list([...new Set(changes.map((d) => d.id))])],
  )
}

type DayCounted = Pick<EventRecord, 'status' | 'language' | 'startDate' | 'endDate' | 'hideFromListings'>

/**
 * Keeps event_day_counts right when an event changes from `before` (null: new) to `after`
 * (null: deleted): a
 * listed event (not hidden) counts one in the row of its language, status, start day and end
 * day. Only net changes are written, in key order (no lock-order cycles between concurrent
 * transactions); a row that drops to zero stays (it costs one index entry, and keeps the
 * upsert a single statement).
 */
async function adjustDayCounts(db: Db, before: DayCounted | null, after: DayCounted | null): Promise<void> {
  const deltas = new Map<string, { key: string[]; k: number }>()
  const add = (e: DayCounted, sign: number) => {
    if (e.hideFromListings) return
    const key = [e.language, e.status, dayOf(e.startDate), dayOf(e.endDate)]
    const id = JSON.stringify(key)
    const d = deltas.get(id) ?? { key, k: 0 }
    d.k += sign
    deltas.set(id, d)
  }
  if (before) add(before, -1)
  if (after) add(after, 1)
  const changes = [...deltas.entries()].filter(([, d]) => d.k !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [, d] of changes) {
    await db.run(
      `INSERT INTO event_day_counts (language, status, start_day, end_day, n) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (language, status, start_day, end_day) DO UPDATE SET n = event_day_counts.n + excluded.n`,
      [...d.key, d.k],
    )
  }
}

/** Sets a term's counter from the links (a new term, or one whose language changed). */
async function recountTerm(db: Db, id: number, language: string): Promise<void> {
  await db.run(
    `INSERT INTO term_counts (term_id, n) VALUES (?, ${liveTermCount('?', '?')}) ON CONFLICT (term_id) DO UPDATE SET n = excluded.n`,
    [id, id, language],
  )
}

/**
 * What a create stores beside the record's own fields: revision 0, and for an event sequence 0
 * and no series unless it says so. Not yet its id (the insert hands it out). Given as overrides
 * rather than a copy of the record: a series copies 500 of them.
 */
function createdFields(record: NewPost): Record<string, unknown> {
  if (record.type !== 'event') return { revision: 0 }
  const ev = record as NewPost<'event'>
  return { sequence: 0, revision: 0, seriesId: ev.seriesId ?? 0, series: ev.series ?? null }
}

export async function insertPost<T extends PostType>(db: Db, record: NewPost<T>): Promise<RecordOf<T>> {
  const fixed = createdFields(record)
  const chosen = record.id
  const { columns } = newPostColumns(record.type, chosen !== undefined)
  const fresh = chosen === undefined ? db.dialect.freshPostId : null
  const counter = chosen !== undefined ? await postCounter(db) : null
  // A record starts its own translation group. Where the engine hands out the id inside the
  // statement, the row is written with it; else the id is known only after the insert, and an
  // update sets it (a second statement, and on PostgreSQL a second run of the journal's trigger).
  const values = columns.map((c) =>
    fresh && c === 'translation_group' ? 'COALESCE(NULLIF(CAST(? AS bigint), 0), (SELECT id FROM fresh))' : '?',
  )
  const rows = await db.query<{ id: unknown }>(
    `${fresh ? `WITH fresh AS (SELECT ${fresh} AS id) ` : ''}INSERT INTO posts (${fresh ? 'id, ' : ''}${columns.join(', ')})
     VALUES (${fresh ? '(SELECT id FROM fresh), ' : ''}${values.join(', ')})
     ON CONFLICT (type, language, slug) DO NOTHING RETURNING id`,
    newPostRow(record, chosen, fixed),
  )
  if (!rows[0]) throw new SlugConflictError(record.slug)
  const id = toInt(rows[0].id)
  if (counter !== null) await counter.restore()
  if (record.translationGroup === undefined && chosen === undefined && !fresh)
    await db.run('UPDATE posts SET translation_group = ? WHERE id = ?', [id, id])
  const stored = clonePost({ ...record, ...fixed, id, translationGroup: record.translationGroup ?? id } as unknown as PostRecord)
  if (stored.type === 'event') {
    await writeRefs(db, id, stored, false)
    await adjustTermCounts(db, null, stored)
    await adjustDayCounts(db, null, stored)
    await syncEventFilters(db, null, stored)
    await syncEventWords(db, null, stored)
    await syncCustomValues(db, null, stored)
  } else await writeSearch(db, stored, false)
  return clonePost(stored) as RecordOf<T>
}

/**
 * The first id of a block of ID_BLOCK for series `head` (StorageTx.reserveIds), and its row in
 * post_id_blocks. PostgreSQL's sequence steps a block at a time; on SQLite (one writer) the next
 * block follows the last one reserved.
 */
export async function reserveIds(db: Db, head: number): Promise<number> {
  const first =
    db.dialect.name === 'postgres'
      ? `nextval('post_id_block_seq')`
      : `(SELECT COALESCE(MAX(first_id) + ${ID_BLOCK}, ${ID_BLOCK_START}) FROM post_id_blocks)`
  const rows = await db.query<{ id: unknown }>(
    `INSERT INTO post_id_blocks (first_id, head_id) VALUES (${first}, ?) RETURNING first_id AS id`,
    [head],
  )
  return toInt(rows[0]!.id)
}

/**
 * SQLite's AUTOINCREMENT counter of posts, to be put back after a row was written under an id
 * of the caller's (NewPost.id): that id lies far past the ids handed out, and SQLite would
 * otherwise hand out the ids after it next. PostgreSQL's identity sequence ignores given ids.
 */
async function postCounter(db: Db): Promise<{ restore(): Promise<void> } | null> {
  if (db.dialect.name !== 'sqlite') return null
  const rows = await db.query<{ seq: unknown }>(`SELECT seq FROM sqlite_sequence WHERE name = 'posts'`)
  const seq = rows[0] ? toInt(rows[0].seq) : 0
  return { restore: () => db.run(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'posts'`, [seq]).then(() => undefined) }
}

/**
 * insertPost for many events in a few statements per chunk (a recurring series: 500 one-by-one
 * inserts are ~3,000 round trips, seconds on PostgreSQL). Writes exactly the rows insertPost
 * writes: the same row builder (newPostRow) and the same derived rows. A record whose slug is
 * taken is skipped (null).
 */
export async function insertEvents(db: Db, records: NewPost<'event'>[]): Promise<Array<EventRecord | null>> {
  // Where the engine hands out ids first, each row starts its own translation group in the
  // INSERT itself: updating the rows afterwards cost as much as inserting them.
  const reserve = db.dialect.reservePostIds
  const { columns, kinds } = newPostColumns('event', reserve !== null)
  const out: Array<EventRecord | null> = []
  const chunk = db.dialect.maxRows(columns.length)
  for (let start = 0; start < records.length; start += chunk) {
    const part = records.slice(start, start + chunk)
    const fixed = part.map(createdFields)
    const reserved = reserve ? (await db.query<{ id: unknown }>(reserve, [part.length])).map((r) => toInt(r.id)) : []
    const values = part.map((r, i) => newPostRow(r, reserve ? reserved[i]! : undefined, fixed[i]))
    const rows = await db.insertMany<{ id: unknown; slug: unknown }>(
      `INSERT INTO posts (${columns.join(', ')})`,
      kinds,
      values,
      'ON CONFLICT (type, language, slug) DO NOTHING RETURNING id, slug',
      true,
    )
    const ids = new Map(rows.map((r) => [String(r.slug), toInt(r.id)]))
    const own = reserve ? [] : part.filter((r) => r.translationGroup === undefined && ids.has(r.slug)).map((r) => ids.get(r.slug)!)
    if (own.length) await db.run(`UPDATE posts SET translation_group = id WHERE ${db.dialect.inList('id', 'int')}`, [db.dialect.list(own)])
    const stored: EventRecord[] = []
    part.forEach((r, i) => {
      const id = ids.get(r.slug)
      if (id === undefined) {
        out.push(null)
        return
      }
      // Its own copy: the caller's record is left as it was. The rows below are written before
      // the caller gets it back, so it may have this very object.
      const e = clonePost({ ...r, ...fixed[i], id, translationGroup: r.translationGroup ?? id } as unknown as EventRecord)
      stored.push(e)
      out.push(e)
    })
    const refs: Record<LinkTable, SqlParam[][]> = { event_links: [], event_terms: [] }
    for (const e of stored) addRefRows(refs, e.id, e)
    await insertRows(db, 'event_links', REF_COLUMNS.event_links, REF_KINDS, refs.event_links)
    await insertRows(db, 'event_terms', REF_COLUMNS.event_terms, REF_KINDS, refs.event_terms)
    // One counted "event" per language holding every term use: adjustTermCounts sums per id.
    const byLanguage = new Map<string, Counted>()
    for (const e of stored) {
      if (e.status !== 'publish') continue
      const c = byLanguage.get(e.language) ?? { status: 'publish', language: e.language, categoryIds: [], tagIds: [] }
      c.categoryIds.push(...e.categoryIds, ...e.tagIds)
      byLanguage.set(e.language, c)
    }
    for (const c of byLanguage.values()) await adjustTermCounts(db, null, c)
    await insertEventFilters(db, stored)
    await insertEventWords(db, stored)
    await insertCustomValues(db, stored)
    const days = new Map<string, { key: string[]; k: number }>()
    for (const e of stored) {
      if (e.hideFromListings) continue
      const key = [e.language, e.status, dayOf(e.startDate), dayOf(e.endDate)]
      const id = JSON.stringify(key)
      const d = days.get(id) ?? { key, k: 0 }
      d.k++
      days.set(id, d)
    }
    const dayRows = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => [...d.key, d.k] as SqlParam[])
    await db.insertMany(
      'INSERT INTO event_day_counts (language, status, start_day, end_day, n)',
      ['text', 'text', 'text', 'text', 'int'],
      dayRows,
      'ON CONFLICT (language, status, start_day, end_day) DO UPDATE SET n = event_day_counts.n + excluded.n',
    )
  }
  return out
}

export async function updatePost<T extends PostType>(db: Db, id: number, type: T, patch: PostPatch<T>): Promise<RecordOf<T>> {
  const current = await getPost(db, id)
  if (!current || current.type !== type) throw new Error(`no ${type} ${id}`)
  // Only the given fields change (a key present with `undefined` is treated as absent).
  const given: Record<string, unknown> = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
  delete given.sequence
  delete given.revision
  const next = clonePost({ ...current, ...given, id, type: current.type } as PostRecord)
  next.revision = current.revision + 1
  if (next.type === 'event') {
    next.sequence = nextSequence(current as EventRecord, next)
    if (next.sequence !== (current as EventRecord).sequence) given.sequence = next.sequence
    if (seriesRuleShownChanged(current as EventRecord, next))
      await db.run('UPDATE posts SET revision = revision + 1 WHERE series_id = ? AND id <> ?', [id, id])
  } else if (linkedShownChanged(current, next)) await bumpEvents(db, 'SELECT event_id FROM event_links WHERE linked_id = ?', id)
  const rec = next as unknown as Record<string, unknown>
  const changed = POST_FIELDS[type].filter((s) => s.field in given)
  // Every update is a new revision, also one that only changes links (stored in their own tables).
  const sets = ['revision = revision + 1', ...changed.map((s) => `${s.column} = ?`)]
  const params = changed.map((s) => encode(s.codec, rec[s.field]))
  if (next.type === 'event' && EVENT_TEXT.some((f) => f in given)) {
    sets.push('search_text = ?')
    params.push(eventSearchText(next))
  }
  {
    const write = () => db.run(`UPDATE posts SET ${sets.join(', ')} WHERE id = ?`, [...params, id])
    if (next.slug !== current.slug || next.language !== current.language) await guardSlug(db, next.slug, write)
    else await write()
  }
  if (next.type === 'event') {
    const lists = Object.fromEntries(REFS.filter((r) => r.list in given).map((r) => [r.list, next[r.list]]))
    await writeRefs(db, id, lists, true)
    if (TERM_COUNTED.some((k) => k in given)) await adjustTermCounts(db, current as EventRecord, next)
    if (DAY_COUNTED.some((k) => k in given)) await adjustDayCounts(db, current as EventRecord, next)
    if (FILTERED_BY.some((k) => k in given)) await syncEventFilters(db, current as EventRecord, next)
    if (WORDS_BY.some((k) => k in given)) await syncEventWords(db, current as EventRecord, next)
    if (CUSTOM_INDEXED.some((k) => k in given)) await syncCustomValues(db, current, next)
  } else if (SEARCH_FIELDS[next.type].some((f) => f in given)) await writeSearch(db, next, true)
  return clonePost(next) as RecordOf<T>
}

/** A linked record's shown fields changed: the events listed by `eventIds` (one `?`) get a new sequence. */
async function bumpEvents(db: Db, eventIds: string, id: number): Promise<void> {
  await db.run(`UPDATE posts SET ical_sequence = ical_sequence + 1, revision = revision + 1 WHERE id IN (${eventIds})`, [id])
}

export async function unlinkPost(db: Db, id: number): Promise<void> {
  await bumpEvents(db, 'SELECT DISTINCT event_id FROM event_links WHERE linked_id = ?', id)
  await db.run('DELETE FROM event_links WHERE linked_id = ?', [id])
  await dropFilterRef(db, ['venue', 'organizer'], id)
}

export async function deletePost(db: Db, id: number): Promise<void> {
  const current = await getPost(db, id)
  if (!current) return
  if (current.type === 'event') {
    // The counters move in the same transaction as the row, so they never disagree with it.
    await adjustTermCounts(db, current, null)
    await adjustDayCounts(db, current, null)
    await syncEventFilters(db, current, null)
    await syncEventWords(db, current, null)
    await syncCustomValues(db, current, null)
    await db.run('DELETE FROM event_links WHERE event_id = ?', [id])
    await db.run('DELETE FROM event_terms WHERE event_id = ?', [id])
    await db.run("UPDATE posts SET parent_id = ?, revision = revision + 1 WHERE parent_id = ? AND type = 'event'", [current.parentId, id])
  } else {
    // The events it leaves no longer show it: calendar apps must take their new version.
    await bumpEvents(db, 'SELECT DISTINCT event_id FROM event_links WHERE linked_id = ?', id)
    await db.run('DELETE FROM event_links WHERE linked_id = ?', [id])
    await dropFilterRef(db, [current.type], id)
    await db.run('DELETE FROM post_search WHERE post_id = ?', [id])
  }
  // Link rows are deleted above rather than left to ON DELETE CASCADE: a connection opened
  // without SQLite's foreign_keys pragma would keep them.
  await db.run('DELETE FROM posts WHERE id = ?', [id])
}

export async function insertTerm(db: Db, term: NewTerm): Promise<TermRecord> {
  const rows = await db.query<{ id: unknown }>(
    `INSERT INTO terms (taxonomy, language, translation_group, name, name_lower, slug, description, parent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (taxonomy, language, slug) DO NOTHING RETURNING id`,
    [
      term.taxonomy,
      term.language,
      term.translationGroup ?? 0,
      term.name,
      term.name.toLowerCase(),
      term.slug,
      term.description,
      term.parent,
    ],
  )
  if (!rows[0]) throw new SlugConflictError(term.slug)
  const id = toInt(rows[0].id)
  if (term.translationGroup === undefined) await db.run('UPDATE terms SET translation_group = ? WHERE id = ?', [id, id])
  // Usually 0; an event may already list this id (the storage keeps link ids as given).
  await recountTerm(db, id, term.language)
  return { ...term, id, translationGroup: term.translationGroup ?? id }
}

export async function updateTerm(db: Db, id: number, patch: TermPatch): Promise<TermRecord> {
  const current = await getTermRecord(db, id)
  if (!current) throw new Error(`no term ${id}`)
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
  const next: TermRecord = { ...current, ...given, id, taxonomy: current.taxonomy }
  const write = () =>
    db.run(
      `UPDATE terms SET language = ?, translation_group = ?, name = ?, name_lower = ?, slug = ?, description = ?, parent = ?,
       revision = revision + 1 WHERE id = ?`,
      [next.language, next.translationGroup, next.name, next.name.toLowerCase(), next.slug, next.description, next.parent, id],
    )
  if (next.slug !== current.slug || next.language !== current.language) await guardSlug(db, next.slug, write)
  else await write()
  // The names of the terms an event lists as categories are the feed's CATEGORIES.
  if (next.name !== current.name) await bumpEvents(db, "SELECT event_id FROM event_terms WHERE term_id = ? AND kind = 'category'", id)
  // Events of the new language count now, those of the old one no longer.
  if (next.language !== current.language) await recountTerm(db, id, next.language)
  return { ...next }
}

export async function deleteTerm(db: Db, id: number): Promise<void> {
  const current = await getTermRecord(db, id)
  if (!current) return
  await bumpEvents(db, "SELECT event_id FROM event_terms WHERE term_id = ? AND kind = 'category'", id)
  // Events losing a tag change too (their tag list), though not in the feed: a new revision only.
  await db.run(
    `UPDATE posts SET revision = revision + 1 WHERE id IN (SELECT event_id FROM event_terms WHERE term_id = ? AND kind = 'tag')`,
    [id],
  )
  await db.run('DELETE FROM terms WHERE id = ?', [id])
  // Children move up to the deleted term's parent; events lose the term.
  await db.run('UPDATE terms SET parent = ?, revision = revision + 1 WHERE parent = ?', [current.parent, id])
  await db.run('DELETE FROM event_terms WHERE term_id = ?', [id])
  await dropFilterRef(db, ['category', 'tag'], id)
  await db.run('DELETE FROM term_counts WHERE term_id = ?', [id])
}
