import { describe, expect, it } from 'vitest'
import { fieldsFor, resolveCustomFields } from '../../../src/custom-fields/declarations.js'

describe('resolveCustomFields', () => {
  it('fills in the defaults', () => {
    expect(resolveCustomFields(undefined)).toEqual([])
    expect(resolveCustomFields([{ key: 'ticket_url', label: 'Tickets', type: 'url' }])).toEqual([
      { key: 'ticket_url', label: 'Tickets', type: 'url', options: [], required: false, for: ['event'], hidden: false },
    ])
    expect(resolveCustomFields([{ key: 'g', label: 'G', type: 'radio', options: ['a', 'b', 'a'], required: true, for: 'venue' }])).toEqual([
      { key: 'g', label: 'G', type: 'radio', options: ['a', 'b'], required: true, for: ['venue'], hidden: false },
    ])
  })

  it.each([
    [{}, /customFields must be an array/],
    [[null], /customFields\[0\] must be an object/],
    [[{ key: 'a b', label: 'A', type: 'text' }], /customFields\[0\]\.key must be 1-64 letters/],
    [[{ key: 'a', label: '', type: 'text' }], /customFields\[0\]\.label must be a non-empty string/],
    [[{ key: 'a', label: 'A', type: 'colour' }], /customFields\[0\]\.type must be one of text, textarea, url/],
    [[{ key: 'a', label: 'A', type: 'dropdown' }], /customFields\[0\]\.options must be a non-empty list/],
    [[{ key: 'a', label: 'A', type: 'text', options: ['x'] }], /options is only for dropdown and radio/],
    [[{ key: 'a', label: 'A', type: 'text', for: 'term' }], /customFields\[0\]\.for must be event, venue, organizer/],
    [[{ key: 'a', label: 'A', type: 'text', required: 'yes' }], /required must be a boolean/],
    [[{ key: 'a', label: 'A', type: 'text', hidden: 1 }], /hidden must be a boolean/],
    [[{ key: 'a', label: 'A', type: 'text', colour: 1 }], /unknown property "colour"/],
    [
      [
        { key: 'a', label: 'A', type: 'text' },
        { key: 'a', label: 'B', type: 'url' },
      ],
      /customFields\[1\]\.key "a" is declared twice/,
    ],
  ])('refuses %j', (input, message) => {
    expect(() => resolveCustomFields(input)).toThrow(message)
  })
})

describe('fieldsFor', () => {
  it('keeps the fields of one record type, in declaration order', () => {
    const fields = resolveCustomFields([
      { key: 'a', label: 'A', type: 'text' },
      { key: 'b', label: 'B', type: 'text', for: ['venue', 'event'] },
      { key: 'c', label: 'C', type: 'text', for: 'organizer' },
    ])
    expect(fieldsFor(fields, 'event').map((f) => f.key)).toEqual(['a', 'b'])
    expect(fieldsFor(fields, 'venue').map((f) => f.key)).toEqual(['b'])
    expect(fieldsFor(fields, 'organizer').map((f) => f.key)).toEqual(['c'])
  })

  it('leaves out hidden (write-only) fields', () => {
    const fields = resolveCustomFields([
      { key: 'a', label: 'A', type: 'text' },
      { key: 'kept', label: 'Kept', type: 'textarea', hidden: true },
    ])
    expect(fieldsFor(fields, 'event').map((f) => f.key)).toEqual(['a'])
  })
})
