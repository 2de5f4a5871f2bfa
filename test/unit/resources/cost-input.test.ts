import { describe, expect, it } from 'vitest'
import { costEntries, deriveCurrency } from '../../../src/resources/cost-input.js'

describe('costEntries', () => {
  const cases: Array<[unknown, string[]]> = [
    ['$10 - $25', ['$10 - $25']],
    ['  Free  ', ['Free']],
    [15, ['15']],
    [0, ['0']],
    [
      ['0$', ' 20$ ', 30],
      ['0$', '20$', '30'],
    ],
    // Empty, blank, non-finite and non-scalar entries are dropped.
    [['', '  ', null, Number.NaN, Number.POSITIVE_INFINITY, {}, [5], true, '5'], ['5']],
    [null, []],
    [undefined, []],
    ['', []],
    [[], []],
  ]
  for (const [input, entries] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(entries)}`, () => {
      expect(costEntries(input)).toEqual(entries)
    })
  }
})

describe('deriveCurrency', () => {
  const none = { currencySymbol: '', currencyPosition: '' }
  const cases: Array<[string[], { currencySymbol: string; currencyPosition: string }]> = [
    [['20$'], { currencySymbol: '$', currencyPosition: 'postfix' }],
    [['$5', '$10'], { currencySymbol: '$', currencyPosition: 'prefix' }],
    [['€ 5'], { currencySymbol: '€', currencyPosition: 'prefix' }],
    [['5 kr'], { currencySymbol: 'kr', currencyPosition: 'postfix' }],
    [['12,50€'], { currencySymbol: '€', currencyPosition: 'postfix' }],
    // Only when every entry carries the same symbol in the same place.
    [['$5', '€10'], none],
    [['$5', '5$'], none],
    [['$5', '10'], none],
    [['5'], none],
    // A number in another notation carries no symbol (issue 38).
    [['0xFF'], none],
    [['NaN$'], none],
    [['$5$'], none],
    [['Free'], none],
    [['$10 - $25'], none],
    [[], none],
    // Digits are matched as text, so their count does not matter; exponent notation is no price.
    [['$123456789012345678901234567890'], { currencySymbol: '$', currencyPosition: 'prefix' }],
    [['1e400'], none],
    [['€1e400'], none],
  ]
  for (const [entries, currency] of cases) {
    it(`${JSON.stringify(entries)} → ${JSON.stringify(currency)}`, () => {
      expect(deriveCurrency(entries)).toEqual(currency)
    })
  }
})
