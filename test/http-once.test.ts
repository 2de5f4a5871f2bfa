/**
 * The storage-free HTTP suites (see storageFreeSuites in test/http/all.ts), run once: their
 * outcome does not depend on the backend, so memory is enough. The suite names keep the
 * `[memory]` label they had when they ran with every backend.
 */
import { createMemoryStorage } from '../src/storage/memory.js'
import { storageFreeSuites } from './http/all.js'

storageFreeSuites('memory', () => createMemoryStorage())
