/**
 * What a URL field accepts and stores: an absolute http(s) URL in its serialized form. It sits on
 * the ground floor because the parameter schemas and the custom fields' values both read it, and
 * custom fields sit below the schemas.
 */

/**
 * C0 control characters and DEL. The URL parser drops tabs and line breaks and trims the others
 * at the ends, so a URL holding one would be stored as something else than was sent (and a CR/LF
 * is what header injection is made of): it is refused instead, naming the field.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is its job
const CONTROL = /[\u0000-\u001f\u007f]/

export const hasControl = (s: string) => CONTROL.test(s)

/**
 * An absolute http(s) URL as the URL standard serializes it (`new URL(s).href`: `"`, `<`, `>`,
 * spaces and non-ASCII percent-encoded, the host lower-cased and punycoded), which is what every
 * URL field stores, so that any consumer of the data gets a URL; null for anything else,
 * control characters included. A bare origin keeps no trailing slash: `https://a.example` and
 * `https://a.example/` are the same URL, and sites show the first.
 *
 * @example httpUrlText('https://A.example/a b?q=<x>') // 'https://a.example/a%20b?q=%3Cx%3E'
 * @example httpUrlText('https://a.example') // 'https://a.example'
 * @example httpUrlText('https://a.example/\r\nX-Injected: 1') // null
 */
export function httpUrlText(s: string): string | null {
  if (s.length > 2048 || hasControl(s)) return null
  if (!URL.canParse(s)) return null
  const u = new URL(s)
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null
  const href = u.pathname === '/' && u.href.endsWith('/') && !/[/\\]$/.test(s.trim()) ? u.href.slice(0, -1) : u.href
  return href.length <= 2048 ? href : null
}

export function isHttpUrl(s: string): boolean {
  return httpUrlText(s) !== null
}
