/**
 * What a driver error means to the storage. Drivers throw their own error objects; these checks
 * read the fields that better-sqlite3, bun:sqlite, node:sqlite and pg set (SQLite result codes
 * and PostgreSQL SQLSTATEs never collide, so one classifier serves both engines).
 */
import { StorageUnavailableError } from '../types.js'

export type ErrorKind = 'unique' | 'retry' | 'unavailable' | 'other'

/** Errors of the network layer: the server is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // a unix socket path that does not exist (server stopped)
])

/** pg's own errors for a connection that died or never came: they carry no code. */
const PG_CONNECTION_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client has already been connected|Connection refused/i

/** SQLite primary result codes: BUSY 5, LOCKED 6, CANTOPEN 14 (the extended codes keep them in the low byte). */
const SQLITE_UNAVAILABLE = new Set([5, 6, 14])
const SQLITE_CONSTRAINT_UNIQUE = 2067

function fields(err: unknown): { code: unknown; errno: unknown; errcode: unknown; message: string } {
  if (typeof err !== 'object' || err === null) return { code: undefined, errno: undefined, errcode: undefined, message: String(err) }
  const e = err as Record<string, unknown>
  return { code: e.code, errno: e.errno, errcode: e.errcode, message: typeof e.message === 'string' ? e.message : '' }
}

export function classify(err: unknown): ErrorKind {
  const { code, errno, errcode, message } = fields(err)
  // Node's happy-eyeballs connect reports every failed address inside an AggregateError.
  if (err instanceof AggregateError && err.errors.some((e) => classify(e) === 'unavailable')) return 'unavailable'
  if (typeof code === 'string') {
    // PostgreSQL SQLSTATE (five characters).
    if (code === '23505') return 'unique'
    if (code === '40001' || code === '40P01') return 'retry'
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return 'unavailable'
    // better-sqlite3 and bun:sqlite: `SQLITE_BUSY`, `SQLITE_LOCKED_SHAREDCACHE`, ...
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') return 'unique'
    if (/^SQLITE_(BUSY|LOCKED|CANTOPEN)/.test(code)) return 'unavailable'
    if (NETWORK_CODES.has(code)) return 'unavailable'
  }
  // node:sqlite: code ERR_SQLITE_ERROR with the numeric extended result code in `errcode`;
  // bun:sqlite also sets the numeric code as `errno`.
  const numeric =
    typeof errcode === 'number'
      ? errcode
      : typeof errno === 'number' && typeof code === 'string' && code.startsWith('SQLITE')
        ? errno
        : undefined
  if (numeric !== undefined) {
    if (numeric === SQLITE_CONSTRAINT_UNIQUE) return 'unique'
    if (SQLITE_UNAVAILABLE.has(numeric & 0xff)) return 'unavailable'
  }
  if (PG_CONNECTION_MESSAGE.test(message)) return 'unavailable'
  return 'other'
}

/** SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock (worth waiting for). */
export function isBusy(err: unknown): boolean {
  const { code, errno, errcode } = fields(err)
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true
  const numeric = typeof errcode === 'number' ? errcode : typeof errno === 'number' ? errno : undefined
  return numeric !== undefined && typeof code === 'string' && code.includes('SQLITE') && [5, 6].includes(numeric & 0xff)
}

/** A serialization failure seen inside a transaction: the storage re-runs the whole function. */
export class RetryTransaction extends Error {
  constructor(cause: unknown) {
    super('The transaction must be retried (serialization failure)', { cause })
    this.name = 'RetryTransaction'
  }
}

/**
 * Errors callers can act on replace the driver's: StorageUnavailableError (the router answers
 * 503) and RetryTransaction (caught by the transaction loop). Anything else is a bug or a
 * constraint the caller broke, and passes through untouched.
 */
export function translate(err: unknown): unknown {
  if (err instanceof StorageUnavailableError || err instanceof RetryTransaction) return err
  switch (classify(err)) {
    case 'unavailable':
      return new StorageUnavailableError(undefined, { cause: err })
    case 'retry':
      return new RetryTransaction(err)
    default:
      return err
  }
}

/** An error's first line, for the one-line reports of the optional indexes through `log`. */
export const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!
