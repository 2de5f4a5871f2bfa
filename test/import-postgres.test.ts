import { afterAll, describe } from 'vitest'
import { hostileSuite } from './import/hostile.suite.js'
import { importSuite } from './import/import.suite.js'
import { admin, reason, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

// Without a server (outside CI only: globalSetup fails CI runs) there is nothing to test.
if (url) {
  importSuite('postgres', () => schemaStorage())
  hostileSuite('postgres', () => schemaStorage())
} else describe.skip(`importers on PostgreSQL: ${reason}`, () => {})
