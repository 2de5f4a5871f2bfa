// The built package on Bun (Bun.serve through calendar-events-router/bun; memory and bun:sqlite).
import { BIN, smokeSuite } from './smoke.js'

await smokeSuite('Bun', BIN('bun'), ['test/runtime/smoke/bun.mjs'], ['memory', 'bun:sqlite'])
