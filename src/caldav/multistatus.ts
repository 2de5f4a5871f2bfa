/** Multistatus answers (RFC 4918 §13) and DAV error bodies (RFC 4918 §16). */
import type { RawResponse } from '../http/types.js'
import { hrefXml } from './context.js'
import { DAV, NAMESPACES, tag, xmlDocument } from './xml.js'

/** One `<d:response>` with a 200 propstat for what it has and a 404 one for what it lacks. */
export function propResponse(href: string, found: string[], missing: string[]): string {
  const stats: string[] = []
  if (found.length) stats.push(tag(DAV, 'propstat', tag(DAV, 'prop', found.join('')) + tag(DAV, 'status', 'HTTP/1.1 200 OK')))
  if (missing.length) stats.push(tag(DAV, 'propstat', tag(DAV, 'prop', missing.join('')) + tag(DAV, 'status', 'HTTP/1.1 404 Not Found')))
  return tag(DAV, 'response', hrefXml(href) + stats.join(''))
}

/** A `<d:response>` holding only a status (a removed member in a sync report: 404). */
export const statusResponse = (href: string, status: string) => tag(DAV, 'response', hrefXml(href) + tag(DAV, 'status', status))

export const DAV_HEADERS = { DAV: '1, 3, calendar-access', 'Content-Type': 'application/xml; charset=utf-8' }

export function multistatus(responses: string[], extra = ''): RawResponse {
  return {
    status: 207,
    headers: { ...DAV_HEADERS },
    body: xmlDocument(`<d:multistatus ${NAMESPACES}>${responses.join('')}${extra}</d:multistatus>`),
  }
}

/** An error with a DAV:error body naming the precondition (`c:valid-calendar-data`...) and a human text. */
export function davError(status: number, condition: string, message: string): RawResponse {
  const text = message.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!)
  return {
    status,
    headers: { ...DAV_HEADERS },
    body: xmlDocument(
      `<d:error ${NAMESPACES}>${condition ? `<${condition}/>` : ''}<d:responsedescription>${text}</d:responsedescription></d:error>`,
    ),
  }
}

/** A plain status answer with the DAV header. */
export const plain = (status: number, headers: Record<string, string> = {}): RawResponse => ({
  status,
  headers: { DAV: DAV_HEADERS.DAV, ...headers },
  body: null,
})
