import { createMemoryStorage } from '../src/storage/memory.js'
import { httpSuites } from './http/all.js'

httpSuites('memory', () => createMemoryStorage())
