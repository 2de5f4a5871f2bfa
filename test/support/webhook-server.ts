/**
 * A server process for the webhook chaos tests (test/webhooks-chaos.test.ts): the router on a
 * SQLite file or a PostgreSQL schema, served by the Node adapter, with the webhook options the
 * test hands over, so that the test can SIGKILL it and start it again on the same database.
 *
 *   node --import tsx test/support/webhook-server.ts
 *
 * Environment:
 *   WEBHOOK_SERVER_SQLITE=file             the SQLite file, or
 *   WEBHOOK_SERVER_PG_URL=postgres://...   with WEBHOOK_SERVER_PG_SCHEMA=name (a schema the test made)
 *   WEBHOOK_SERVER_OPTIONS={...}           the router's `webhooks` option, as JSON
 *
 * Callers are identified by `Authorization: Bearer <role>` (as in test/http/harness.ts, which
 * this does not import: it needs vitest). Once listening it prints one line, `{"port":N}`;
 * the runner's errors go to stderr as `[webhooks] ...` lines.
 */
import { createServer } from 'node:http'
import pg from 'pg'
import { createCalendarRouter, type Principal } from '../../src/index.js'
import type { CalendarOptions } from '../../src/options.js'
import { createSqlStorage, openSqliteFile, pgDriver } from '../../src/storage/sql/index.js'
import { toNodeHandler } from '../../adapters/node/index.js'

const env = process.env
const ROLES = new Set(['administrator', 'editor', 'author', 'contributor', 'subscriber'])

async function openStorage() {
  if (env.WEBHOOK_SERVER_SQLITE) return createSqlStorage({ driver: await openSqliteFile(env.WEBHOOK_SERVER_SQLITE) })
  const url = env.WEBHOOK_SERVER_PG_URL
  const schema = env.WEBHOOK_SERVER_PG_SCHEMA
  if (!url || !schema) throw new Error('set WEBHOOK_SERVER_SQLITE, or WEBHOOK_SERVER_PG_URL and WEBHOOK_SERVER_PG_SCHEMA')
  // The schema first on the search_path: the storage's unqualified tables land there.
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` })
  return createSqlStorage({ driver: pgDriver(pool) })
}

const storage = await openStorage()
await storage.migrate()
const webhooks = JSON.parse(env.WEBHOOK_SERVER_OPTIONS ?? '{}') as CalendarOptions['webhooks']
const router = createCalendarRouter(storage, {
  webhooks,
  authenticate: (request): Principal | null => {
    const m = /^Bearer\s+(\w+)$/i.exec(request.headers.get('authorization') ?? '')
    return m && ROLES.has(m[1]!) ? ({ id: 1, role: m[1] } as Principal) : null
  },
  onError: (error) => console.error('[webhooks]', error instanceof Error ? error.message : error),
})
const server = createServer(toNodeHandler(router))
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }))
})
