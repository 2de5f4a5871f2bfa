/**
 * The two text steps of the iCalendar writer on generated input: folding (every line at most 75
 * UTF-8 octets, never splitting a character, unfolding gives the line back) and HTML to plain
 * text (no markup, no control characters, entities decoded, scripts and styles gone).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { IcalText } from '../src/representation/ical.js'
import { plainText } from '../src/representation/plain-text.js'

const octets = (s: string) => new TextEncoder().encode(s).length

describe('iCalendar text', () => {
  it('folds any line into lines of at most 75 octets that unfold to the original', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
    )
    fc.assert(
      fc.property(line, (s) => {
        const content = `DESCRIPTION:${s.replace(/[\r\n]/g, ' ')}`
        const out = new IcalText().line(content).toString()
        expect(out.endsWith('\r\n')).toBe(true)
        const lines = out.slice(0, -2).split('\r\n')
        for (const l of lines) expect(octets(l)).toBeLessThanOrEqual(75)
        lines.slice(1).forEach((l) => expect(l[0]).toBe(' '))
        expect(lines.map((l, i) => (i ? l.slice(1) : l)).join('')).toBe(content)
        // No line starts or ends inside a surrogate pair.
        for (const l of lines) expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(l.replace(/^ /, ''))).toBe(false)
      }),
      { numRuns: 1500 },
    )
  })

  it('turns HTML into plain text: no tags, no control characters, script and style contents dropped', () => {
    const markup = fc.constantFrom(
      '<p>',
      '</p>',
      '<br>',
      '<b>',
      '</b>',
      '<a href="x>y">',
      '</a>',
      '<li>',
      '&amp;',
      '&#8217;',
      '&nbsp;',
      '&lt;',
      '&bogus;',
      '<!-- c -->',
      '\t',
      '\r\n',
      '\u0007',
      'word ',
      ' ',
    )
    const hidden = fc.constantFrom(
      '<script>SECRET()</script>',
      '<style>.SECRET{}</style>',
      '<script src=x>SECRET</script>',
      '<STYLE>SECRET</STYLE>',
    )
    // Well-formed markup: script and style contents never show.
    fc.assert(
      fc.property(fc.array(fc.oneof(markup, hidden), { maxLength: 25 }), (pieces) => {
        const text = plainText(pieces.join(''))
        expect(text).not.toContain('SECRET')
        expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
        expect(text).not.toMatch(/\n{3,}/)
        expect(text).toBe(text.trim())
        for (const tag of ['<p>', '<br>', '<b>', '<li>', '<a ', '<!--']) expect(text).not.toContain(tag)
      }),
      { numRuns: 1000 },
    )
    // Any text at all: never a control character, never more than one blank line, never throws.
    fc.assert(
      fc.property(fc.array(fc.oneof(markup, fc.string({ maxLength: 20 })), { maxLength: 25 }), (pieces) => {
        const text = plainText(pieces.join(''))
        expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
        expect(text).not.toMatch(/\n{3,}/)
        expect(text).toBe(text.trim())
      }),
      { numRuns: 1000 },
    )
  })

  it('decodes entities and keeps paragraphs, line breaks and list items apart', () => {
    expect(plainText('<p>Rock &amp; Roll&#8217;s <em>night</em></p><p>Doors&nbsp;at 6<br>Bar at 7</p><ul><li>A</li><li>B</li></ul>')).toBe(
      'Rock & Roll’s night\n\nDoors at 6\nBar at 7\n\nA\nB',
    )
    expect(plainText('  spaced \n\t out  ')).toBe('spaced out')
    // A run of spaces alone is the author's text (a title such as "Quiz  night"); layout is not.
    expect(plainText('Quiz  night:   round two')).toBe('Quiz  night:   round two')
    expect(plainText('Rock & roll  < 5 €')).toBe('Rock & roll  < 5 €')
    expect(plainText('<p>Teams of  four,\n   two</p>')).toBe('Teams of four, two')
    expect(plainText('a < b &amp;&amp c')).toBe('a < b && c')
    expect(plainText('<script>alert(1)</script><style>p{}</style>')).toBe('')
    for (const html of [
      '<SCRIPT>SECRET</SCRIPT>ok',
      '<script type="x">SECRET</script >ok',
      '<style media="a>b">SECRET</style>ok',
      '<p><script>SECRET<p>not a tag</p></script>ok</p>',
    ]) {
      expect(plainText(html)).toBe('ok')
    }
  })
})
