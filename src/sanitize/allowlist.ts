/**
 * What filtered HTML may contain, in the spirit of WordPress's post allow-list: text formatting,
 * links, images, lists, tables, headings, quotes and code. Nothing that runs script, loads a
 * document or plugin, submits a form or switches the parser into SVG/MathML is listed; neither
 * are `id`/`name` (DOM clobbering) nor `class` (borrowing the site's styles).
 */

/** `inline` for titles, names and one-line fields; `rich` for descriptions and excerpts. */
export type HtmlKind = 'inline' | 'rich'

const INLINE_TAGS = [
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'del',
  'ins',
  'sub',
  'sup',
  'small',
  'mark',
  'code',
  'kbd',
  'samp',
  'var',
  'abbr',
  'cite',
  'q',
  'span',
  'time',
  'bdi',
] as const

const BLOCK_TAGS = [
  'a',
  'p',
  'br',
  'hr',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'blockquote',
  'pre',
  'address',
  'figure',
  'figcaption',
  'img',
  'table',
  'caption',
  'colgroup',
  'col',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
] as const

export const ALLOWED_TAGS: Record<HtmlKind, readonly string[]> = {
  inline: INLINE_TAGS,
  rich: [...INLINE_TAGS, ...BLOCK_TAGS],
}

/** Attributes every allowed element may carry. */
const GLOBAL_ATTRIBUTES = ['title', 'lang', 'dir']

/** Attributes by element, besides the global ones. `style` is checked property by property. */
export const ALLOWED_ATTRIBUTES: Record<HtmlKind, Readonly<Record<string, readonly string[]>>> = {
  inline: { '*': GLOBAL_ATTRIBUTES, q: ['cite'], time: ['datetime'] },
  rich: {
    '*': [...GLOBAL_ATTRIBUTES, 'style'],
    a: ['href', 'rel', 'hreflang'],
    img: ['src', 'alt', 'width', 'height', 'loading'],
    q: ['cite'],
    blockquote: ['cite'],
    del: ['cite', 'datetime'],
    ins: ['cite', 'datetime'],
    time: ['datetime'],
    ol: ['start', 'reversed', 'type'],
    li: ['value'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    col: ['span'],
    colgroup: ['span'],
  },
}

/** Attributes that hold a URL, and the schemes each accepts (relative URLs are always fine). */
export const URL_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  href: ['http', 'https', 'mailto'],
  src: ['http', 'https'],
  cite: ['http', 'https'],
}

const LENGTH = /^(?:0|\d{1,4}(?:\.\d{1,3})?(?:px|em|rem|%))$/
const COLOR = /^(?:#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\(\s*\d{1,3}%?(?:\s*,\s*\d{1,3}%?){2}(?:\s*,\s*(?:0|1|0?\.\d{1,3}))?\s*\))$/i

/** CSS properties `style` may set, each with the exact shape of value it accepts. */
export const ALLOWED_STYLES: Readonly<Record<string, readonly RegExp[]>> = {
  'text-align': [/^(?:left|right|center|justify|start|end)$/],
  color: [COLOR],
  'background-color': [COLOR],
  'font-weight': [/^(?:normal|bold|bolder|lighter|[1-9]00)$/],
  'font-style': [/^(?:normal|italic|oblique)$/],
  'text-decoration': [/^(?:none|underline|overline|line-through)(?:\s+(?:underline|overline|line-through))*$/],
  'padding-left': [LENGTH],
  'margin-left': [LENGTH],
  'list-style-type': [/^[a-z-]{1,30}$/],
  'vertical-align': [/^(?:baseline|top|middle|bottom|sub|super|text-top|text-bottom)$/],
}
