import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Two files at a time even on a 2-core machine (vitest's default there is one): most files
    // spend their time waiting on servers, browsers and child processes. PostgreSQL files each
    // get a database of their own (test/support/pg-schema.ts), so none waits on another's.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/runtime/**'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          // Example servers started by tests (in process or as child processes, which inherit the
          // environment) begin empty: tests count what they wrote. The demo data's own test
          // turns it on.
          env: { CALENDAR_DEMO: 'off' },
          // Starts a throwaway PostgreSQL server (or uses CALENDAR_TEST_DATABASE_URL) for the SQL storage tests.
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
      {
        // The built package (dist/) on Node, Bun and Deno, and packed for a consumer. Its
        // globalSetup builds dist/ first; it runs only when a file of this project is selected.
        test: {
          name: 'runtime',
          include: ['test/runtime/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          globalSetup: ['test/support/build-setup.ts'],
        },
      },
    ],
  },
})
