import { afterAll, describe } from 'vitest'
import { httpSuites } from './http/all.js'
import { admin, reason, schemaStorage, url } from './support/pg-schema.js'

afterAll(() => admin?.end())

// Without a server (outside CI only: globalSetup fails CI runs) there is nothing to test.
if (url) httpSuites('postgres', () => schemaStorage())
// Skip reason: no PostgreSQL server here (outside CI only; in CI the globalSetup fails instead), named in the title.
else describe.skip(`HTTP suites on PostgreSQL: ${reason}`, () => {})
