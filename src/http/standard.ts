/** Bridges standard Request/Response and the router's own shapes. */
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
      const reader = request.body.getReader()
      const chunks: Uint8Array[] = []
      let size = 0
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.byteLength
        if (size > limit) {
          await reader.cancel().catch(() => {})
          throw new PayloadTooLargeError(limit)
        }
        chunks.push(value)
      }
      const all = new Uint8Array(size)
      let offset = 0
      for (const c of chunks) {
        all.set(c, offset)
        offset += c.byteLength
      }
      return new TextDecoder().decode(all)
    },
  }
}

export function toResponse(raw: RawResponse): Response {
  return new Response(raw.body, { status: raw.status, headers: raw.headers })
}
