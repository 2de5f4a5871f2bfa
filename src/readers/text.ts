/** Plain text (iCalendar DESCRIPTION, a CSV cell) as safe HTML: escaped, paragraphs and line breaks kept. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

/**
 * @example
 * textToHtml('Doors 7pm\nBring <cash>\n\nSee you') // '<p>Doors 7pm<br>\nBring &lt;cash&gt;</p>\n<p>See you</p>'
 */
export function textToHtml(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim()
  if (normalized === '') return ''
  return normalized
    .split(/\n{2,}/)
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n')
}

/** Whether a cell already holds HTML (TEC's CSV descriptions often do): then it is kept for the filter. */
export function looksLikeHtml(s: string): boolean {
  return /<\/?[a-z][^>]*>/i.test(s)
}
