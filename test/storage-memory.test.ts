import { describe, it } from 'vitest'
import { storageContract } from '../src/testing/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'

storageContract({ describe, it }, 'memory', () => createMemoryStorage())
