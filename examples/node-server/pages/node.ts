/**
 * Serves a standard `(Request) => Response` handler on Node's http server: the pages read no
 * request body (they are GET only), so the request carries method, URL and headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'

export function servePages(handler: (request: Request) => Promise<Response>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`
    let url: URL
    try {
      url = new URL(req.url ?? '/', origin)
    } catch {
      res.writeHead(400).end()
      return
    }
    // A body sent to a page is not read: drain it so the connection can be reused.
    req.resume()
    Promise.resolve()
      // Inside the chain: a method Request refuses (CONNECT) becomes a 500, not a crash.
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
