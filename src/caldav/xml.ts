/**
 * A small XML reader and writer for WebDAV bodies. Hand-written rather than a dependency because
 * a DAV request body needs only elements, namespaces and text, and what it must NOT do is the
 * dangerous part of general XML parsers: no DTD is read (a `<!DOCTYPE` is refused outright, so no
 * entity can be declared, expanded or fetched: billion laughs and external entities cannot
 * happen), only the five predefined entities and character references are known, and the body's
 * size and nesting depth are bounded before anything is built.
 */

export const DAV = 'DAV:'
export const CALDAV = 'urn:ietf:params:xml:ns:caldav'
export const CS = 'http://calendarserver.org/ns/'
export const ICAL_NS = 'http://apple.com/ns/ical/'

export interface XmlElement {
  ns: string
  name: string
  children: XmlElement[]
  /** The element's own text (character data directly inside it), trimmed by readers that want it. */
  text: string
  attrs: Record<string, string>
}

export class XmlError extends Error {}

export const XML_LIMITS = { maxBytes: 1_000_000, maxDepth: 64, maxElements: 20_000 }

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s
  return s.replace(/&([^;&\s]{0,10});?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlError('a bare "&" is not well-formed XML')
    if (ref in PREDEFINED) return PREDEFINED[ref]!
    const m = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(ref)
    if (!m) throw new XmlError(`the entity &${ref}; is not one of XML's five predefined entities (no DTD is read)`)
    const code = m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2])
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new XmlError(`&${ref}; is not a character`)
    return String.fromCodePoint(code)
  })
}

