/**
 * HTML building for the example's pages: every interpolated value is escaped unless it is
 * already `SafeHtml` (built by `html` itself, or HTML the library's filter returned). Nothing
 * from the API reaches a page any other way, so a title like `<script>` is shown, never run.
 */

/** A string of markup that is known to be safe to insert as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[]

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** Tagged template: `html\`<h1>${title}</h1>\`` escapes `title`; nested `html` results stay markup. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!))
  return new SafeHtml(out)
}

/** Marks markup as safe: only for HTML that went through `filterHtml` or is a constant. */
export const trusted = (markup: string) => new SafeHtml(markup)

/**
 * JSON inside `<script type="application/ld+json">`: `<` is written as `\u003c` so no value
 * can close the script element (`</script>`) or open a comment; still the same JSON.
 */
export function jsonForScript(value: unknown): SafeHtml {
  const json = JSON.stringify(value) ?? 'null'
  return new SafeHtml(
    json
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  )
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
}

/**
 * A title or name as plain text. WordPress stores titles as HTML (`Rock &amp; Roll`, sometimes
 * with tags), and TEC clients send them so: tags are dropped and entities decoded here, and the
 * template escapes the result again, so the text reads right and no markup survives.
 */
export function plainText(markup: string): string {
  return markup
    .replace(/<[^>]*>?/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
        return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd'
      }
      return NAMED[name.toLowerCase()] ?? entity
    })
    .trim()
}
