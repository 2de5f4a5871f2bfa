/**
 * A body the host's parser (`express.json()`, `express.urlencoded()`, `express.text()`,
 * `express.raw()`) already read, turned back into text in the type the client sent, so the router
 * parses and validates it exactly as if it had read the stream itself.
 */

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase()
}

/** `application/x-www-form-urlencoded` with PHP's brackets (`a[]=1`, `venue[city]=X`, `o[0][name]=Y`). */
export function formEncode(value: unknown, key = '', out: string[] = []): string[] {
  if (value === null || value === undefined) return out
  if (Array.isArray(value)) {
    // Keys that already end in `[]` (`express.urlencoded({ extended: false })`) repeat as they came.
    value.forEach((item, i) =>
      formEncode(item, key.endsWith('[]') ? key : typeof item === 'object' && item !== null ? `${key}[${i}]` : `${key}[]`, out),
    )
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) formEncode(v, key ? `${key}[${k}]` : k, out)
  } else if (key && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')) {
    out.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
  }
  return out
}

/** The text of an already-parsed body. */
export function bodyText(body: unknown, contentType: string | undefined): string {
  if (body === undefined || body === null) return ''
  if (typeof body === 'string') return body
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
  const type = mediaType(contentType)
  if (type === 'application/json' || type.endsWith('+json')) return JSON.stringify(body)
  return formEncode(body).join('&')
}
