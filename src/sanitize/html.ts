/**
 * The default filter: sanitize-html (a real HTML parser, htmlparser2, with per-element
 * attribute and per-scheme URL allow-lists) configured from the allow-list in ./allowlist.ts.
 * No DOM is needed, so it runs the same on Node, Bun and Deno.
 */
import sanitizeHtml from 'sanitize-html'
import { ALLOWED_ATTRIBUTES, ALLOWED_STYLES, ALLOWED_TAGS, URL_ATTRIBUTES, type HtmlKind } from './allowlist.js'

/**
 * Elements dropped with everything inside them rather than unwrapped: their content is code,
 * raw text or foreign (SVG/MathML) markup, which a browser parses by other rules than HTML.
 */
const DROPPED_WITH_CONTENT = [
  'script',
  'style',
  'textarea',
  'option',
  'select',
  'noscript',
  'noembed',
  'noframes',
  'title',
  'xmp',
  'plaintext',
  'iframe',
  'object',
  'template',
  'svg',
  'math',
  'head',
]

/**
 * Deeper nesting than any real content has. The parser's work grows with the square of the
 * depth (a few hundred kilobytes of unclosed tags took tens of seconds), so past this the
 * text is kept with every `<` escaped: shown as typed, never parsed.
 */
export const MAX_DEPTH = 200

/** Open elements in the parse under way; filterHtml is synchronous, so one counter serves all calls. */
let depth = 0

class TooDeep extends Error {}

const depthGuard = {
  onOpenTag() {
    if (++depth > MAX_DEPTH) throw new TooDeep()
  },
  onCloseTag() {
    depth--
  },
}

function configFor(kind: HtmlKind): sanitizeHtml.IOptions {
  const allowedAttributes: Record<string, string[]> = {}
  for (const [tag, names] of Object.entries(ALLOWED_ATTRIBUTES[kind])) allowedAttributes[tag] = [...names]
  // Only links may be mailto:; images and citations are fetched or followed over http(s).
  const allowedSchemesByTag: Record<string, string[]> = {}
  for (const tag of ALLOWED_TAGS[kind]) if (tag !== 'a') allowedSchemesByTag[tag] = [...(URL_ATTRIBUTES.src ?? [])]
  const styles: Record<string, RegExp[]> = {}
  for (const [property, shapes] of Object.entries(ALLOWED_STYLES)) styles[property] = [...shapes]
  return {
    allowedTags: [...ALLOWED_TAGS[kind]],
    allowedAttributes,
    allowedSchemes: [...(URL_ATTRIBUTES.href ?? [])],
    allowedSchemesByTag,
    allowedSchemesAppliedToAttributes: Object.keys(URL_ATTRIBUTES),
    allowProtocolRelative: true,
    allowedStyles: { '*': styles },
    disallowedTagsMode: 'discard',
    nonTextTags: DROPPED_WITH_CONTENT,
    ...depthGuard,
  }
}

const CONFIG: Record<HtmlKind, sanitizeHtml.IOptions> = { inline: configFor('inline'), rich: configFor('rich') }

/**
 * `html` with everything outside the allow-list removed: disallowed elements are unwrapped
 * (their text kept) or, for code and foreign content, dropped whole. Text without a `<` holds
 * no markup at all and is returned unchanged, so plain titles and addresses keep their exact
 * spelling (`AT&T` is not rewritten as `AT&amp;T`).
 */
export function filterHtml(html: string, kind: HtmlKind): string {
  return guarded(html, CONFIG[kind])
}

function guarded(html: string, config: sanitizeHtml.IOptions): string {
  if (!html.includes('<')) return html
  depth = 0
  try {
    return sanitizeHtml(html, config)
  } catch (error) {
    if (error instanceof TooDeep) return html.replace(/</g, '&lt;')
    throw error
  }
}

const PLAIN: sanitizeHtml.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_WITH_CONTENT,
  ...depthGuard,
}

/** Every tag removed, text kept (still HTML-escaped, so it reads the same wherever it goes). */
export function plainText(html: string): string {
  return guarded(html, PLAIN)
}
