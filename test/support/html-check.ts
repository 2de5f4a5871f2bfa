/**
 * Judges HTML the way a browser would see it: parse5 builds the tree exactly as the HTML
 * standard says (foreign content, raw-text elements, entity decoding, tabs stripped from URLs
 * by the URL parser), and the tree is serialized and parsed again to catch mutation XSS, where
 * markup that looks inert once becomes live after a round trip through innerHTML, and parsed
 * once more with markup after it, as a page places it, to catch a tag left open at the end.
 *
 * Two sets of rules apply. Fixed danger rules that do not depend on our policy (no script,
 * plugin, frame, form or foreign element, no event handler, no URL other than http(s)/mailto
 * or relative, no CSS that can fetch or run anything), and conformance to the allow-list the
 * router declares, so the filter honours its own list.
 */
import { parseFragment, serialize, type DefaultTreeAdapterMap } from 'parse5'
import { ALLOWED_ATTRIBUTES, ALLOWED_STYLES, ALLOWED_TAGS, URL_ATTRIBUTES, type HtmlKind } from '../../src/sanitize/allowlist.js'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

const HTML_NS = 'http://www.w3.org/1999/xhtml'

const NEVER = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'option',
  'link',
  'meta',
  'base',
  'svg',
  'math',
  'noscript',
  'template',
  'title',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
  'audio',
  'video',
  'source',
  'track',
  'isindex',
  'bgsound',
  'marquee',
  'details',
  'dialog',
  'portal',
  'body',
  'html',
  'head',
])

/** Schemes a browser may follow from stored content. */
const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:'])

/** Where a browser loads or follows a URL from an attribute. */
const URLISH = new Set([
  'href',
  'src',
  'cite',
  'action',
  'formaction',
  'data',
  'background',
  'poster',
  'srcset',
  'dynsrc',
  'lowsrc',
  'xlink:href',
  'ping',
  'longdesc',
  'codebase',
  'manifest',
])

/** A URL's scheme as a browser resolves it (tabs/newlines removed, controls trimmed, lower-cased). */
export function schemeOf(url: string): string | null {
  try {
    return new URL(url, 'https://relative.invalid/base/').protocol
  } catch {
    return null
  }
}

function styleProblems(style: string, where: string): string[] {
  const problems: string[] = []
  // Anything that can fetch, bind or evaluate, before and after CSS escapes are undone.
  const unescaped = style
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1')
  for (const text of [style, unescaped]) {
    if (/url\s*\(|expression|behavior|binding|javascript|vbscript|@import|\\|\/\*/i.test(text))
      problems.push(`${where}: dangerous style ${JSON.stringify(style)}`)
  }
  return problems
}

function declarations(style: string): Array<[string, string]> {
  return style
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => {
      const i = d.indexOf(':')
      return [d.slice(0, i).trim().toLowerCase(), d.slice(i + 1).trim()] as [string, string]
    })
}

function walk(node: Node, visit: (el: Element) => void): void {
  if ('tagName' in node) visit(node)
  const children = 'childNodes' in node ? node.childNodes : []
  for (const child of children) walk(child, visit)
  if ('content' in node && node.content) walk(node.content as Node, visit)
}

/** One reason the HTML is live, and the element it was found on. */
export interface Problem {
  tag: string
  message: string
}

function treeProblems(html: string, kind: HtmlKind): Problem[] {
  const found: Problem[] = []
  const fragment = parseFragment(html)
  const allowedTags = new Set(ALLOWED_TAGS[kind])
  const attrs = ALLOWED_ATTRIBUTES[kind]
  walk(fragment as unknown as Node, (el) => {
    const tag = el.tagName.toLowerCase()
    const problems = { push: (...messages: string[]) => messages.forEach((message) => found.push({ tag, message })) }
    if (el.namespaceURI !== HTML_NS) problems.push(`<${tag}> in foreign namespace ${el.namespaceURI}`)
    if (NEVER.has(tag)) problems.push(`dangerous element <${tag}>`)
    if (!allowedTags.has(tag)) problems.push(`element <${tag}> not in the ${kind} allow-list`)
    const allowedAttrs = new Set([...(attrs['*'] ?? []), ...(attrs[tag] ?? [])])
    for (const attr of el.attrs) {
      const name = (attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name).toLowerCase()
      const where = `<${tag} ${name}>`
      if (name.startsWith('on')) problems.push(`${where}: event handler`)
      if (!allowedAttrs.has(name)) problems.push(`${where}: attribute not in the ${kind} allow-list`)
      if (URLISH.has(name)) {
        const scheme = schemeOf(attr.value)
        if (!scheme || !SAFE_SCHEMES.has(scheme)) problems.push(`${where}: unsafe URL ${JSON.stringify(attr.value)}`)
        // The router's own list may be narrower (no mailto: images); relative URLs name no scheme.
        const listed = URL_ATTRIBUTES[name]
        const explicit = /^[a-z][a-z0-9+.-]*:/i.test(attr.value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, ''))
        if (listed && explicit && scheme && !listed.includes(scheme.slice(0, -1))) problems.push(`${where}: scheme ${scheme} not allowed`)
      }
      if (name === 'style') {
        problems.push(...styleProblems(attr.value, where))
        for (const [prop, value] of declarations(attr.value)) {
          const shapes = ALLOWED_STYLES[prop]
          if (!shapes || !shapes.some((re) => re.test(value))) problems.push(`${where}: style ${prop}: ${value} not allowed`)
        }
      }
    }
  })
  return found
}

/** Every way this HTML is (or becomes, after one innerHTML round trip) live markup; [] when inert. */
export function liveMarkup(html: string, kind: HtmlKind): string[] {
  return [...new Set(liveProblems(html, kind).map((p) => p.message))]
}

/** As liveMarkup, with the element each problem was found on. */
export function liveProblems(html: string, kind: HtmlKind): Problem[] {
  const once = treeProblems(html, kind)
  const reparsed = serialize(parseFragment(html))
  const twice = reparsed === html ? [] : treeProblems(reparsed, kind).map((p) => ({ ...p, message: `after round trip: ${p.message}` }))
  // A page puts more markup after the value: a tag left open at its end would come alive there.
  const followed = treeProblems(`${html}"'>`, kind)
    .filter((p) => !once.some((o) => o.message === p.message))
    .map((p) => ({ ...p, message: `when followed by markup: ${p.message}` }))
  return [...once, ...twice, ...followed]
}

/** The HTML as a browser would serialize it, for comparing formatting that must survive. */
export function normalizeHtml(html: string): string {
  return serialize(parseFragment(html))
}

/** Text a browser would show (entities decoded, tags gone). */
export function textOf(html: string): string {
  let out = ''
  const collect = (node: Node) => {
    if (node.nodeName === '#text') out += (node as DefaultTreeAdapterMap['textNode']).value
    if ('childNodes' in node) for (const c of node.childNodes) collect(c)
  }
  collect(parseFragment(html) as unknown as Node)
  return out
}
