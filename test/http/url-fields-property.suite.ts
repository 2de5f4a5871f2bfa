/**
 * The URL fields' property (fast-check, a development tool): the rest of the URL field cases
 * ship in src/testing/http/url-fields.suite.ts and run through httpConformance.
 */
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { FIELDS, OPTIONS } from '../../src/testing/http/url-fields.suite.js'
import { makeApp, type App } from './harness.js'

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage, OPTIONS)
  onTestFinished(() => app.close())
  return app
}

/** What the router promises to store for an accepted URL. */
function serialized(url: string): string {
  const href = new URL(url).href
  const u = new URL(url)
  return u.pathname === '/' && href.endsWith('/') && !/[/\\]$/.test(url.trim()) ? href.slice(0, -1) : href
}

const CONTROL = /[\u0000-\u001f\u007f]/

export function urlFieldsPropertySuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`URL fields [${name}]`, () => {
    it('property: no control character and no raw ", < or > is ever stored in a URL field', async () => {
      const app = await open(makeStorage)
      const piece = fc.oneof(
        fc.constantFrom(
          '"',
          '<',
          '>',
          ' ',
          '`',
          '{',
          '}',
          '|',
          '^',
          '\\',
          '%',
          '%0d%0a',
          '\r',
          '\n',
          '\t',
          '\u0000',
          '\u007f',
          '\u0085',
          'é',
          '☃',
          '?',
          '#',
          '&',
          '=',
        ),
        fc.string({ maxLength: 4 }),
      )
      const url = fc.array(piece, { maxLength: 8 }).map((parts) => `https://x.test/${parts.join('')}`)
      await fc.assert(
        fc.asyncProperty(url, fc.constantFrom(...FIELDS), async (sent, field) => {
          const res = await field.write(app, sent)
          if (CONTROL.test(sent)) {
            expect(res.status, res.text).toBe(400)
            expect([field.param, field.param.replace(/\[.*$/, '')]).toContain(Object.keys(res.body.data.params)[0])
            return
          }
          expect(res.status, `${JSON.stringify(sent)}: ${res.text}`).toBe(201)
          const stored = (await field.read(app, res.body)) as string
          expect(stored).not.toMatch(/[\u0000-\u001f\u007f"<>]/)
          expect(stored).toBe(serialized(sent))
        }),
        { numRuns: 60 },
      )
    })
  })
}
