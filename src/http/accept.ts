/**
 * Accept-header quality values (RFC 9110 §12.5.1). A media type's quality is the q of the most
 * specific range that matches it (`text/calendar` over `text/*` over `*\/*`; a range with more
 * matching parameters over one with fewer); no matching range means 0, not acceptable.
 */

interface Range {
  type: string
  subtype: string
  params: Record<string, string>
  q: number
}

/** Splits on `sep` outside double-quoted strings (a parameter value may hold `,` or `;`). */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string
    if (quoted && ch === '\\' && i + 1 < s.length) {
      current += ch + s[++i]
      continue
    }
    if (ch === '"') quoted = !quoted
    if (ch === sep && !quoted) {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts
}

const unquote = (v: string) => (v.length >= 2 && v[0] === '"' && v[v.length - 1] === '"' ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v)
// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

function parseRanges(header: string): Range[] {
  const ranges: Range[] = []
  for (const part of splitOutsideQuotes(header, ',')) {
    const [media = '', ...rawParams] = splitOutsideQuotes(part, ';')
    const slash = media.indexOf('/')
    if (slash === -1) continue
    const type = media.slice(0, slash).trim().toLowerCase()
    const subtype = media
      .slice(slash + 1)
      .trim()
      .toLowerCase()
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue
    const params: Record<string, string> = {}
    let q = 1
    let valid = true
    for (const raw of rawParams) {
      const eq = raw.indexOf('=')
      if (eq === -1) continue
      const name = raw.slice(0, eq).trim().toLowerCase()
      const value = raw.slice(eq + 1).trim()
      if (name === 'q') {
        // A malformed weight makes the whole range unusable rather than silently q=1.
        if (!QVALUE.test(value)) valid = false
        else q = Number(value)
        // Parameters after q are accept-extensions, not media-type parameters.
        break
      }
      params[name] = unquote(value).toLowerCase()
    }
    if (valid) ranges.push({ type, subtype, params, q })
  }
  return ranges
}

/** Quality of `mediaType` (`type/subtype`, no parameters) under `ranges`: 0 when nothing matches. */
function quality(ranges: Range[], mediaType: string): number {
  const [type, subtype] = mediaType.toLowerCase().split('/') as [string, string]
  let best = -1
  let q = 0
  for (const r of ranges) {
    let specificity: number
    if (r.type === type && r.subtype === subtype) specificity = 4
    else if (r.type === type && r.subtype === '*') specificity = 2
    else if (r.type === '*' && r.subtype === '*') specificity = 1
    else continue
    // Media-type parameters (e.g. charset) narrow a range; we serve none of our own, so a range
    // naming some still matches and simply counts as more specific.
    specificity = specificity * 100 + Object.keys(r.params).length
    // The same range twice: the higher weight counts (as the `negotiator` package has it).
    if (specificity > best || (specificity === best && r.q > q)) {
      best = specificity
      q = r.q
    }
  }
  return q
}

/**
 * The representation a request asks for among `offered` (first = the default): the highest
 * quality wins; ties, an absent or unusable header, and nothing acceptable all give the default.
 */
export function negotiate<T extends string>(accept: string, offered: readonly [T, ...T[]]): T {
  const fallback = offered[0]
  if (!accept.trim()) return fallback
  const ranges = parseRanges(accept)
  if (!ranges.length) return fallback
  let winner = fallback
  let top = quality(ranges, fallback)
  for (const candidate of offered.slice(1)) {
    const q = quality(ranges, candidate)
    if (q > top) {
      winner = candidate
      top = q
    }
  }
  return winner
}

/** Exposed for tests: the quality the header gives one media type. */
export const acceptQuality = (accept: string, mediaType: string) => quality(parseRanges(accept), mediaType)
