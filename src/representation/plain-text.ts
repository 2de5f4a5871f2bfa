/**
 * Stored HTML to the plain text calendar apps show. A real HTML tokenizer (htmlparser2, which
 * decodes entities with the `entities` package) rather than regular expressions: attributes may
 * hold `>`, comments and CDATA hide text, and `<script>`/`<style>` are raw text whose contents
 * are code, not prose.
 */
import { Parser } from 'htmlparser2'

/** Elements whose contents are never prose. */
const DROPPED = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'svg',
  'math',
  'head',
  'title',
  'textarea',
  'select',
])
/** Elements that start and end a paragraph (a blank line around them). */
const PARAGRAPH = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dl', 'figure', 'hr'])
/** Elements that start and end a line. */
const LINE = new Set([
  'div',
  'li',
  'tr',
  'dt',
  'dd',
  'section',
  'article',
  'header',
  'footer',
  'aside',
  'nav',
  'figcaption',
  'address',
  'caption',
])
/** Cells sit on one line, apart. */
const CELL = new Set(['td', 'th'])

// Any run of whitespace (no-break spaces included) is one space; C0/C1 controls are dropped so
// nothing but our own line breaks can reach an iCalendar line.
const SPACE = /[\s\u00a0]+/g
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/** Text builder: collapsed spaces, pending line breaks (1) or paragraph breaks (2). */
class TextOut {
  private out = ''
  private pendingBreak = 0
  private pendingSpace = false

  text(raw: string): void {
    const s = raw.replace(CONTROL, '').replace(SPACE, ' ')
    if (s === '') return
    const startsSpace = s[0] === ' '
    const endsSpace = s[s.length - 1] === ' '
    const core = s.trim()
    if (core === '') {
      this.pendingSpace = true
      return
    }
    if (this.out !== '') {
      if (this.pendingBreak) this.out += this.pendingBreak > 1 ? '\n\n' : '\n'
      else if (this.pendingSpace || startsSpace) this.out += ' '
    }
    this.out += core
    this.pendingBreak = 0
    this.pendingSpace = endsSpace
  }

  brk(level: 1 | 2): void {
    this.pendingBreak = Math.max(this.pendingBreak, level)
    this.pendingSpace = false
  }

  /** A `<br>`: a line break even where one is already pending (two in a row leave a blank line). */
  lineBreak(): void {
    this.pendingBreak = Math.min(2, this.pendingBreak + 1)
    this.pendingSpace = false
  }

  cell(): void {
    if (!this.pendingBreak) this.pendingSpace = true
  }

  toString(): string {
    return this.out
  }
}

// A tag, a comment or a declaration, or an entity: the value is HTML. Without any it is plain
// text (an imported SUMMARY, a name typed in a form), a bare "&" or "<" included.
const MARKUP = /<[a-z!/?]|&(#[0-9]+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i
// In plain text a run of spaces is the author's ("Quiz  night"): a calendar app shows it as is.
// Layout (line breaks, tabs) still becomes one space: SUMMARY and LOCATION are one line.
const ONLY_SPACES = /^[ \u00a0]+$/
const plainSpaces = (run: string) => (ONLY_SPACES.test(run) ? run.replace(/\u00a0/g, ' ') : ' ')

/**
 * HTML (or plain text) as plain text: tags gone, entities decoded, paragraphs as blank lines.
 * HTML's whitespace collapses as a browser would show it; plain text keeps its runs of spaces.
 */
export function plainText(html: string): string {
  // Most titles and names hold neither markup nor entities: no parser needed.
  if (!MARKUP.test(html)) return html.replace(CONTROL, '').replace(SPACE, plainSpaces).trim()
  const out = new TextOut()
  let dropped = 0
  const parser = new Parser(
    {
      onopentag(name) {
        if (DROPPED.has(name)) dropped++
        if (dropped) return
        if (name === 'br') out.lineBreak()
        else if (PARAGRAPH.has(name)) out.brk(2)
        else if (LINE.has(name)) out.brk(1)
        else if (CELL.has(name)) out.cell()
      },
      onclosetag(name) {
        if (DROPPED.has(name)) {
          dropped = Math.max(0, dropped - 1)
          return
        }
        if (dropped) return
        if (PARAGRAPH.has(name)) out.brk(2)
        else if (LINE.has(name)) out.brk(1)
        else if (CELL.has(name)) out.cell()
      },
      ontext(text) {
        if (!dropped) out.text(text)
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  )
  parser.write(html)
  parser.end()
  return out.toString()
}
