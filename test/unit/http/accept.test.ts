/**
 * Accept quality values, checked against the `negotiator` package (what Express uses) on
 * generated headers: the same media types are acceptable, the higher-weighted of JSON and
 * iCalendar wins, and where both weigh the same JSON wins (the default representation).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import Negotiator from 'negotiator'
import { acceptQuality, negotiate } from '../../../src/http/accept.js'

const JSON_TYPE = 'application/json'
const ICS = 'text/calendar'
const range = fc.record({
  type: fc.constantFrom('application/json', 'text/calendar', 'text/*', 'application/*', '*/*', 'text/html', 'image/png'),
  q: fc.option(fc.constantFrom('0', '0.0', '0.001', '0.1', '0.5', '0.50', '0.9', '1', '1.000'), { nil: undefined }),
  upper: fc.boolean(),
  spaces: fc.boolean(),
})
const header = fc.array(range, { minLength: 1, maxLength: 5 }).map((ranges) =>
  ranges
    .map((r) => {
      const type = r.upper ? r.type.toUpperCase() : r.type
      return r.q === undefined ? type : `${type}${r.spaces ? ' ; ' : ';'}q=${r.q}`
    })
    .join(', '),
)

const oracle = (accept: string) => new Negotiator({ headers: { accept } })

describe('Accept negotiation', () => {
  it('agrees with negotiator on what is acceptable and on which of JSON and iCalendar is preferred', () => {
    fc.assert(
      fc.property(header, (accept) => {
        for (const type of [JSON_TYPE, ICS]) {
          expect(acceptQuality(accept, type) > 0, `${accept} ${type}`).toBe(oracle(accept).mediaTypes([type]).length === 1)
        }
        const qJson = acceptQuality(accept, JSON_TYPE)
        const qIcs = acceptQuality(accept, ICS)
        const chosen = negotiate(accept, [JSON_TYPE, ICS])
        if (qJson === qIcs) expect(chosen, accept).toBe(JSON_TYPE)
        else expect(chosen, accept).toBe(oracle(accept).mediaTypes([JSON_TYPE, ICS])[0])
      }),
      { numRuns: 2000 },
    )
  })

  it('reads quoted parameters, malformed weights and junk without throwing', () => {
    expect(acceptQuality('text/calendar;x="a,b;q=0";q=0.4', ICS)).toBe(0.4)
    expect(acceptQuality('text/calendar;q=abc', ICS)).toBe(0)
    expect(acceptQuality('text/calendar;q=1.5, */*;q=0.2', ICS)).toBe(0.2)
    expect(negotiate(',,;;==', [JSON_TYPE, ICS])).toBe(JSON_TYPE)
    expect(negotiate('*/calendar', [JSON_TYPE, ICS])).toBe(JSON_TYPE)
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => [JSON_TYPE, ICS].includes(negotiate(s, [JSON_TYPE, ICS]))))
  })
})

describe('negotiate between JSON (the default) and iCalendar', () => {
  const cases: Array<[string, string]> = [
    ['', JSON_TYPE],
    ['   ', JSON_TYPE],
    ['text/calendar', ICS],
    ['TEXT/Calendar', ICS],
    ['text/*', ICS],
    ['*/*', JSON_TYPE],
    ['text/calendar, application/json', JSON_TYPE],
    ['text/calendar, application/json;q=0.5', ICS],
    ['text/calendar;q=0.5, application/json', JSON_TYPE],
    // Nothing acceptable still gets the default rather than a 406.
    ['application/json;q=0, text/calendar;q=0', JSON_TYPE],
    ['image/png', JSON_TYPE],
    // q=0 on the exact type wins over a wildcard that would allow it.
    ['text/*;q=0.9, text/calendar;q=0', JSON_TYPE],
  ]
  for (const [accept, chosen] of cases) {
    it(`${JSON.stringify(accept)} → ${chosen}`, () => {
      expect(negotiate(accept, [JSON_TYPE, ICS])).toBe(chosen)
    })
  }
})

describe('acceptQuality', () => {
  const cases: Array<[string, number]> = [
    ['text/calendar', 1],
    ['text/calendar;q=0.3, text/*;q=0.8', 0.3],
    ['text/*;q=0.8', 0.8],
    ['*/*;q=0.1', 0.1],
    ['application/json', 0],
    // A range naming a parameter is more specific than the bare type.
    ['text/calendar;charset=utf-8;q=0.2, text/calendar;q=0.9', 0.2],
    // The same range twice: the higher weight counts.
    ['text/calendar;q=0.2, text/calendar;q=0.6', 0.6],
    ['text/calendar;Q=0.5', 0.5],
  ]
  for (const [accept, q] of cases) {
    it(`text/calendar under ${JSON.stringify(accept)} → ${q}`, () => {
      expect(acceptQuality(accept, ICS)).toBe(q)
    })
  }
})
