/**
 * The CALENDAR_* variables the example servers share with `npm start`: CALENDAR_API_TOKENS /
 * CALENDAR_API_TOKEN (bearer tokens), CALENDAR_TIMEZONE (UTC), CALENDAR_CORS_ORIGINS (*).
 */
import type { CalendarOptions } from '../../src/index.js'
import { tokenAuth } from '../node-server/auth.js'

type Env = Record<string, string | undefined>

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
      onError: (error) => console.error('[calendar]', error),
    },
  }
}

/** The start-up lines every example prints (the tests read the first one). */
export function announce(root: string, storage: string, generatedToken: string | null): void {
  console.log(`calendar-events-router listening on ${root}`)
  console.log(`storage: ${storage}`)
  if (generatedToken) {
    console.log(`No CALENDAR_API_TOKENS set: administrator token for this run is ${generatedToken}`)
    console.log(`  curl -H 'Authorization: Bearer ${generatedToken}' -H 'Content-Type: application/json' \\`)
    console.log(`    -d '{"title":"Launch party","start_date":"tomorrow 7pm","end_date":"tomorrow 10pm"}' ${root}events`)
  }
}

/** Close the server and the storage on Ctrl-C or a stop signal. */
export function stopOnSignals(server: { close(): unknown }, storage: { close?(): Promise<void> }): void {
  const stop = () => {
    server.close()
    void storage.close?.()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
