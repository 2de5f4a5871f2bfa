import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Starts a throwaway PostgreSQL server (or uses CALENDAR_TEST_DATABASE_URL) for the SQL storage tests.
    globalSetup: ['test/support/postgres-setup.ts'],
  },
})
