/** @module calendar-events-router/testing: the storage contract suite and record fixtures. */
export { storageContract, type StorageFactory, type TestApi } from './contract.js'
export { newEvent, newVenue, newOrganizer, newTerm, eventQuery } from './fixtures.js'
