/**
 * Request parameters the way WordPress collects them: JSON body, then form body, then query
 * string, then path captures (first hit wins). Query and form use PHP's bracket syntax
 * (`a[]=1&a[]=2`, `venue[city]=X`). Parsed objects have no prototype so keys such as
 * `__proto__` stay plain data.
 */
import { invalidJson, payloadTooLarge, unsupportedMediaType } from './errors.js'
import { PayloadTooLargeError, type RequestLike } from './types.js'

export type Params = Record<string, unknown>

/** A parameter bag with no prototype: a key such as `__proto__` or `constructor` is only a key. */
export const emptyParams = (): Params => Object.create(null) as Params

const MAX_KEYS = 1000
const MAX_DEPTH = 8

function decode(s: string): string {
  // Most names and values (`per_page`, `10`) carry neither an escape nor a plus.
  if (!s.includes('%') && !s.includes('+')) return s
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    // Malformed percent-encoding: keep the raw text rather than failing the whole request.
    return s
  }
}

/** Parses `application/x-www-form-urlencoded` text (also query strings) with PHP's brackets. */
export function parseFormEncoded(input: string): Params {
  const out = emptyParams()
  if (!input) return out
  // Made for the first bracketed name only: most query strings have none, and every request parses one.
  let next: WeakMap<Node, number> | undefined
  let count = 0
  for (const pair of input.split('&')) {
    if (!pair) continue
    if (++count > MAX_KEYS) break
    const eq = pair.indexOf('=')
    const rawKey = decode(eq === -1 ? pair : pair.slice(0, eq))
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1))
    if (rawKey.indexOf('[') > 0) assign(out, rawKey, value, (next ??= new WeakMap()))
    else out[rawKey] = value // a repeated plain key keeps the last value, as PHP does
  }
  for (const k of Object.keys(out)) out[k] = listify(out[k])
  return out
}

/**
 * `a[0]=x&a[1]=y` is a list to PHP (and so to WordPress clients): objects keyed exactly 0..n-1
 * become arrays. The work is one pass over the keys the input created, never over an index it
 * named: an array is only ever built from keys that exist.
 */
function listify(node: unknown): unknown {
  if (typeof node !== 'object' || node === null) return node
  const obj = node as Params
  const keys = Object.keys(obj)
  for (const k of keys) obj[k] = listify(obj[k])
  if (keys.length && keys.every((k, i) => k === String(i))) return keys.map((k) => obj[k])
  return obj
}

/** A key PHP reads as an integer index: `0`, `7`, `42`, not `007`, `-1` or `1e3`. */
const INDEX = /^(?:0|[1-9][0-9]{0,15})$/

/**
 * The next index `[]` appends at, per parsed object: one more than the largest integer key so
 * far, as PHP counts. Kept beside the objects rather than derived from them, because deriving it
 * would scan every key on each append.
 */
type Node = Params

function nextIndex(next: WeakMap<Node, number>, node: Node, key: string): string {
  if (key === '') {
    const i = next.get(node) ?? 0
    next.set(node, i + 1)
    return String(i)
  }
  if (INDEX.test(key)) {
    const i = Number(key)
    if (i >= (next.get(node) ?? 0)) next.set(node, i + 1)
  }
  return key
}

/**
 * Writes one `name[a][b]=value` pair. Every level is a prototype-free object, lists included
 * (`listify` turns them into arrays at the end): an index such as `a[4294967294]` is then one
 * key, not an array of that length (it once was: one such query string held the event loop for
 * minutes).
 */
function assign(target: Params, rawKey: string, value: string, next: WeakMap<Node, number>): void {
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
  let node: Node = target
  for (let i = 0; i < path.length; i++) {
    const key = i === 0 ? (path[0] as string) : nextIndex(next, node, path[i] as string)
    if (i === path.length - 1) {
      node[key] = value
      return
    }
    let child = node[key]
    if (typeof child !== 'object' || child === null) {
      child = Object.create(null) as Node
      node[key] = child
    }
    node = child as Node
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
  if (text === '') return Object.create(null) as Params
  const type = mediaType(req)
  if (type === 'application/json' || type.endsWith('+json')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      // The client's own text: WordPress answers a fixed "Syntax error", the parser's words would only echo it.
      throw invalidJson('Syntax error')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return Object.create(null) as Params
    if (tooDeep(parsed, MAX_DEPTH)) throw invalidJson(`Nesting deeper than ${MAX_DEPTH} levels`)
    return parsed as Params
  }
  if (type === '' || type === 'application/x-www-form-urlencoded') return parseFormEncoded(text)
  if (type === 'text/plain') return Object.create(null) as Params
  throw unsupportedMediaType(type)
}

/** The method after `?_method=` / `X-HTTP-Method-Override`, honoured on POST only. */
export function effectiveMethod(req: RequestLike, query: Params): string {
  const method = req.method.toUpperCase()
  if (method !== 'POST') return method
  const override = typeof query._method === 'string' ? query._method : req.headers.get('x-http-method-override')
  return override ? override.toUpperCase() : method
}

/**
 * A value as the text a parameter or field holds: a string as it is, a number, bigint or boolean
 * written out, anything else (absent, null, an object) as ''. For values the schemas or the
 * record types already make scalar, where `String()` of an object would only write `[object Object]`.
 */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  return ''
}
