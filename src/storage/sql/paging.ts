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

export async function page(
  db: Db,
  select: string,
  source: Source,
  orderBy: string,
  offset: number,
  limit: number,
  extra: readonly SqlParam[] = [],
  /** null: no count (the caller needs none); `total` is then the offset plus the rows read. */
  counted: Source | CountQuery | null = source,
): Promise<{ rows: Row[]; total: number }> {
  // The page and the count select the same rows (`counted` may only be another way to write
  // `source`, or a statement that counts them another way); on PostgreSQL outside a
  // transaction they run on two pooled connections at once.
  const params = (s: Source) => [...(s.fromParams ?? []), ...s.where.params]
  const read = () =>
    db.query(`SELECT ${select} FROM ${source.from} WHERE ${source.where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`, [
      ...params(source),
      ...extra,
      limit,
      offset,
    ])
  if (counted === null) {
    const rows = await read()
    return { rows, total: offset + rows.length }
  }
  const count: CountQuery =
    'sql' in counted ? counted : { sql: `SELECT count(*) AS n FROM ${counted.from} WHERE ${counted.where}`, params: params(counted) }
  const [rows, n] = await Promise.all([read(), db.query<{ n: unknown }>(count.sql, count.params)])
  return { rows, total: toInt(n[0]?.n ?? 0) }
}
