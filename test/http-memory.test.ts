import { createMemoryStorage } from '../src/storage/memory.js'
import { eventsSuite } from './http/events.suite.js'

eventsSuite('memory', () => createMemoryStorage())
import { linkedSuite } from './http/linked.suite.js'
linkedSuite('memory', () => createMemoryStorage())
import { docSuite } from './http/doc.suite.js'
docSuite('memory', () => createMemoryStorage())
import { termsSuite } from './http/terms.suite.js'
termsSuite('memory', () => createMemoryStorage())
import { httpFeaturesSuite } from './http/http-features.suite.js'
httpFeaturesSuite('memory', () => createMemoryStorage())
import { icalSuite } from './http/ical.suite.js'
icalSuite('memory', () => createMemoryStorage())
import { hostileSuite } from './http/hostile.suite.js'
hostileSuite('memory', () => createMemoryStorage())
import { concurrencySuite } from './http/concurrency.suite.js'
concurrencySuite('memory', () => createMemoryStorage())
