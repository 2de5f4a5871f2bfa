import { createMemoryStorage } from '../src/storage/memory.js'
import { eventsSuite } from './http/events.suite.js'

eventsSuite('memory', () => createMemoryStorage())
