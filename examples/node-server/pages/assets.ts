/**
 * The pages' static files: their own (static/) and the browser builds of FullCalendar and
 * Swagger UI straight from node_modules, so the pages work offline and nothing loads from a CDN.
 * Only the names listed here are served: no path from the URL ever reaches the file system.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const OWN = new URL('./static/', import.meta.url)
const MODULES = new URL('../../../node_modules/', import.meta.url)

const FILES: Record<string, URL> = {
  'site.css': new URL('site.css', OWN),
  'calendar.js': new URL('calendar.js', OWN),
  'editor.js': new URL('editor.js', OWN),
  'reference.js': new URL('reference.js', OWN),
  'icon.svg': new URL('icon.svg', OWN),
  'vendor/fullcalendar-core.js': new URL('@fullcalendar/core/index.global.min.js', MODULES),
  'vendor/fullcalendar-daygrid.js': new URL('@fullcalendar/daygrid/index.global.min.js', MODULES),
  'vendor/fullcalendar-timegrid.js': new URL('@fullcalendar/timegrid/index.global.min.js', MODULES),
  'vendor/fullcalendar-list.js': new URL('@fullcalendar/list/index.global.min.js', MODULES),
  'vendor/swagger-ui-bundle.js': new URL('swagger-ui-dist/swagger-ui-bundle.js', MODULES),
  'vendor/swagger-ui.css': new URL('swagger-ui-dist/swagger-ui.css', MODULES),
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
}

interface Loaded {
  body: Uint8Array
  etag: string
}

const loaded = new Map<string, Promise<Loaded>>()

function load(name: string): Promise<Loaded> {
  let entry = loaded.get(name)
  if (!entry) {
    entry = readFile(fileURLToPath(FILES[name]!)).then((body) => ({
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 16)}"`,
    }))
    // A failed read is not kept: the next request tries again.
    entry.catch(() => loaded.delete(name))
    loaded.set(name, entry)
  }
  return entry
}

/** Answers `/assets/<name>`; null for any other name (the caller's 404). */
export async function assetResponse(name: string, request: Request): Promise<Response | null> {
  if (!Object.hasOwn(FILES, name)) return null
  const { body, etag } = await load(name)
  const headers = {
    'Content-Type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
    // Revalidated after an hour: an upgrade of the packages shows up without a hard reload.
    'Cache-Control': 'public, max-age=3600',
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
  }
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), { headers })
}
