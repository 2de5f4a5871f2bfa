/**
 * Accept quality values, checked against the `negotiator` package (what Express uses) on
 * generated headers: the same media types are acceptable, the higher-weighted of JSON and
 * iCalendar wins, and where both weigh the same JSON wins (the default representation).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import Negotiator from 'negotiator'
import { acceptQuality, negotiate } from '../src/http/accept.js'

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
