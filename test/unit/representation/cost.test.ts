import { describe, expect, it } from 'vitest'
import { costValues, formatCost, type CostInput } from '../../../src/representation/cost.js'

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
  ]
  for (const [c, shown] of cases) {
    it(`${JSON.stringify(c.cost)} ${c.currencySymbol || '(no symbol)'} ${c.currencyPosition || ''} → ${JSON.stringify(shown)}`, () => {
      expect(formatCost(c)).toBe(shown)
    })
  }
})