interface Open {
  el: XmlElement
  qname: string
  scope: Map<string, string>
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/
const ATTR = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/

function resolve(qname: string, scope: Map<string, string>, isAttr: boolean): { ns: string; name: string } {
  const colon = qname.indexOf(':')
  if (colon === -1) return { ns: isAttr ? '' : (scope.get('') ?? ''), name: qname }
  const prefix = qname.slice(0, colon)
  const ns = scope.get(prefix)
  if (ns === undefined) throw new XmlError(`the prefix "${prefix}" is not declared`)
  return { ns, name: qname.slice(colon + 1) }
}

/** Reads one start tag at `at` (after `<`); answers the element, whether it closed itself and where it ended. */
function startTag(src: string, at: number, parent: Map<string, string>): { open: Open; selfClosing: boolean; end: number } {
  const rest = src.slice(at, at + 4096)
  const n = NAME.exec(rest)
  if (!n) throw new XmlError('a tag without a name')
  let i = n[0].length
  const raw: Array<[string, string]> = []
  for (;;) {
    const a = ATTR.exec(rest.slice(i))
    if (!a) break
    raw.push([a[1]!, decodeEntities(a[3] ?? a[4] ?? '')])
    i += a[0].length
  }
  const close = /^\s*(\/?)>/.exec(rest.slice(i))
  if (!close) throw new XmlError(`the tag <${n[0]}> is not closed properly`)
  const scope = new Map(parent)
  for (const [k, v] of raw) {
    if (k === 'xmlns') scope.set('', v)
    else if (k.startsWith('xmlns:')) scope.set(k.slice(6), v)
  }
  const attrs: Record<string, string> = {}
  for (const [k, v] of raw) if (k !== 'xmlns' && !k.startsWith('xmlns:')) attrs[resolve(k, scope, true).name] = v
  const { ns, name } = resolve(n[0], scope, false)
  return {
    open: { el: { ns, name, children: [], text: '', attrs }, qname: n[0], scope },
    selfClosing: close[1] === '/',
    end: at + i + close[0].length,
  }
}

/** Skips what is not an element: declarations, comments, processing instructions; refuses DTDs. */
function skipMarkup(src: string, at: number): number {
  if (src.startsWith('<!--', at)) {
    const end = src.indexOf('-->', at + 4)
    if (end === -1) throw new XmlError('an unclosed comment')
    return end + 3
  }
  if (src.startsWith('<?', at)) {
    const end = src.indexOf('?>', at + 2)
    if (end === -1) throw new XmlError('an unclosed processing instruction')
    return end + 2
  }
  if (/^<!DOCTYPE/i.test(src.slice(at, at + 9)) || src.startsWith('<!ENTITY', at)) {
    throw new XmlError('a DOCTYPE is not accepted (no DTD or entity declaration is read)')
  }
  throw new XmlError('unexpected markup')
}

/**
 * Parses a request body into its root element.
 *
 * @example
 * parseXml('<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>').children[0].name // 'allprop'
 */
export function parseXml(src: string): XmlElement {
  if (src.length > XML_LIMITS.maxBytes) throw new XmlError(`the body is larger than ${XML_LIMITS.maxBytes} bytes`)
  const stack: Open[] = []
  let root: XmlElement | null = null
  let count = 0
  let i = 0
  const base = new Map<string, string>([['xml', 'http://www.w3.org/XML/1998/namespace']])
  while (i < src.length) {
    const lt = src.indexOf('<', i)
    const textEnd = lt === -1 ? src.length : lt
    if (textEnd > i) {
      const chunk = src.slice(i, textEnd)
      const top = stack[stack.length - 1]
      if (top) top.el.text += decodeEntities(chunk)
      else if (chunk.trim() !== '') throw new XmlError('text outside the root element')
    }
    if (lt === -1) break
    if (src.startsWith('<![CDATA[', lt)) {
      const end = src.indexOf(']]>', lt)
      const top = stack[stack.length - 1]
      if (end === -1 || !top) throw new XmlError('a misplaced or unclosed CDATA section')
      top.el.text += src.slice(lt + 9, end)
      i = end + 3
    } else if (src[lt + 1] === '/') {
      const end = src.indexOf('>', lt)
      const top = stack.pop()
      if (end === -1 || !top || src.slice(lt + 2, end).trim() !== top.qname) throw new XmlError('mismatched end tag')
      i = end + 1
    } else if (src[lt + 1] === '!' || src[lt + 1] === '?') {
      i = skipMarkup(src, lt)
    } else {
      if (root && stack.length === 0) throw new XmlError('more than one root element')
      if (++count > XML_LIMITS.maxElements) throw new XmlError(`more than ${XML_LIMITS.maxElements} elements`)
      if (stack.length >= XML_LIMITS.maxDepth) throw new XmlError(`nested deeper than ${XML_LIMITS.maxDepth} elements`)
      const parent = stack[stack.length - 1]
      const { open, selfClosing, end } = startTag(src, lt + 1, parent?.scope ?? base)
      if (parent) parent.el.children.push(open.el)
      else root = open.el
      if (!selfClosing) stack.push(open)
      i = end
    }
  }
  if (stack.length) throw new XmlError(`the element <${stack[stack.length - 1]!.qname}> is not closed`)
  if (!root) throw new XmlError('no root element')
  return root
}

export const child = (el: XmlElement, ns: string, name: string): XmlElement | undefined =>
  el.children.find((c) => c.ns === ns && c.name === name)

export const children = (el: XmlElement, ns: string, name: string): XmlElement[] =>
  el.children.filter((c) => c.ns === ns && c.name === name)

/** Text escaped for element content and attribute values. */
export const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)

/** The prefixes this server writes its answers with. */
const PREFIX: Record<string, string> = { [DAV]: 'd', [CALDAV]: 'c', [CS]: 'cs', [ICAL_NS]: 'ic' }

export const NAMESPACES = Object.entries(PREFIX)
  .map(([ns, p]) => `xmlns:${p}="${ns}"`)
  .join(' ')

/** `<prefix:name>inner</prefix:name>` for a namespace this server writes; unknown ones get their own xmlns. */
export function tag(ns: string, name: string, inner = ''): string {
  const p = PREFIX[ns]
  if (p) return inner === '' ? `<${p}:${name}/>` : `<${p}:${name}>${inner}</${p}:${name}>`
  const open = `x:${name} xmlns:x="${escapeXml(ns)}"`
  return inner === '' ? `<${open}/>` : `<${open}>${inner}</x:${name}>`
}

export const xmlDocument = (body: string) => `<?xml version="1.0" encoding="utf-8"?>\n${body}`
