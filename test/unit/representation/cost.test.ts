import { describe, expect, it } from 'vitest'
import { costNumbers, costValues, formatCost, type CostInput } from '../../../src/representation/cost.js'

describe('costValues', () => {
  const cases: Array<[string[], string[]]> = [
    [['$10 - $25'], ['10', '25']],
    [
      ['0$', '20$', '30$'],
      ['0', '20', '30'],
    ],
    [
      ['100', '20', '3'],
      ['3', '20', '100'],
    ],
    [['5', '$5', '5.0'], ['5']],
    [['12,50€'], ['12.5']],
    [['Free'], ['free']],
    [
      ['Donation', '10'],
      ['10', 'donation'],
    ],
    [[], []],
    // Every digit kept, however long; ordered by value, not as text or through a double.
    [['123456789012345678901234567890'], ['123456789012345678901234567890']],
    [
      ['123456789012345678901234567890', '99999999999999999999999999999', '5'],
      ['5', '99999999999999999999999999999', '123456789012345678901234567890'],
    ],
    [['$10000000000000000000000.000000000000000000001'], ['10000000000000000000000.000000000000000000001']],
    [
      ['0.5', '0.25', '0.0000001', '00', '010.50'],
      ['0', '0.0000001', '0.25', '0.5', '10.5'],
    ],
    [
      ['9007199254740993', '9007199254740992'],
      ['9007199254740992', '9007199254740993'],
    ],
    // A number with an exponent is not a price: the entry is text unless it holds a plain number.
    [['1e400'], ['1e400']],
    [['2.5E-3'], ['2.5E-3']],
    // Other notations are text, kept as given (issue 38): never pieces of a range, never 'nan'.
    [['0x1p1023'], ['0x1p1023']],
    [['NaN'], ['NaN']],
    [
      ['1_000', '$3'],
      ['3', '1_000'],
    ],
    [['$5 or 1e3'], ['5']],
    [
      ['1e400', '10'],
      ['10', '1e400'],
    ],
    [['5 each'], ['5']],
  ]
  for (const [entries, values] of cases) {
    it(`${JSON.stringify(entries)} → ${JSON.stringify(values)}`, () => {
      expect(costValues(entries)).toEqual(values)
    })
  }
})

describe('formatCost', () => {
  const input = (cost: string[], currencySymbol = '', currencyPosition: CostInput['currencyPosition'] = ''): CostInput => ({
    cost,
    currencySymbol,
    currencyPosition,
  })
  const cases: Array<[CostInput, string]> = [
    [input([]), ''],
    // Without a symbol of its own a number gets the site default, in front.
    [input(['15']), '$15'],
    [input(['$10 - $25']), '$10 \u2013 $25'],
    [input(['25', '10']), '$10 \u2013 $25'],
    [input(['20$'], '$', 'postfix'), '20$'],
    [input(['0$', '20$', '30$'], '$', 'postfix'), 'Free \u2013 30$'],
    [input(['€5', '€8'], '€', 'prefix'), '€5 \u2013 €8'],
    [input(['0']), 'Free'],
    [input(['7', '7']), '$7'],
    // No number at all: the first entry as given.
    [input(['Free']), 'Free'],
    [input(['Pay what you can', 'Donation']), 'Pay what you can'],
    // A position without a symbol is ignored.
    [input(['5'], '', 'postfix'), '$5'],
    [input(['123456789012345678901234567890']), '$123456789012345678901234567890'],
    [input(['5', '123456789012345678901234567890']), '$5 \u2013 $123456789012345678901234567890'],
    [input(['0.00']), 'Free'],
    // Exponent notation is text, shown as given, never a range made of its two halves.
    [input(['1e400']), '1e400'],
    [input(['1e400', '10']), '$10'],
    [input(['0x1p1023']), '0x1p1023'],
    [input(['NaN', '0']), 'Free'],
  ]
  for (const [c, shown] of cases) {
    it(`${JSON.stringify(c.cost)} ${c.currencySymbol || '(no symbol)'} ${c.currencyPosition || ''} → ${JSON.stringify(shown)}`, () => {
      expect(formatCost(c)).toBe(shown)
    })
  }
})

describe('costNumbers', () => {
  it('lists only the numeric values, never a text entry that starts with a digit', () => {
    expect(costNumbers(['1e400', 'Free', '$7', '3'])).toEqual(['3', '7'])
    expect(costNumbers(['1e400'])).toEqual([])
  })
})
