/** Every HTTP suite, run unchanged against one storage backend. */
import { afterAll } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { clientsSuite } from './clients.suite.js'
import { concurrencyStats, concurrencySuite } from './concurrency.suite.js'
import { docDefaultsSuite, docSuite } from './doc.suite.js'
import { eventsSuite } from './events.suite.js'
import { geoSuite } from './geo.suite.js'
import { formSyntaxSuite, hostileStats, hostileSuite } from './hostile.suite.js'
import { allowSuite, httpFeaturesSuite } from './http-features.suite.js'
import { icalSuite } from './ical.suite.js'
import { icalFeedSuite } from './ical-feed.suite.js'
import { leakStats, leaksSuite } from './leaks.suite.js'
import { linkedSuite } from './linked.suite.js'
import { referenceInputsSuite } from './reference-inputs.suite.js'
import { referenceGapsSuite } from './reference-gaps.suite.js'
import { searchSyntaxSuite } from './search.suite.js'
import { fragmentCacheSuite } from './fragment-cache.suite.js'
import { termsSuite } from './terms.suite.js'
import { sanitizeSuite } from './sanitize.suite.js'
import { recurrenceSuite } from './recurrence.suite.js'
import { recurrenceIcalSuite } from './recurrence-ical.suite.js'
import { recurrenceReliabilitySuite } from './recurrence-reliability.suite.js'
import { recurrenceShiftSuite } from './recurrence-shift.suite.js'

export function httpSuites(name: string, makeStorage: () => Storage | Promise<Storage>) {
  eventsSuite(name, makeStorage)
  linkedSuite(name, makeStorage)
  termsSuite(name, makeStorage)
  docSuite(name, makeStorage)
  docDefaultsSuite(name, makeStorage)
  httpFeaturesSuite(name, makeStorage)
  allowSuite(name, makeStorage)
  icalSuite(name, makeStorage)
  icalFeedSuite(name, makeStorage)
  hostileSuite(name, makeStorage)
  formSyntaxSuite(name, makeStorage)
  leaksSuite(name, makeStorage)
  concurrencySuite(name, makeStorage)
  referenceInputsSuite(name, makeStorage)
  referenceGapsSuite(name, makeStorage)
  clientsSuite(name, makeStorage)
  sanitizeSuite(name, makeStorage)
  recurrenceSuite(name, makeStorage)
  recurrenceIcalSuite(name, makeStorage)
  recurrenceReliabilitySuite(name, makeStorage)
  recurrenceShiftSuite(name, makeStorage)
  geoSuite(name, makeStorage)
  searchSyntaxSuite(name, makeStorage)
  fragmentCacheSuite(name, makeStorage)
  // Figures for the reliability report (the assertions are in the suites).
  afterAll(() => {
    console.log(
      `[reliability ${name}] hostile requests ${hostileStats.requests}, properties ${hostileStats.properties}, ` +
        `concurrent operations ${concurrencyStats.operations}, leak checks ${leakStats.checks}`,
    )
  })
}
