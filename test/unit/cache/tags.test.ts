/**
 * The response cache's tags (src/cache/tags.ts) are built by their constructors alone: each kind
 * has one spelling, and a tag spelled by hand does not compile (checked by tsc over test/).
 */
import { describe, expect, it } from 'vitest'
import { ReadCache } from '../../../src/cache/response-cache.js'
import { groupTag, listTag, postTag, recordTag, searchTag, searchTagWords, seriesTag, termTag, type Tag } from '../../../src/cache/tags.js'

describe('cache tags', () => {
  it('name each kind of dependency apart', () => {
    const tags = [
      postTag(7),
      termTag(7),
      groupTag('posts', 7),
      groupTag('terms', 7),
      seriesTag(7),
      listTag('event'),
      listTag('event', 'term'),
      listTag('event', 'linked'),
      listTag('venue', 'event'),
      searchTag(['jazz']),
    ]
    expect(new Set(tags).size).toBe(tags.length)
    expect(recordTag('event', 7)).toBe(postTag(7))
    expect(recordTag('venue', 7)).toBe(postTag(7))
    expect(recordTag('category', 7)).toBe(termTag(7))
    expect(recordTag('tag', 7)).toBe(termTag(7))
  })

  it('keep a search’s words, whatever characters they hold', () => {
    const words = ['caf\u00e9', 'a"b', 'x:y@z', '']
    expect(searchTagWords(searchTag(words))).toEqual(words)
  })

  it('refuse a hand-spelled string where a tag is wanted', () => {
    const cache = new ReadCache({})
    const raw = { status: 200, headers: {}, body: new TextEncoder().encode('{}') }
    // @ts-expect-error a bare string is no Tag: tags come from their constructors
    cache.set(cache.key('http://x/a', ''), raw, ['p7'] as string[])
    cache.set(cache.key('http://x/b', ''), raw, [postTag(7)] satisfies Tag[])
    cache.invalidate([postTag(7)])
    expect(cache.get(cache.key('http://x/b', ''))).toBeUndefined()
    // The entry stored under the hand-spelled tag went with it: the spelling is the constructor's.
    expect(cache.get(cache.key('http://x/a', ''))).toBeUndefined()
  })
})
