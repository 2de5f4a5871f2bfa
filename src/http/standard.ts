/** Bridges standard Request/Response and the router's own shapes. */
import { readLimited } from './read-limited.js'
import { PayloadTooLargeError, type RawResponse, type RequestLike } from './types.js'

export function fromRequest(request: Request): RequestLike {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    // Lazy: reading `request.signal` makes Deno.serve warn about its legacy abort behaviour.
    get signal() {
      return request.signal
    },
    raw: request,
    async text(limit: number) {
      if (!request.body) return ''
      return new TextDecoder().decode(await readLimited(request.body, limit, () => new PayloadTooLargeError(limit)))
    },
  }
}

export function toResponse(raw: RawResponse): Response {
  return new Response(raw.body, { status: raw.status, headers: raw.headers })
}
