// The built package on Node (http.createServer through calendar-events-router/node; memory and better-sqlite3).
import { smokeSuite } from './smoke.js'

await smokeSuite('Node', process.execPath, ['test/runtime/smoke/node.mjs'], ['memory', 'better-sqlite3'])
