import { describe, expect, it } from 'vitest'
import { postgresDialect } from '../../../src/storage/sql/dialect.js'

/** The rows PostgreSQL's jsonb_array_elements would hand out for a `rows` source's parameter. */
const sent = (rows: (string | number | boolean | null)[][]) => {
  const { params } = postgresDialect.rows(['text', 'int', 'bool', 'real'].slice(0, rows[0]!.length) as never, rows)
  expect(params).toHaveLength(1)
  const text = params[0] as string
  // jsonb refuses any escape of a lone surrogate (and \u0000, which input validation refuses).
  expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\ud[89a-f]/i)
  return JSON.parse(text) as unknown[][]
}

describe('PostgreSQL bulk rows (one jsonb parameter)', () => {
  it('keeps every value, backslashes and escapes written as text included', () => {
    const rows = [
      ['a "b" \\ud800 \\\\ \u{1F600} \u2028', 1, true, 1.5],
      ['', -9007199254740991, false, -0.25],
      [null, null, null, null],
    ]
    expect(sent(rows)).toEqual(rows)
  })

  it('turns lone surrogates into U+FFFD, as a text parameter reaches the server', () => {
    expect(sent([['x\ud800y\udfffz\ud83d']])).toEqual([['x\ufffdy\ufffdz\ufffd']])
    // A pair is one character and stays.
    expect(sent([['\ud83d\ude00']])).toEqual([['\u{1F600}']])
  })

  it('reads each column by position with its type', () => {
    expect(postgresDialect.rows(['int', 'text', 'bool', 'real'], [[1, 'a', true, 2]]).sql).toBe(
      'SELECT (r->>0)::bigint, (r->>1)::text, (r->>2)::boolean, (r->>3)::double precision FROM jsonb_array_elements(?::jsonb) r',
    )
  })
})
