/**
 * Request parameters the way WordPress collects them: JSON body, then form body, then query
 * string, then path captures (first hit wins). Query and form use PHP's bracket syntax
 * (`a[]=1&a[]=2`, `venue[city]=X`). Parsed objects have no prototype so keys such as
 * `__proto__` stay plain data.
 */
import { invalidJson, payloadTooLarge, unsupportedMediaType } from './errors.js'
import { PayloadTooLargeError, type RequestLike } from './types.js'

export type Params = Record<string, unknown>

const MAX_KEYS = 1000
const MAX_DEPTH = 8

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    // Malformed percent-encoding: keep the raw text rather than failing the whole request.
    return s
  }
}

/** Parses `application/x-www-form-urlencoded` text (also query strings) with PHP's brackets. */
export function parseFormEncoded(input: string): Params {
  const out: Params = Object.create(null)
  if (!input) return out
  let count = 0
  for (const pair of input.split('&')) {
    if (!pair) continue
    if (++count > MAX_KEYS) break
    const eq = pair.indexOf('=')
    const rawKey = decode(eq === -1 ? pair : pair.slice(0, eq))
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1))
    assign(out, rawKey, value)
  }
  for (const k of Object.keys(out)) out[k] = listify(out[k])
  return out
}

/** `a[0]=x&a[1]=y` is a list to PHP (and so to WordPress clients): objects keyed 0..n-1 become arrays. */
function listify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(listify)
  if (typeof node !== 'object' || node === null) return node
  const obj = node as Params
  const keys = Object.keys(obj)
  for (const k of keys) obj[k] = listify(obj[k])
  if (keys.length && keys.every((k, i) => k === String(i))) return keys.map((k) => obj[k])
  return obj
}

function assign(target: Params, rawKey: string, value: string): void {
  const open = rawKey.indexOf('[')
  if (open <= 0) {
    // A repeated plain key keeps the last value, as PHP does.
    target[rawKey] = value
    return
  }
  const path = [rawKey.slice(0, open)]
  const re = /\[([^\]]*)\]/g
  re.lastIndex = open
  let m: RegExpExecArray | null
  while ((m = re.exec(rawKey)) && path.length <= MAX_DEPTH) path.push(m[1] ?? '')
  let node: Params | unknown[] = target
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string
    const last = i === path.length - 1
    if (Array.isArray(node)) {
      if (last) {
        if (key === '') node.push(value)
        else node[Number(key)] = value
        return
      }
    } else if (last) {
      node[key] = value
      return
    }
    const nextIsList = path[i + 1] === ''
    let child: unknown = Array.isArray(node) ? (key === '' ? undefined : node[Number(key)]) : node[key]
    if (typeof child !== 'object' || child === null) {
      child = nextIsList ? [] : Object.create(null)
      if (Array.isArray(node)) {
        if (key === '') node.push(child)
        else node[Number(key)] = child
      } else node[key] = child
    }
    node = child as Params | unknown[]
  }
}

/**
 * True when a parsed value nests deeper than `max`. Iterative on purpose: recursive code
 * further on (validation, serialisation) would overflow the stack on hostile nesting.
 */
function tooDeep(root: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]]
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number]
    if (typeof node !== 'object' || node === null) continue
    if (depth >= max) return true
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
  }
  return false
}

function mediaType(req: RequestLike): string {
  const ct = req.headers.get('content-type')
  return ct ? (ct.split(';')[0] ?? '').trim().toLowerCase() : ''
}

/** Reads and parses the body of a write. Non-object JSON and empty bodies give no parameters. */
export async function readBody(req: RequestLike, maxBytes: number): Promise<Params> {
  const length = req.headers.get('content-length')
  if (length !== null && Number(length) > maxBytes) throw payloadTooLarge(maxBytes)
  let text: string
  try {
    text = await req.text(maxBytes)
  } catch (e) {
    // The limit that was hit: ours, or a smaller one the host's body parser applied first.
    if (e instanceof PayloadTooLargeError) throw payloadTooLarge(e.limit)
    throw e
  }
  if (text === '') return Object.create(null)
  const type = mediaType(req)
  if (type === 'application/json' || type.endsWith('+json')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw invalidJson('Syntax error')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return Object.create(null)
    if (tooDeep(parsed, MAX_DEPTH)) throw invalidJson(`Nesting deeper than ${MAX_DEPTH} levels`)
    return parsed as Params
  }
  if (type === '' || type === 'application/x-www-form-urlencoded') return parseFormEncoded(text)
  if (type === 'text/plain') return Object.create(null)
  throw unsupportedMediaType(type)
}

/** The method after `?_method=` / `X-HTTP-Method-Override`, honoured on POST only. */
export function effectiveMethod(req: RequestLike, query: Params): string {
  const method = req.method.toUpperCase()
  if (method !== 'POST') return method
  const override = typeof query._method === 'string' ? query._method : req.headers.get('x-http-method-override')
  return override ? override.toUpperCase() : method
}
