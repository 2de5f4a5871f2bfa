import { describe, expect, it } from 'vitest'
import { resolveCustomFields, type CustomField } from '../../../src/custom-fields/declarations.js'
import { checkValue, mergeValues, readFilter, readWrite, shownValues } from '../../../src/custom-fields/values.js'

const fields = resolveCustomFields([
  { key: 'text', label: 'Text', type: 'text' },
  { key: 'area', label: 'Area', type: 'textarea' },
  { key: 'url', label: 'URL', type: 'url' },
  { key: 'email', label: 'Email', type: 'email' },
  { key: 'number', label: 'Number', type: 'number' },
  { key: 'date', label: 'Date', type: 'date' },
  { key: 'checkbox', label: 'Checkbox', type: 'checkbox' },
  { key: 'dropdown', label: 'Dropdown', type: 'dropdown', options: ['a', 'b'] },
  { key: 'radio', label: 'Radio', type: 'radio', options: ['x', 'y'] },
  { key: 'needed', label: 'Needed', type: 'text', required: true },
])
const f = (key: string) => fields.find((x) => x.key === key) as CustomField

describe('checkValue', () => {
  it.each([
    ['text', 'hello', 'hello'],
    ['area', '<p>x</p>', '<p>x</p>'],
    ['url', 'https://a.example/x?y=1', 'https://a.example/x?y=1'],
    ['email', 'a@b.example', 'a@b.example'],
    ['number', 12.5, 12.5],
    ['number', '-3', -3],
    ['number', '1e3', 1000],
    ['date', '2028-02-29', '2028-02-29'],
    ['checkbox', true, true],
    ['checkbox', '0', false],
    ['checkbox', 1, true],
    ['dropdown', 'b', 'b'],
    ['radio', 'x', 'x'],
    ['text', null, null],
    ['url', '', null],
  ])('%s accepts %j as %j', (key, raw, value) => {
    expect(checkValue(f(key), raw)).toEqual({ value })
  })

  it.each([
    ['text', 5],
    ['text', 'x'.repeat(1001)],
    ['url', 'javascript:alert(1)'],
    ['url', 'mailto:a@b.example'],
    ['email', 'a@b'],
    ['email', 'a b@c.example'],
    ['number', 'NaN'],
    ['number', 'Infinity'],
    ['number', '12abc'],
    ['date', '2027-02-29'],
    ['date', '2027-1-01'],
    ['checkbox', 'yes'],
    ['dropdown', 'c'],
    ['radio', ['x']],
  ])('%s refuses %j', (key, raw) => {
    expect(checkValue(f(key), raw)).toHaveProperty('error')
  })
})

describe('readWrite', () => {
  it('reads values, a read sent back and [] as no change', () => {
    expect(readWrite(fields, { text: 'a', url: { label: 'URL', value: 'https://x.example' }, number: null }, false)).toEqual({
      values: { text: 'a', url: 'https://x.example', number: null },
    })
    expect(readWrite(fields, [], false)).toEqual({ values: {} })
  })
  it('names the key at fault', () => {
    expect(readWrite(fields, { nope: 1 }, false)).toEqual({ key: 'nope', error: 'is not a custom field of this record type.' })
    expect(readWrite(fields, { number: 'x' }, false)).toMatchObject({ key: 'number' })
    expect(readWrite(fields, 'x', false)).toMatchObject({ key: null })
    expect(readWrite(fields, ['x'], false)).toMatchObject({ key: null })
  })
  it('requires required fields on create and refuses to clear them', () => {
    expect(readWrite(fields, {}, true)).toEqual({ key: 'needed', error: 'is required.' })
    expect(readWrite(fields, { needed: 'ok' }, true)).toEqual({ values: { needed: 'ok' } })
    expect(readWrite(fields, { needed: null }, false)).toEqual({ key: 'needed', error: 'is required.' })
    expect(readWrite(fields, {}, false)).toEqual({ values: {} })
  })
})

describe('mergeValues', () => {
  it('sets, clears and keeps keys, sorted', () => {
    expect(mergeValues({ z: 1, old: 'kept', a: 'x' }, { a: null, b: true })).toEqual({ b: true, old: 'kept', z: 1 })
    expect(Object.keys(mergeValues({ z: 1 }, { a: 2 }))).toEqual(['a', 'z'])
    expect(mergeValues(undefined, {})).toEqual({})
  })
})

describe('shownValues', () => {
  it("shows declared, valid values in declaration order, TEC's [] when none", () => {
    expect(shownValues(fields, { url: 'https://x.example', text: 'a', removed: 'x' })).toEqual({
      text: { label: 'Text', value: 'a' },
      url: { label: 'URL', value: 'https://x.example' },
    })
    expect(Object.keys(shownValues(fields, { url: 'https://x.example', text: 'a' }))).toEqual(['text', 'url'])
    expect(shownValues(fields, {})).toEqual([])
    expect(shownValues(fields, { removed: 'x' })).toEqual([])
    // A value no longer valid under its declaration (retyped, option dropped) is kept, not shown.
    expect(shownValues(fields, { number: '12', dropdown: 'c' })).toEqual([])
  })
})

describe('readFilter', () => {
  it('reads one value or a list per key, as the field types them', () => {
    expect(readFilter(fields, { dropdown: ['a', 'b', 'a'], number: '12.0', checkbox: '1' })).toEqual({
      filters: [
        { key: 'dropdown', values: ['a', 'b'], given: ['a', 'b'] },
        { key: 'number', values: ['12'], given: ['12'] },
        { key: 'checkbox', values: ['true'], given: ['true'] },
      ],
    })
    expect(readFilter(fields, { text: 'a, b' })).toEqual({ filters: [{ key: 'text', values: ['a, b'], given: ['a, b'] }] })
  })
  it('names the key at fault', () => {
    expect(readFilter(fields, { nope: 'a' })).toMatchObject({ key: 'nope' })
    expect(readFilter(fields, { dropdown: 'c' })).toMatchObject({ key: 'dropdown' })
    expect(readFilter(fields, { text: '' })).toEqual({ key: 'text', error: 'needs a value.' })
    expect(readFilter(fields, { text: [] })).toEqual({ key: 'text', error: 'needs a value.' })
    expect(readFilter(fields, 'a')).toMatchObject({ key: null })
  })
})
