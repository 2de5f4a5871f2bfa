import { createMemoryStorage } from '../src/storage/memory.js'
import { importSuite } from './import/import.suite.js'

importSuite('memory', () => createMemoryStorage())
