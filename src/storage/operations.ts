/**
 * The storage contract's methods as typed operations (storage/pipeline.ts): a read or a write is
 * a value naming the method and holding its arguments, so one hook can see all of them and a
 * switch over them is checked whole by the compiler.
 */
import type { BulkInsertTx, ImportLinksTx, ReservedIdsReader, ReservedIdsTx, StorageReader, StorageTx } from './types.js'

/** Every read of the contract (the compiler checks the list is whole). */
export const READS = [
  'getPost',
  'getPosts',
  'findPostBySlug',
  'slugsLike',
  'listEvents',
  'eventsShowing',
  'listLinked',
  'findLinkedDuplicate',
  'getTranslations',
  'getTerm',
  'getTerms',
  'findTerm',
  'termDescendants',
  'listTerms',
  'trashedPosts',
  'seriesMembers',
  'reservedBy',
] as const satisfies ReadonlyArray<keyof StorageReader>

/** Reads a backend may lack (a capability): absent from every view of a backend without them. */
export const OPTIONAL_READS = ['reservedBy'] as const satisfies ReadonlyArray<keyof ReservedIdsReader>

export type ReadName = keyof StorageReader
export type ReadOp = { [K in ReadName]: { name: K; args: Parameters<NonNullable<StorageReader[K]>> } }[ReadName]
export type ReadResult<O extends ReadOp> = Awaited<ReturnType<NonNullable<StorageReader[O['name']]>>>
/** The rest of the chain: the hooks after this one, then the backend. */
export type NextRead = <O extends ReadOp>(op: O) => Promise<ReadResult<O>>

/** Reads only a transaction offers (passed through, not hooked: no hook has a use for them). */
type TxRead = 'importLinksOf'
export type WriteName = Exclude<keyof StorageTx, ReadName | TxRead>
export type WriteOp = { [K in WriteName]: { name: K; args: Parameters<NonNullable<StorageTx[K]>> } }[WriteName]
export type WriteResult<O extends WriteOp> = Awaited<ReturnType<NonNullable<StorageTx[O['name']]>>>
export type NextWrite = <O extends WriteOp>(op: O) => Promise<WriteResult<O>>

/** Every write of the contract; the optional ones are offered only where the backend has them. */
export const WRITES = [
  'insertPost',
  'insertEvents',
  'updatePost',
  'unlinkPost',
  'deletePost',
  'insertTerm',
  'updateTerm',
  'deleteTerm',
  'putImportLink',
  'reserveIds',
] as const satisfies ReadonlyArray<WriteName>
export const OPTIONAL = [
  'insertEvents',
  'putImportLink',
  'importLinksOf',
  'reserveIds',
  ...OPTIONAL_READS,
] as const satisfies ReadonlyArray<keyof StorageTx>

// The optional methods are exactly those of the declared capabilities (types.ts): the compiler says which differ.
type CapabilityMethod = keyof BulkInsertTx | keyof ReservedIdsTx | keyof ImportLinksTx | keyof ReservedIdsReader
type Undeclared = [
  missing: Exclude<CapabilityMethod, (typeof OPTIONAL)[number]>,
  extra: Exclude<(typeof OPTIONAL)[number], CapabilityMethod>,
]
const everyCapability: Undeclared extends [never, never] ? true : Undeclared = true
void everyCapability

// A method missing from the lists above would not pass through the pipeline: the compiler says which.
type Unlisted = [reads: Exclude<ReadName, (typeof READS)[number]>, writes: Exclude<WriteName, (typeof WRITES)[number]>]
const everyMethod: Unlisted extends [never, never] ? true : Unlisted = true
void everyMethod

/** For the `default` of a switch over operations: the compiler proves it is never reached. */
export function unreachable(op: never): never {
  throw new Error(`calendar-events-router: unknown storage operation ${JSON.stringify(op)}`)
}

type Call = (...args: unknown[]) => Promise<unknown>

/** `op` run on `target` (the contract's method of that name, with those arguments). */
export const applyRead = (target: StorageReader, op: ReadOp): Promise<unknown> => (target[op.name] as Call).apply(target, op.args)

export function applyWrite(tx: StorageTx, op: WriteOp): Promise<unknown> {
  if (!tx[op.name]) throw new TypeError(`calendar-events-router: this storage has no ${op.name}`)
  return (tx[op.name] as Call).apply(tx, op.args)
}

/** Gives a class one method per operation named, each calling the instance's `run` with it typed. */
export function defineOps(proto: object, names: readonly string[], run: string): void {
  for (const name of names) {
    Object.defineProperty(proto, name, {
      value(this: Record<string, (op: { name: string; args: unknown[] }) => Promise<unknown>>, ...args: unknown[]) {
        return this[run]!({ name, args })
      },
      writable: true,
      configurable: true,
    })
  }
}
