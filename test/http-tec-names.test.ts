/**
 * The HTTP suites under TEC's names (issue 26, item 5), on memory: every suite of httpSuites
 * and storageFreeSuites against routers built with `tecNames`, their requests sent to
 * `/wp-json/tribe/events/v1/...` with `wpml_language`, every link they assert on expected under
 * those names. SQLite runs httpSuites the same way in http-tec-names-sqlite.test.ts. What differs
 * between the two namespaces served at once is tec-names.suite.ts, registered in httpSuites.
 */
// First: switches the harness to TEC's names before the suite modules read it.
import './http/tec-names-wire.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { httpSuites, storageFreeSuites } from './http/all.js'

httpSuites('memory, TEC names', () => createMemoryStorage())
storageFreeSuites('memory, TEC names', () => createMemoryStorage())
