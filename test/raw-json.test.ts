/** serializeJson: RawJson written verbatim where jsonResponse meets it, JSON.stringify's rules elsewhere. */
import { describe, expect, it } from 'vitest'
import { RawJson, serializeJson } from '../src/http/raw-json.js'

describe('serializeJson', () => {
  const item = { id: 1, title: 'a "quoted" title', nested: { list: [1, 'two'] } }
  const raw = new RawJson(JSON.stringify(item))

  it('writes a RawJson body, member and array item verbatim, with the bytes JSON.stringify gives the values', () => {
    expect(serializeJson(raw)).toBe(JSON.stringify(item))
    const page = { events: [raw, raw], rest_url: 'http://x/?a=1&b="2"', next: undefined, total: 2, f: () => 1 }
    const plain = { events: [item, item], rest_url: page.rest_url, next: undefined, total: 2, f: () => 1 }
    expect(serializeJson(page)).toBe(JSON.stringify(plain))
    expect(serializeJson({ one: raw, mixed: [raw, null, undefined, 3] })).toBe(
      JSON.stringify({ one: item, mixed: [item, null, undefined, 3] }),
    )
  })

  it('leaves bodies without RawJson to JSON.stringify, and RawJson inside them still serializes right', () => {
    for (const body of [null, 1, 'x', [1, 2], { a: [] }, { a: { b: raw } }, [raw]]) {
      expect(serializeJson(body)).toBe(JSON.stringify(JSON.parse(JSON.stringify(body))))
    }
    expect(JSON.stringify({ deep: { r: raw } })).toBe(JSON.stringify({ deep: { r: item } }))
  })
})
