/** @module calendar-events-router/testing: the storage contract suite, the HTTP conformance suites and record fixtures. */
export { storageContract, type StorageFactory, type TestApi } from './contract.js'
export { httpConformance, type ConformanceApi, type StorageMaker } from './http/conformance.js'
export { newEvent, newVenue, newOrganizer, newTerm, eventQuery } from './fixtures.js'
