/**
 * A connection paired with its dialect: the query modules write portable SQL with `?` and this
 * rewrites it for the engine. `Where` collects a filter's clauses and parameters side by side so
 * the page query and the count query share them exactly.
 */
import type { ColumnKind, Dialect } from './dialect.js'
import type { SqlConnection, SqlParam } from './driver.js'
import type { Row } from './records.js'
import type { EventListQuery } from '../types.js'
import type { RecordCache } from './record-cache.js'

/** PostgreSQL's token index of one storage, as reads and writes see it (event-words.ts). */
export interface WordIndexView {
  /** 'off': no tables; 'kept': writes keep it, not filled yet; 'read': reads use it too. */
  readonly state: 'off' | 'kept' | 'read'
  /** About how many postings these tokens have. */
  postings(db: Db, ids: readonly number[]): Promise<number>
}
export const NO_WORD_INDEX: WordIndexView = { state: 'off', postings: () => Promise.resolve(0) }

export class Db {
  constructor(
    readonly conn: SqlConnection,
    readonly dialect: Dialect,
    /** SQLite: the FTS5 search index exists (see search-index.ts). */
    readonly fts = false,
    /** SQLite: events are indexed in event_fts rather than post_fts (see event-search.ts). */
    readonly eventFts = false,
    /** Records of committed revisions (record-cache.ts); null inside transactions and when off. */
    readonly records: RecordCache | null = null,
    /** PostgreSQL: whether writes keep event_words and reads use it (see event-words.ts). */
    readonly eventWords: WordIndexView = NO_WORD_INDEX,
  ) {}

  query<R extends object = Row>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
    return this.conn.query<R>(this.dialect.sql(sql), params)
  }

  run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
    return this.conn.run(this.dialect.sql(sql), params)
  }

  /**
   * `INSERT INTO t (columns)` + many rows + `tail` (ON CONFLICT, RETURNING) in as few statements
   * as the dialect's row source allows; `kinds` names each column's values. With `returning`,
   * the rows every statement returned.
   */
  async insertMany<R extends object = Row>(
    head: string,
    kinds: readonly ColumnKind[],
    rows: readonly SqlParam[][],
    tail = '',
    returning = false,
  ): Promise<R[]> {
    const out: R[] = []
    const max = this.dialect.maxRows(kinds.length)
    for (let i = 0; i < rows.length; i += max) {
      const source = this.dialect.rows(kinds, rows.slice(i, i + max))
      const sql = `${head} ${source.sql} ${tail}`
      if (returning) out.push(...(await this.query<R>(sql, source.params)))
      else await this.run(sql, source.params)
    }
    return out
  }
}

export class Where {
  readonly clauses: string[] = []
  readonly params: SqlParam[] = []

  add(clause: string, ...params: SqlParam[]): this {
    this.clauses.push(clause)
    this.params.push(...params)
    return this
  }

  /** Adds every clause of `other`, with its parameters. */
  and(other: Where): this {
    this.clauses.push(...other.clauses)
    this.params.push(...other.params)
    return this
  }

  /** `expr IN (?, ?, ...)` for a short list of values (statuses); FALSE when the list is empty. */
  oneOf(expr: string, values: readonly string[]): this {
    const unique = [...new Set(values)]
    if (!unique.length) return this.add('FALSE')
    // A single value is an equality, which lets an index deliver rows already in order.
    return unique.length === 1
      ? this.add(`${expr} = ?`, unique[0]!)
      : this.add(`${expr} IN (${unique.map(() => '?').join(', ')})`, ...unique)
  }

  /** The date bounds of an event list on `{alias}.start_date` / `{alias}.end_date`. */
  dateBounds(alias: string, q: DateBounds): this {
    if (q.startGte !== undefined) this.add(`${alias}.start_date >= ?`, q.startGte)
    if (q.startGt !== undefined) this.add(`${alias}.start_date > ?`, q.startGt)
    if (q.startLt !== undefined) this.add(`${alias}.start_date < ?`, q.startLt)
    if (q.endLte !== undefined) this.add(`${alias}.end_date <= ?`, q.endLte)
    if (q.endGt !== undefined) this.add(`${alias}.end_date > ?`, q.endGt)
    if (q.endLt !== undefined) this.add(`${alias}.end_date < ?`, q.endLt)
    return this
  }

  toString(): string {
    return this.clauses.length ? this.clauses.join(' AND ') : 'TRUE'
  }
}

type DateBounds = Pick<EventListQuery, 'startGte' | 'startGt' | 'startLt' | 'endLte' | 'endGt' | 'endLt'>
