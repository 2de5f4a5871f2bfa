/** A list page and its count, read together: what every list query of the SQL storage shares. */
import type { Db, Where } from './db.js'
import type { SqlParam } from './driver.js'
import { toInt, type Row } from './records.js'

/** What a list reads: a FROM clause (with the parameters it holds, if any) and a WHERE. */
export interface Source {
  from: string
  fromParams?: readonly SqlParam[]
  where: Where
}

/** A ready count statement (its one row's `n` is the total; NULL counts as 0). */
export interface CountQuery {
  sql: string
  params: readonly SqlParam[]
}

/** One statement: its text, with `?` placeholders, and its parameters in order. */
export type Statement = CountQuery

/** A page statement and its count (null: none), as `page` runs them. */
export interface PageStatements {
  read: Statement
  count: Statement | null
}

/** What a page reads: its columns, source, order and window, and what it counts. */
export interface PageSpec {
  select: string
  source: Source
  orderBy: string
  offset: number
  limit: number
  /** Parameters of `orderBy`, after the source's. */
  extra?: readonly SqlParam[]
  /** What the total counts: the source by default; null: no count (the caller needs none). */
  counted?: Source | CountQuery | null
}

/** The statements of `page`, built without running them (the event list's planner hands them on). */
export function pageStatements(spec: PageSpec): PageStatements {
  const { select, source, orderBy, offset, limit, extra = [], counted = source } = spec
  const params = (s: Source) => [...(s.fromParams ?? []), ...s.where.params]
  const read = {
    sql: `SELECT ${select} FROM ${source.from} WHERE ${source.where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
    params: [...params(source), ...extra, limit, offset],
  }
  if (counted === null) return { read, count: null }
  const count: CountQuery =
    'sql' in counted ? counted : { sql: `SELECT count(*) AS n FROM ${counted.from} WHERE ${counted.where}`, params: params(counted) }
  return { read, count }
}

/**
 * Runs a page and its count. Without a count, `total` is the offset plus the rows read. The page
 * and the count select the same rows (the count may only be another way to write the page's
 * source, or a statement that counts them another way); on PostgreSQL outside a transaction
 * they run on two pooled connections at once.
 */
export async function runPage(db: Db, statements: PageStatements, offset: number): Promise<{ rows: Row[]; total: number }> {
  const { read, count } = statements
  if (count === null) {
    const rows = await db.query(read.sql, read.params)
    return { rows, total: offset + rows.length }
  }
  const [rows, n] = await Promise.all([db.query(read.sql, read.params), db.query<{ n: unknown }>(count.sql, count.params)])
  return { rows, total: toInt(n[0]?.n ?? 0) }
}

/**
 * A page and its count, built and run.
 *
 * @example
 * const { rows, total } = await page(db, { select: 'p.id', source: { from: 'posts p', where }, orderBy: 'p.id', offset: 0, limit: 10 })
 */
export function page(db: Db, spec: PageSpec): Promise<{ rows: Row[]; total: number }> {
  return runPage(db, pageStatements(spec), spec.offset)
}
