import { afterAll, describe } from 'vitest'
import { fidelitySuite } from './import/fidelity.suite.js'
import { hostileSuite } from './import/hostile.suite.js'
import { importSuite } from './import/import.suite.js'
import { admin, reason, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

// Without a server (outside CI only: globalSetup fails CI runs) there is nothing to test.
if (url) {
  importSuite('postgres', () => schemaStorage())
  hostileSuite('postgres', () => schemaStorage())
  fidelitySuite('postgres', () => schemaStorage())
  // Skip reason (the else below): no PostgreSQL server here (outside CI only; in CI the globalSetup fails instead), named in the title.
} else describe.skip(`importers on PostgreSQL: ${reason}`, () => {})
