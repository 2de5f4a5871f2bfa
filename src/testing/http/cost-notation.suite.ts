/**
 * Cost notation (issue 38, finding 7) over HTTP on every backend: only decimal numbers written
 * as people write prices are numbers. Hexadecimal (`0x1p1023`), exponents (`1e3`), digit
 * separators (`1_000`), `NaN` and `Infinity` are text: shown as given, in `cost` and in
 * `cost_details.values`, never read as a range of their pieces ("Free – $1023") nor lower-cased
 * into what looks like a program's printout ("nan").
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage)
  onTestFinished(() => app.close())
  return app
}

// [cost sent, cost shown, cost_details.values]
const CASES: Array<[unknown, string, string[]]> = [
  ['0x1p1023', '0x1p1023', ['0x1p1023']],
  ['0xFF', '0xFF', ['0xFF']],
  ['0b101', '0b101', ['0b101']],
  ['NaN', 'NaN', ['NaN']],
  ['Infinity', 'Infinity', ['Infinity']],
  ['-Infinity', '-Infinity', ['-Infinity']],
  ['1e3', '1e3', ['1e3']],
  ['2.5E-3', '2.5E-3', ['2.5E-3']],
  ['1_000', '1_000', ['1_000']],
  [['NaN', '5'], '$5', ['5', 'NaN']],
  [['0x10', '$12'], '$12', ['12', '0x10']],
  // Decimal notation, as before: prices with symbols and words around them, TEC's lower-cased words.
  ['$10 - $25', '$10 \u2013 $25', ['10', '25']],
  ['12,50€', '12.5€', ['12.5']],
  ['10 EUR', '10EUR', ['10']],
  [['Free', 'Donation'], 'Free', ['free', 'donation']],
  ['0', 'Free', ['0']],
]

export function costNotationSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`cost notation [${name}]`, () => {
    it.each(CASES)('cost %j shows %j with values %j, on write and on read', async (cost, shown, values) => {
      const app = await open(makeStorage)
      const made = await app.seed({ cost })
      expect([made.cost, made.cost_details.values]).toEqual([shown, values])
      // A number in another notation lends no currency symbol (`0xFF` is not 0 in `xFF`).
      if (!values.some((v) => /^\d+(\.\d+)?$/.test(v))) expect(made.cost_details.currency_symbol).toBe('')
      const read = (await app.get(`/events/${made.id}`)).body
      expect([read.cost, read.cost_details.values]).toEqual([shown, values])
      // JSON-LD's price is a decimal number or the cost as shown, never a piece of another notation.
      expect(read.json_ld.offers.price).toBe(values.find((v) => /^\d+(\.\d+)?$/.test(v)) ?? shown)
    })

    it('a form body carries the same text', async () => {
      const app = await open(makeStorage)
      const res = await app.post('/events', 'title=x&start_date=2026-12-01&end_date=2026-12-01&status=publish&cost=0x1p1023', {
        as: 'administrator',
        form: true,
      })
      expect(res.status, res.text).toBe(201)
      expect([res.body.cost, res.body.cost_details.values]).toEqual(['0x1p1023', ['0x1p1023']])
    })
  })
}
