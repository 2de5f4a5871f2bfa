#!/usr/bin/env node
/**
 * `calendar-events-router import <file|url> --format ics|csv|tec [--db FILE | --database-url URL]
 * [--authority overwrite|keep-local|skip] [--delete-missing] [--dry-run] [--batch-size N] [--json]`: one source
 * into a calendar database, with a progress bar on a TTY and a summary. Exits 0 unless the source
 * could not be read or nothing of it could be imported (docs/importing.md).
 */
import { parseArgs } from 'node:util'
import { createMemoryStorage } from '../storage/memory.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../storage/sql/index.js'
import type { Storage } from '../storage/types.js'
import { importCalendar, type ImportFormat } from './index.js'
import { progressLine } from './progress-line.js'
import { isUrl } from './read-source.js'
import type { Authority, ImportSummary } from '../readers/types.js'

const USAGE = `Usage: calendar-events-router import <file|url> --format ics|csv|tec [options]

  --format ics|csv|tec      what the source is (default: from the file name); tec: a TEC site's URL
  --db FILE                 SQLite database file (created if missing); this or --database-url is needed
  --database-url URL        PostgreSQL connection string
  --authority MODE          overwrite (default) | keep-local | skip
  --delete-missing          trash events this source no longer has
  --dry-run                 read and compare, write nothing
  --batch-size N            records committed per transaction (default 100; 1: each on its own)
  --name NAME               the source's name in the import links (default: format:location)
  --key COLUMN              CSV: the column holding each row's id
  --map FIELD=HEADER        CSV: read our FIELD from your HEADER (repeatable), e.g. event_name=Title
  --delimiter CHAR          CSV: field separator (default ,)
  --user NAME:PASSWORD      tec: HTTP Basic credentials (a WordPress application password)
  --as ID --role ROLE       who imports here (default 1, administrator)
  --timezone ZONE           the site's time zone for floating times (default UTC)
  --trust-html              store the source's HTML as given (default: an untrusted role's filter)
  --allow-private           let the source redirect to (or name) private and loopback addresses
  --json                    print the summary as JSON
`

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`)
  process.exit(2)
}

const KIND_NAMES = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags' } as const

function print(s: ImportSummary) {
  const kinds = (Object.keys(KIND_NAMES) as Array<keyof typeof KIND_NAMES>).flatMap((k) => {
    const c = s.kinds[k]
    return c
      ? [
          `  ${KIND_NAMES[k]}: created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, skipped ${c.skipped}, trashed ${c.trashed}`,
        ]
      : []
  })
  const lines = [
    `${s.dryRun ? '[dry run] ' : ''}${s.source}${s.notModified ? ' (not modified since the last import)' : ''}`,
    `  created ${s.created}, updated ${s.updated}, unchanged ${s.unchanged}, skipped ${s.skipped}, trashed ${s.trashed}, failed ${s.failed.length}`,
    ...kinds,
    ...s.failed.map((f) => `  failed  ${f.ref}: ${f.reason}`),
    ...s.warnings.map((w) => `  note    ${w.ref}: ${w.reason}`),
  ]
  process.stdout.write(lines.join('\n') + '\n')
}

/** Non-zero only when the source could not be read or nothing of it could be imported. */
export function exitCode(s: ImportSummary): number {
  if (s.failed.some((f) => f.ref === 'source')) return 1
  const imported = s.created + s.updated + s.unchanged + s.skipped
  return imported === 0 && s.failed.length > 0 ? 1 : 0
}

/** Throws the importer's own sentence for a file that cannot be read (`cannot read x.ics: ENOENT`). */
async function readable(path: string): Promise<void> {
  const { access, constants } = await import('node:fs/promises')
  try {
    await access(path, constants.R_OK)
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e })
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      authority: { type: 'string', default: 'overwrite' },
      'delete-missing': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'batch-size': { type: 'string' },
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      key: { type: 'string' },
      map: { type: 'string', multiple: true },
      delimiter: { type: 'string' },
      user: { type: 'string' },
      as: { type: 'string' },
      role: { type: 'string', default: 'administrator' },
      timezone: { type: 'string' },
      'allow-private': { type: 'boolean', default: false },
      'trust-html': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  const [command, location] = positionals
  if (command !== 'import' || !location) fail('Expected: import <file|url>')
  const format = (values.format ?? (/\.csv$/i.test(location) ? 'csv' : /\.ics$/i.test(location) ? 'ics' : undefined)) as
    ImportFormat | undefined
  if (format !== 'ics' && format !== 'csv' && format !== 'tec') fail('--format must be ics, csv or tec')
  // `--user` names the TEC site's credentials (name:password); a bare number is the older
  // spelling of `--as`, the local user the import is made as.
  const credentials = values.user?.includes(':') ? values.user : undefined
  const as = values.as ?? (values.user && !credentials ? values.user : '1')
  if (!/^\d+$/.test(as)) fail('--as takes a user ID; --user takes name:application-password')
  const authority = values.authority as Authority
  if (!['overwrite', 'keep-local', 'skip'].includes(authority)) fail('--authority must be overwrite, keep-local or skip')
  const batch = values['batch-size']
  if (batch !== undefined && !/^[1-9]\d{0,5}$/.test(batch)) fail('--batch-size takes a whole number from 1 to 999999')
  const role = values.role as 'administrator'
  if (!['administrator', 'editor', 'author', 'contributor'].includes(role))
    fail('--role must be administrator, editor, author or contributor')
  const mapping = Object.fromEntries(
    (values.map ?? []).map((m) => {
      const eq = m.indexOf('=')
      if (eq <= 0) fail(`--map takes FIELD=HEADER, got "${m}"`)
      return [m.slice(0, eq), m.slice(eq + 1)]
    }),
  )
  if (values.db && values['database-url']) fail('Give --db or --database-url, not both')
  if (!values.db && !values['database-url'] && !values['dry-run'])
    fail('Give --db FILE or --database-url URL: an import into memory would be lost on exit (--dry-run needs neither)')
  // A source that cannot be there at all stops before a database file is created.
  if (format !== 'tec' && !isUrl(location)) await readable(location)
  let storage: Storage
  if (values.db) storage = createSqlStorage({ driver: await openSqliteFile(values.db) })
  else if (values['database-url']) storage = createSqlStorage({ driver: await openPostgres(values['database-url']) })
  else storage = createMemoryStorage()

  const bar = process.stderr.isTTY && !values.json ? progressLine(process.stderr) : null
  try {
    const summary = await importCalendar(
      { storage, options: values.timezone ? { timezone: values.timezone } : {} },
      {
        format,
        location,
        ...(values.name ? { name: values.name } : {}),
        ...(credentials ? { auth: credentials } : {}),
        allowPrivateAddresses: values['allow-private'],
        csv: { mapping, ...(values.key ? { key: values.key } : {}), ...(values.delimiter ? { delimiter: values.delimiter } : {}) },
      },
      {
        authority,
        deleteMissing: values['delete-missing'],
        dryRun: values['dry-run'],
        trustHtml: values['trust-html'],
        ...(batch !== undefined ? { batchSize: Number(batch) } : {}),
        as: { id: Number(as), role },
        onProgress: (done, total) => bar?.update(done, total),
      },
    )
    bar?.stop()
    if (values.json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
    else print(summary)
    return exitCode(summary)
  } finally {
    bar?.stop()
    await storage.close?.()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`calendar-events-router: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
