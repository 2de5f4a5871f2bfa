import { describe, expect, it } from 'vitest'
import {
  customSearchText,
  customValueRows,
  customValueText,
  customValuesMatch,
  sameCustomValues,
} from '../../../src/storage/custom-values.js'

describe('customValueText', () => {
  it.each([
    ['jazz', 'jazz'],
    [12, '12'],
    [12.5, '12.5'],
    [true, 'true'],
    [false, 'false'],
  ])('%j → %j', (value, text) => expect(customValueText(value)).toBe(text))

  it('keeps long values short and tells them apart', () => {
    const a = 'x'.repeat(1000) + 'a'
    const b = 'x'.repeat(1000) + 'b'
    expect(customValueText(a).length).toBeLessThanOrEqual(400)
    expect(customValueText(a)).not.toBe(customValueText(b))
    expect(customValueText(a)).toBe(customValueText(a))
    expect(customValueText('y'.repeat(400))).toBe('y'.repeat(400))
  })
})

describe('customValueRows', () => {
  it('one row per key, in key order', () => {
    expect(customValueRows({ genre: 'jazz', capacity: 120, ok: false })).toEqual([
      ['capacity', '120'],
      ['genre', 'jazz'],
      ['ok', 'false'],
    ])
    expect(customValueRows(undefined)).toEqual([])
  })
})

describe('customValuesMatch', () => {
  it.each([
    [{ genre: 'jazz' }, [{ key: 'genre', values: ['jazz', 'folk'] }], true],
    [{ genre: 'rock' }, [{ key: 'genre', values: ['jazz', 'folk'] }], false],
    [
      { genre: 'jazz', n: 1 },
      [
        { key: 'genre', values: ['jazz'] },
        { key: 'n', values: ['1'] },
      ],
      true,
    ],
    [
      { genre: 'jazz' },
      [
        { key: 'genre', values: ['jazz'] },
        { key: 'n', values: ['1'] },
      ],
      false,
    ],
    [{ ok: true }, [{ key: 'ok', values: ['true'] }], true],
    [undefined, [{ key: 'ok', values: ['true'] }], false],
  ])('%j with %j → %s', (values, filters, match) => expect(customValuesMatch(values, filters)).toBe(match))
})

describe('customSearchText', () => {
  it('text values only, one per line', () => {
    expect(customSearchText({ b: 'Boots', a: 'Alpha', n: 3, ok: true, e: '' })).toBe('Alpha\nBoots')
    expect(customSearchText({})).toBe('')
  })
})

describe('sameCustomValues', () => {
  it('compares by key and value, whatever the order', () => {
    expect(sameCustomValues({ a: 1, b: 'x' }, { b: 'x', a: 1 })).toBe(true)
    expect(sameCustomValues({ a: 1 }, { a: '1' })).toBe(false)
    expect(sameCustomValues({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(sameCustomValues(undefined, {})).toBe(true)
  })
})
