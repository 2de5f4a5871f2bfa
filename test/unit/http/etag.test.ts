import { describe, expect, it } from 'vitest'
import { ifNoneMatchHits, notModified, weakEtag } from '../../../src/http/etag.js'

describe('weakEtag', () => {
  it('is a weak tag of the body length (base 36) and a hash', () => {
    expect(weakEtag('')).toMatch(/^W\/"0-[0-9a-z]+"$/)
    expect(weakEtag('x'.repeat(36))).toMatch(/^W\/"10-[0-9a-z]+"$/)
  })

  it('is stable for one body and differs for bodies of the same length', () => {
    expect(weakEtag('{"a":1}')).toBe(weakEtag('{"a":1}'))
    expect(weakEtag('{"a":1}')).not.toBe(weakEtag('{"a":2}'))
    expect(weakEtag('ab')).not.toBe(weakEtag('ba'))
    // Whole words and the trailing bytes both count.
    expect(weakEtag('abcdefgh')).not.toBe(weakEtag('abcdefgi'))
    expect(weakEtag('abcdefgh')).not.toBe(weakEtag('bbcdefgh'))
  })

  it('tells apart bodies that differ in any one bit of any byte', () => {
    const base = new TextEncoder().encode('{"events":[{"id":1,"title":"Opera night"}],"total":1}')
    const seen = new Set([weakEtag(base)])
    for (let i = 0; i < base.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const changed = base.slice()
        changed[i]! ^= 1 << bit
        seen.add(weakEtag(changed))
      }
    }
    expect(seen.size).toBe(base.length * 8 + 1)
  })

  it('counts UTF-8 bytes, and hashes a string as its encoded bytes', () => {
    expect(weakEtag('é')).toMatch(/^W\/"2-/)
    expect(weakEtag('“quoted” text')).toBe(weakEtag(new TextEncoder().encode('“quoted” text')))
  })

  it('gives the same tag for the same bytes at any offset', () => {
    const text = new TextEncoder().encode('{"events":[1,2,3]}')
    const shifted = new Uint8Array(text.byteLength + 1)
    shifted.set(text, 1)
    expect(weakEtag(shifted.subarray(1))).toBe(weakEtag(text))
  })
})

describe('ifNoneMatchHits', () => {
  const etag = 'W/"5-abc"'
  const cases: Array<[string | null, boolean]> = [
    [null, false],
    ['', false],
    ['W/"5-abc"', true],
    // Weak comparison: the strong form of the same tag matches too.
    ['"5-abc"', true],
    ['*', true],
    ['"x", W/"5-abc"', true],
    ['  W/"5-abc"  ', true],
    ['W/"other"', false],
    ['"5-ab"', false],
  ]
  for (const [header, hit] of cases) {
    it(`${JSON.stringify(header)} → ${hit}`, () => {
      expect(ifNoneMatchHits(header, etag)).toBe(hit)
    })
  }

  it('compares a strong stored tag weakly as well', () => {
    expect(ifNoneMatchHits('W/"t"', '"t"')).toBe(true)
  })
})

describe('notModified', () => {
  it('answers 304 without a body, keeping only the headers a 304 may carry', () => {
    const res = notModified({
      status: 200,
      headers: {
        'Content-Type': 'application/json; charset=UTF-8',
        ETag: 'W/"1-a"',
        'Cache-Control': 'public, max-age=0, must-revalidate',
        Vary: 'Authorization, Origin',
        Link: '<http://h/wp-json/>; rel="https://api.w.org/"',
        Allow: 'GET',
        'X-TEC-Total': '3',
        'Access-Control-Allow-Origin': 'https://app.example',
      },
      body: '{"a":1}',
    })
    expect(res).toEqual({
      status: 304,
      headers: {
        'Cache-Control': 'public, max-age=0, must-revalidate',
        ETag: 'W/"1-a"',
        Vary: 'Authorization, Origin',
        'Access-Control-Allow-Origin': 'https://app.example',
      },
      body: null,
    })
  })
})
