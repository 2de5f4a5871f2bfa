/**
 * The HTTP harness ships with the conformance suites (src/testing/http/harness.ts); the suites
 * and tests that stay in test/ import it from here.
 */
export * from '../../src/testing/http/harness.js'
