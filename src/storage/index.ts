/**
 * @module calendar-events-router/storage: the storage contract for whoever writes a backend.
 * The `Storage` interface split into its core and declared capabilities, the records and list
 * queries it stores and answers, the journal, import-link and webhook-store types, and the errors
 * a backend throws. Prove a backend with `storageContract` and `httpConformance` from
 * `calendar-events-router/testing`. An application needs none of this beyond `Storage`, which
 * the root entry exports too.
 */
export * from './types.js'
export { JournalPositionError } from './journal.js'
export type {
  AttemptOutcome,
  DeliveryStatus,
  NewWebhookDelivery,
  NewWebhookEndpoint,
  ReplaySelection,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookStore,
} from './webhooks.js'
export { withStorageHooks } from './pipeline.js'
export type { NextRead, NextWrite, ReadOp, ReadResult, StorageHook, TransactionHook, WriteOp, WriteResult } from './pipeline.js'
