/**
 * The HTTP suites. `httpSuites` runs unchanged against each storage backend (test/http-memory,
 * -sqlite and -postgres.test.ts); `storageFreeSuites` runs once, on memory (test/http-once.test.ts).
 *
 * Most of them ship with the package (src/testing/http/, `httpConformance` of
 * `calendar-events-router/testing`) and run here exactly as a backend's author runs them. Those
 * registered here beside them stay in the repository because they need development tools:
 * fast-check (hostile input, search, sync and recurrence properties, the URL fields' property),
 * node-ical (iCalendar subscriptions), the OpenAPI and JSON Schema validators (/doc), the
 * schema.org validator (JSON-LD), parse5 (the HTML sanitizing judges), the DST corpus of
 * test/recurrence/, a Proxy for fault injection (sync) or a Node HTTP server (response cache).
 */
import { afterAll, describe, it } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { httpConformance, storageFreeConformance } from '../../src/testing/http/conformance.js'
import { concurrencyStats } from '../../src/testing/http/concurrency.suite.js'
import { leakStats } from '../../src/testing/http/leaks.suite.js'
import { urlFieldsPropertySuite } from './url-fields-property.suite.js'
import { syncSuite } from './sync.suite.js'
import { syncPropertySuite } from './sync-property.suite.js'
import { jsonLdSuite } from './json-ld.suite.js'
import { docDefaultsSuite, docResponsesSuite, docSuite } from './doc.suite.js'
import { formSyntaxSuite, hostileStats, hostileSuite } from './hostile.suite.js'
import { icalFeedSuite } from './ical-feed.suite.js'
import { searchSyntaxSuite } from './search.suite.js'
import { sanitizeSuite } from './sanitize.suite.js'
import { sanitizeTagsSuite } from './sanitize-tags.suite.js'
import { recurrenceIcalSuite } from './recurrence-ical.suite.js'
import { recurrenceReliabilitySuite } from './recurrence-reliability.suite.js'
import { recurrenceEdgeCasesDocSuite, recurrenceEdgeCasesSuite } from './recurrence-edge-cases.suite.js'
import { responseCacheSuite } from './response-cache.suite.js'
import { overlapWindowSuite } from './overlap-window.suite.js'

export function httpSuites(name: string, makeStorage: () => Storage | Promise<Storage>) {
  httpConformance({ describe, it }, name, makeStorage)
  syncSuite(name, makeStorage)
  overlapWindowSuite(name, makeStorage)
  syncPropertySuite(name, makeStorage)
  jsonLdSuite(name, makeStorage)
  docResponsesSuite(name, makeStorage)
  icalFeedSuite(name, makeStorage)
  hostileSuite(name, makeStorage)
  formSyntaxSuite(name, makeStorage)
  sanitizeSuite(name, makeStorage)
  sanitizeTagsSuite(name, makeStorage)
  recurrenceIcalSuite(name, makeStorage)
  recurrenceReliabilitySuite(name, makeStorage)
  recurrenceEdgeCasesSuite(name, makeStorage)
  searchSyntaxSuite(name, makeStorage)
  responseCacheSuite(name, makeStorage)
  urlFieldsPropertySuite(name, makeStorage)
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
  storageFreeConformance({ describe, it }, name, makeStorage)
  docSuite(name, makeStorage)
  docDefaultsSuite(name, makeStorage)
  recurrenceEdgeCasesDocSuite(name, makeStorage)
}
