/**
 * Serves a standard `(Request) => Response` handler on Node's http server: the pages read no
 * request body (they are GET only), so the request carries method, URL and headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'

/**
 * The URL of a request target under this server's origin. The target is a path: resolving it
 * against the origin (`new URL(target, origin)`) would read `//evil.test/` as a scheme-relative
 * URL and make `evil.test` the origin of every link the page writes. An absolute-form target
 * (`GET http://host/path`, as proxies send) keeps only its path and query. Anything else
 * (`*`, garbage) is no page: null.
 */
export function pageUrl(target: string, origin: string): URL | null {
  let path = target
  if (!target.startsWith('/')) {
    if (!/^https?:\/\//i.test(target) || !URL.canParse(target)) return null
    const absolute = new URL(target)
    path = absolute.pathname + absolute.search
  }
  // Concatenated, not resolved: the path can never replace the origin. A Host header that
  // makes no URL gives null too.
  return URL.canParse(origin + path) ? new URL(origin + path) : null
}

/** Methods the fetch API's Request refuses to carry (its forbidden methods): no page answers them. */
const REFUSED_BY_FETCH = new Set(['CONNECT', 'TRACE', 'TRACK'])

export function servePages(handler: (request: Request) => Promise<Response>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`
    const url = pageUrl(req.url ?? '/', origin)
    if (!url) {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Bad request target')
      return
    }
    // A body sent to a page is not read: drain it so the connection can be reused.
    req.resume()
    if (REFUSED_BY_FETCH.has((req.method ?? 'GET').toUpperCase())) {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed')
      return
    }
    Promise.resolve()
      .then(() => handler(new Request(url, { method: req.method, headers })))
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers))
        if (!response.body || req.method === 'HEAD') return void res.end()
        await new Promise<void>((resolve, reject) => {
          Readable.fromWeb(response.body as any)
            .on('error', reject)
            .pipe(res)
            .on('finish', resolve)
            .on('error', reject)
        })
      })
      .catch((error: unknown) => {
        console.error('[pages]', error)
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
        res.end('Internal error')
      })
  }
}
