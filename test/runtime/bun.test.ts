// The built package on Bun (Bun.serve through calendar-events-router/bun; memory and bun:sqlite).
import { runtimeBinary } from '../support/runtimes.js'
import { smokeSuite } from './smoke.js'

await smokeSuite('Bun', await runtimeBinary('bun'), ['test/runtime/smoke/bun.mjs'], ['memory', 'bun:sqlite'])
