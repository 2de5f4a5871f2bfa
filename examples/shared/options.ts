/**
 * The CALENDAR_* variables the example servers share with `npm start`: CALENDAR_API_TOKENS /
 * CALENDAR_API_TOKEN (bearer tokens), CALENDAR_TIMEZONE (UTC), CALENDAR_CORS_ORIGINS (*),
 * CALENDAR_WEBHOOK_ALLOW_PRIVATE (`1`: webhooks may go to loopback and private addresses),
 * CALENDAR_TEC_NAMES (`1`: also serve the namespace as TEC's `tribe/events/v1` with
 * `wpml_language`, for clients written for a TEC site), CALENDAR_CUSTOM_FIELDS (the
 * `customFields` declarations as JSON, docs/custom-fields.md; a bad value stops the start),
 * CALENDAR_SITE_URL (the site's address: its identity in iCalendar UIDs, `global_id`, JSON-LD
 * and webhook payloads; `npm start` defaults it to its own address), CALENDAR_CURRENCY (the
 * site's currency symbol for costs written without one: `£`, or `€:postfix` after the number).
 */
import type { CalendarOptions } from '../../src/index.js'
import { tokenAuth } from '../node-server/auth.js'
import { resolveCustomFields, type CustomFieldDeclaration } from '../../src/custom-fields/declarations.js'

type Env = Record<string, string | undefined>

/**
 * CALENDAR_CUSTOM_FIELDS: a JSON array of `{ key, label, type, options?, required?, for? }`.
 * Checked here, so a typo stops the start with a message naming the variable.
 *
 * @example customFields('[{"key":"ticket_url","label":"Tickets","type":"url"}]')
 */
export function customFields(value: string | undefined): CustomFieldDeclaration[] {
  if (value === undefined || value.trim() === '') return []
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    throw new Error(
      `CALENDAR_CUSTOM_FIELDS is not JSON (${(error as Error).message}); expected [{"key":"ticket_url","label":"Tickets","type":"url"}]`,
    )
  }
  try {
    resolveCustomFields(parsed)
  } catch (error) {
    throw new Error(`CALENDAR_CUSTOM_FIELDS: ${(error as Error).message.replace(/^calendar-events-router: /, '')}`)
  }
  return parsed as CustomFieldDeclaration[]
}

/**
 * CALENDAR_CURRENCY: a symbol, before the number unless `:postfix` follows it.
 *
 * @example siteCurrency('£') // { symbol: '£', position: 'prefix' }
 * @example siteCurrency(' €:postfix') // { symbol: ' €', position: 'postfix' }
 */
export function siteCurrency(value: string | undefined): CalendarOptions['currency'] {
  if (value === undefined || value.trim() === '') return undefined
  const m = /^(.*?)(?::(prefix|postfix))?$/s.exec(value)!
  return { symbol: m[1]!, position: (m[2] as 'prefix' | 'postfix' | undefined) ?? 'prefix' }
}

/** `*` (default) or a comma-separated list of origins. */
export function corsOrigins(value: string | undefined): '*' | string[] {
  if (value === undefined || value.trim() === '' || value.trim() === '*') return '*'
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

export function exampleOptions(env: Env): { options: CalendarOptions; generatedToken: string | null } {
  const auth = tokenAuth(env)
  return {
    generatedToken: auth.generated,
    options: {
      authenticate: auth.authenticate,
      users: auth.users,
      timezone: env.CALENDAR_TIMEZONE ?? 'UTC',
      cors: { origins: corsOrigins(env.CALENDAR_CORS_ORIGINS) },
      // This server owns /wp-json/, so it answers the API index WPAPI.discover() reads.
      restIndex: true,
      // Off by default (SSRF): a receiver on this machine or the local network is for development.
      webhooks: { allowPrivate: env.CALENDAR_WEBHOOK_ALLOW_PRIVATE === '1' },
      onError: (error) => console.error('[calendar]', error),
      tecNames: env.CALENDAR_TEC_NAMES === '1',
      customFields: customFields(env.CALENDAR_CUSTOM_FIELDS),
      ...(env.CALENDAR_SITE_URL ? { siteUrl: env.CALENDAR_SITE_URL } : {}),
      ...(siteCurrency(env.CALENDAR_CURRENCY) ? { currency: siteCurrency(env.CALENDAR_CURRENCY) } : {}),
    },
  }
}

/** The start-up lines every example prints (the tests read the first one). */
export function announce(root: string, storage: string, generatedToken: string | null, site?: { url: string; fromEnv: boolean }): void {
  console.log(`calendar-events-router listening on ${root}`)
  console.log(`storage: ${storage}`)
  if (site)
    console.log(
      `site address (UIDs, global ids, webhook links): ${site.url}` +
        (site.fromEnv ? ' (CALENDAR_SITE_URL)' : ' (this server; set CALENDAR_SITE_URL to the public address)'),
    )
  if (generatedToken) {
    console.log(`No CALENDAR_API_TOKENS set: administrator token for this run is ${generatedToken}`)
    console.log(`  curl -H 'Authorization: Bearer ${generatedToken}' -H 'Content-Type: application/json' \\`)
    console.log(`    -d '{"title":"Launch party","start_date":"tomorrow 7pm","end_date":"tomorrow 10pm"}' ${root}events`)
  }
}

/** How long a stop waits for requests in flight before it cuts their connections. */
const STOP_GRACE_MS = 10_000

/**
 * On Ctrl-C or a stop signal: stop accepting connections, let the requests in flight finish
 * (cut after STOP_GRACE_MS), then close the storage and only then exit. Exiting first would skip
 * the close: its writes wait for the transactions in flight, and for SQLite it is what
 * checkpoints the write-ahead log into the database and removes the `-wal` file. A second
 * signal exits at once.
 */
export function stopOnSignals(
  server: { close(callback?: (err?: Error) => void): unknown; closeAllConnections?(): void },
  storage: { close?(): Promise<void> },
  /** What must end before the storage closes (webhook attempts under way). */
  drain: () => Promise<void> = () => Promise.resolve(),
): void {
  let stopping = false
  const stop = () => {
    if (stopping) process.exit(1)
    stopping = true
    const grace = setTimeout(() => server.closeAllConnections?.(), STOP_GRACE_MS)
    grace.unref()
    new Promise<void>((resolve) => server.close(() => resolve()))
      .then(() => {
        clearTimeout(grace)
        return drain()
      })
      .then(() => storage.close?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('[calendar] closing the storage failed:', error)
          process.exit(1)
        },
      )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
