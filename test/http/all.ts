/**
 * The HTTP suites. `httpSuites` runs unchanged against each storage backend (test/http-memory,
 * -sqlite and -postgres.test.ts); `storageFreeSuites` runs once, on memory (test/http-once.test.ts).
 */
import { afterAll } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { apiIndexSuite, clientsSuite, docGeneratorsSuite } from './clients.suite.js'
import { concurrencyStats, concurrencySuite } from './concurrency.suite.js'
import { conditionalWritesSuite } from './conditional-writes.suite.js'
import { syncSuite } from './sync.suite.js'
import { syncPropertySuite } from './sync-property.suite.js'
import { eventStatusSuite } from './event-status.suite.js'
import { jsonLdSuite } from './json-ld.suite.js'
import { tecNamesSuite } from './tec-names.suite.js'
import { roundTripSuite } from './round-trip.suite.js'
import { customFieldsSuite } from './custom-fields.suite.js'
import { docDefaultsSuite, docResponsesSuite, docSuite } from './doc.suite.js'
import { eventsNoRouteSuite, eventsTransportSuite } from './events-transport.suite.js'
import { eventsLanguagesSuite } from './events-languages.suite.js'
import { eventsCreateSuite, eventsCreateValidationSuite } from './events-create.suite.js'
import { eventsPermissionsSuite } from './events-permissions.suite.js'
import { eventsReadSuite } from './events-read.suite.js'
import { eventsUpdateSuite } from './events-update.suite.js'
import { eventsDeleteSuite } from './events-delete.suite.js'
import { eventsLinkedSuite } from './events-linked.suite.js'
import { eventsListSuite } from './events-list.suite.js'
import { eventsDatesSuite } from './events-dates.suite.js'
import { geoDocSuite, geoSuite } from './geo.suite.js'
import { geoCombinationsSuite } from './geo-combinations.suite.js'
import { formSyntaxSuite, hostileStats, hostileSuite } from './hostile.suite.js'
import { allowSuite, corsSuite, httpFeaturesSuite, readCacheBoundSuite } from './http-features.suite.js'
import { icalSuite } from './ical.suite.js'
import { icalFeedSuite } from './ical-feed.suite.js'
import { icalReliabilitySuite } from './ical-reliability.suite.js'
import { leakStats, leaksSuite } from './leaks.suite.js'
import { linkedSuite } from './linked.suite.js'
import { referenceInputsSuite } from './reference-inputs.suite.js'
import { authorsTrashDocSuite, authorsTrashSuite } from './authors-trash.suite.js'
import { termLinksSuite } from './term-links.suite.js'
import { searchSyntaxSuite } from './search.suite.js'
import { fragmentCacheSuite } from './fragment-cache.suite.js'
import { termsSuite } from './terms.suite.js'
import { sanitizeSuite } from './sanitize.suite.js'
import { sanitizeTagsSuite } from './sanitize-tags.suite.js'
import { recurrenceDocSuite, recurrenceSuite } from './recurrence.suite.js'
import { recurrenceIcalSuite } from './recurrence-ical.suite.js'
import { recurrenceReliabilitySuite } from './recurrence-reliability.suite.js'
import { recurrenceShiftSuite } from './recurrence-shift.suite.js'
import { recurrenceEdgeCasesDocSuite, recurrenceEdgeCasesSuite } from './recurrence-edge-cases.suite.js'
import { responseCacheSuite } from './response-cache.suite.js'
import { readsNeverWriteSuite } from './reads-never-write.suite.js'
import { urlFieldsSuite } from './url-fields.suite.js'
import { costNotationSuite } from './cost-notation.suite.js'

export function httpSuites(name: string, makeStorage: () => Storage | Promise<Storage>) {
  eventsTransportSuite(name, makeStorage)
  eventsLanguagesSuite(name, makeStorage)
  eventsCreateSuite(name, makeStorage)
  eventsPermissionsSuite(name, makeStorage)
  eventsReadSuite(name, makeStorage)
  eventsUpdateSuite(name, makeStorage)
  eventsDeleteSuite(name, makeStorage)
  conditionalWritesSuite(name, makeStorage)
  syncSuite(name, makeStorage)
  syncPropertySuite(name, makeStorage)
  eventStatusSuite(name, makeStorage)
  jsonLdSuite(name, makeStorage)
  tecNamesSuite(name, makeStorage)
  roundTripSuite(name, makeStorage)
  customFieldsSuite(name, makeStorage)
  eventsLinkedSuite(name, makeStorage)
  eventsListSuite(name, makeStorage)
  eventsDatesSuite(name, makeStorage)
  readsNeverWriteSuite(name, makeStorage)
  linkedSuite(name, makeStorage)
  termsSuite(name, makeStorage)
  docResponsesSuite(name, makeStorage)
  httpFeaturesSuite(name, makeStorage)
  allowSuite(name, makeStorage)
  icalSuite(name, makeStorage)
  icalFeedSuite(name, makeStorage)
  icalReliabilitySuite(name, makeStorage)
  hostileSuite(name, makeStorage)
  formSyntaxSuite(name, makeStorage)
  leaksSuite(name, makeStorage)
  concurrencySuite(name, makeStorage)
  referenceInputsSuite(name, makeStorage)
  authorsTrashSuite(name, makeStorage)
  termLinksSuite(name, makeStorage)
  clientsSuite(name, makeStorage)
  sanitizeSuite(name, makeStorage)
  sanitizeTagsSuite(name, makeStorage)
  recurrenceSuite(name, makeStorage)
  recurrenceIcalSuite(name, makeStorage)
  recurrenceReliabilitySuite(name, makeStorage)
  recurrenceShiftSuite(name, makeStorage)
  recurrenceEdgeCasesSuite(name, makeStorage)
  geoSuite(name, makeStorage)
  geoCombinationsSuite(name, makeStorage)
  searchSyntaxSuite(name, makeStorage)
  responseCacheSuite(name, makeStorage)
  fragmentCacheSuite(name, makeStorage)
  urlFieldsSuite(name, makeStorage)
  costNotationSuite(name, makeStorage)
  // Figures for the reliability report (the assertions are in the suites).
  afterAll(() => {
    console.log(
      `[reliability ${name}] hostile requests ${hostileStats.requests}, properties ${hostileStats.properties}, ` +
        `concurrent operations ${concurrencyStats.operations}, leak checks ${leakStats.checks}`,
    )
  })
}

/**
 * Tests whose outcome cannot depend on the storage backend: they store nothing, and what they
 * assert is decided by the router, the schemas or the options (routing, validation before any
 * storage call, discovery and /doc, CORS, the API index). At most they read an empty list or
 * look up a missing id, which the backend suites above cover. Running them on SQLite and
 * PostgreSQL as well would test the same code three times.
 */
export function storageFreeSuites(name: string, makeStorage: () => Storage | Promise<Storage>) {
  eventsNoRouteSuite(name, makeStorage)
  eventsCreateValidationSuite(name, makeStorage)
  docSuite(name, makeStorage)
  docDefaultsSuite(name, makeStorage)
  docGeneratorsSuite(name, makeStorage)
  corsSuite(name, makeStorage)
  readCacheBoundSuite(name)
  apiIndexSuite(name, makeStorage)
  authorsTrashDocSuite(name, makeStorage)
  recurrenceDocSuite(name, makeStorage)
  recurrenceEdgeCasesDocSuite(name, makeStorage)
  geoDocSuite(name, makeStorage)
}
