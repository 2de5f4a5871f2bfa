import { createMemoryStorage } from '../src/storage/memory.js'
import { corpusSuite } from './import/corpus.suite.js'
import { fidelitySuite } from './import/fidelity.suite.js'
import { hostileSuite } from './import/hostile.suite.js'
import { importSuite } from './import/import.suite.js'

importSuite('memory', () => createMemoryStorage())
hostileSuite('memory', () => createMemoryStorage())
fidelitySuite('memory', () => createMemoryStorage())
corpusSuite('memory', () => createMemoryStorage())
