/**
 * The HTTP conformance suites: the router's whole REST surface, over a storage backend you hand
 * in, asserting status, headers and bodies as clients meet them. A backend that passes them
 * behaves like the memory, SQLite and PostgreSQL ones wherever a client can tell.
 *
 * ```ts
 * // vitest
 * import { describe, it } from 'vitest'
 * // or node:test: import { describe, it } from 'node:test'
 * import { httpConformance } from 'calendar-events-router/testing'
 * httpConformance({ describe, it }, 'my backend', async () => createMyStorage())
 * ```
 *
 * Each case builds its own router over a fresh storage from `makeStorage` and closes it
 * (`storage.close`) when the case ends, passed or failed.
 */
import type { Storage } from '../../storage/types.js'
import { suiteApi, type ConformanceApi, type SuiteApi } from './api.js'
import { authorsTrashDocSuite, authorsTrashSuite } from './authors-trash.suite.js'
import { apiIndexSuite, clientsSuite, docGeneratorsSuite } from './clients.suite.js'
import { concurrencySuite } from './concurrency.suite.js'
import { conditionalWritesSuite } from './conditional-writes.suite.js'
import { costNotationSuite } from './cost-notation.suite.js'
import { customFieldsSuite } from './custom-fields.suite.js'
import { eventStatusSuite } from './event-status.suite.js'
import { eventsCreateSuite, eventsCreateValidationSuite } from './events-create.suite.js'
import { eventsDatesSuite } from './events-dates.suite.js'
import { eventsDeleteSuite } from './events-delete.suite.js'
import { eventsLanguagesSuite } from './events-languages.suite.js'
import { eventsLinkedSuite } from './events-linked.suite.js'
import { eventsListSuite } from './events-list.suite.js'
import { eventsPermissionsSuite } from './events-permissions.suite.js'
import { eventsReadSuite } from './events-read.suite.js'
import { eventsNoRouteSuite, eventsTransportSuite } from './events-transport.suite.js'
import { eventsUpdateSuite } from './events-update.suite.js'
import { fragmentCacheSuite } from './fragment-cache.suite.js'
import { geoCombinationsSuite } from './geo-combinations.suite.js'
import { geoDocSuite, geoSuite } from './geo.suite.js'
import { allowSuite, corsSuite, httpFeaturesSuite, readCacheBoundSuite } from './http-features.suite.js'
import { icalReliabilitySuite } from './ical-reliability.suite.js'
import { icalSuite } from './ical.suite.js'
import { leaksSuite } from './leaks.suite.js'
import { linkedSuite } from './linked.suite.js'
import { readsNeverWriteSuite } from './reads-never-write.suite.js'
import { recurrenceShiftSuite } from './recurrence-shift.suite.js'
import { recurrenceDocSuite, recurrenceSuite } from './recurrence.suite.js'
import { referenceInputsSuite } from './reference-inputs.suite.js'
import { roundTripSuite } from './round-trip.suite.js'
import { tecNamesSuite } from './tec-names.suite.js'
import { termLinksSuite } from './term-links.suite.js'
import { termsSuite } from './terms.suite.js'
import { urlFieldsSuite } from './url-fields.suite.js'

export type { ConformanceApi } from './api.js'

/** A function that returns a new, empty storage each time it is called. */
export type StorageMaker = () => Storage | Promise<Storage>

type Suite = (t: SuiteApi, name: string, makeStorage: StorageMaker) => void

/** Every suite whose outcome depends on the storage, in the order they register. */
const STORAGE_SUITES: readonly Suite[] = [
  eventsTransportSuite,
  eventsLanguagesSuite,
  eventsCreateSuite,
  eventsPermissionsSuite,
  eventsReadSuite,
  eventsUpdateSuite,
  eventsDeleteSuite,
  conditionalWritesSuite,
  eventStatusSuite,
  tecNamesSuite,
  roundTripSuite,
  customFieldsSuite,
  eventsLinkedSuite,
  eventsListSuite,
  eventsDatesSuite,
  readsNeverWriteSuite,
  linkedSuite,
  termsSuite,
  httpFeaturesSuite,
  allowSuite,
  icalSuite,
  icalReliabilitySuite,
  leaksSuite,
  concurrencySuite,
  referenceInputsSuite,
  authorsTrashSuite,
  termLinksSuite,
  clientsSuite,
  recurrenceSuite,
  recurrenceShiftSuite,
  geoSuite,
  geoCombinationsSuite,
  fragmentCacheSuite,
  urlFieldsSuite,
  costNotationSuite,
]

/**
 * Registers the HTTP conformance suites for one backend with your runner's `describe` and `it`
 * (vitest's or node:test's as they are). `name` labels every suite: `events over HTTP [name]`.
 */
export function httpConformance(t: ConformanceApi, name: string, makeStorage: StorageMaker): void {
  const api = suiteApi(t)
  for (const suite of STORAGE_SUITES) suite(api, name, makeStorage)
}

/**
 * The suites whose outcome cannot depend on the backend (routing, validation before any storage
 * call, discovery, CORS): the repository runs them once, on memory (test/http-once.test.ts).
 */
export function storageFreeConformance(t: ConformanceApi, name: string, makeStorage: StorageMaker): void {
  const api = suiteApi(t)
  eventsNoRouteSuite(api, name, makeStorage)
  eventsCreateValidationSuite(api, name, makeStorage)
  corsSuite(api, name, makeStorage)
  readCacheBoundSuite(api, name)
  apiIndexSuite(api, name, makeStorage)
  docGeneratorsSuite(api, name, makeStorage)
  authorsTrashDocSuite(api, name, makeStorage)
  recurrenceDocSuite(api, name, makeStorage)
  geoDocSuite(api, name, makeStorage)
}
