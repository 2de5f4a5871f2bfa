/**
 * The site's currency (`currency` option): numeric costs written without a symbol are shown
 * with it (`£8`, `12 €`), in `cost`, the feed and JSON-LD; a cost with a symbol of its own keeps
 * it. Before, every such cost read `$`: typing 12 on a site whose events show "£8" gave "$12".
 * An option of the router, whatever the storage: memory.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { resolveOptions, type CalendarOptions } from '../src/options.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { makeApp } from './http/harness.js'

async function open(currency?: CalendarOptions['currency']) {
  const app = await makeApp(createMemoryStorage, currency ? { currency } : {})
  onTestFinished(() => app.close())
  return app
}

describe('site currency', () => {
  it('shows numeric costs without a symbol in the site currency, before or after the number', async () => {
    const pounds = await open({ symbol: '£' })
    const e = await pounds.seed({ cost: '12' })
    const read = await pounds.get(`/events/${e.id}`)
    expect(read.body.cost).toBe('£12')
    expect(read.body.json_ld.offers).toMatchObject({ price: '12', priceCurrency: 'GBP' })
    const range = await pounds.seed({ cost: '5 - 15' })
    expect((await pounds.get(`/events/${range.id}`)).body.cost).toBe('£5 \u2013 £15')
    const own = await pounds.seed({ cost: '€15' })
    expect((await pounds.get(`/events/${own.id}`)).body.cost).toBe('€15')

    const euros = await open({ symbol: ' €', position: 'postfix' })
    const f = await euros.seed({ cost: '12' })
    expect((await euros.get(`/events/${f.id}`)).body.cost).toBe('12 €')
    // Unchanged without the option: TEC's default.
    const plain = await open()
    const g = await plain.seed({ cost: '12' })
    expect((await plain.get(`/events/${g.id}`)).body.cost).toBe('$12')
  })

  it('refuses a currency that is not a short symbol, naming the option', () => {
    for (const bad of [{ symbol: '' }, { symbol: '12' }, { symbol: 'a very long name' }, { symbol: '£', position: 'middle' }])
      expect(() => resolveOptions({ currency: bad as never }), JSON.stringify(bad)).toThrow(/currency/)
  })
})
