/**
 * The webhook address guard (issue 38, finding 2) as an allow-list: only ordinary global unicast
 * addresses pass, and an IPv4 address carried inside an IPv6 one is taken out and judged.
 *
 * The tables restate the rows of the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (plus the blocks the address architecture reserves outside them: multicast, the old
 * site-local range, the deprecated IPv4-compatible and the SIIT IPv4-translated forms). Each row
 * is probed at its first address, its last address and one inside; every row is refused except
 * the ones that embed an IPv4 address, which pass exactly when that IPv4 address would.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ipVersion, isBlockedAddress } from '../src/webhooks/address.js'
import { makeApp } from './http/harness.js'
import { createMemoryStorage } from '../src/storage/memory.js'

interface Row {
  prefix: string
  name: string
  /** The registry's "globally reachable" column; null where it says N/A. */
  global: boolean | null
}

// prettier-ignore
const IPV4: Row[] = [
  { prefix: '0.0.0.0/8', name: 'this network', global: false },
  { prefix: '0.0.0.0/32', name: 'this host on this network', global: false },
  { prefix: '10.0.0.0/8', name: 'private use', global: false },
  { prefix: '100.64.0.0/10', name: 'shared address space (carrier-grade NAT)', global: false },
  { prefix: '127.0.0.0/8', name: 'loopback', global: false },
  { prefix: '169.254.0.0/16', name: 'link local', global: false },
  { prefix: '172.16.0.0/12', name: 'private use', global: false },
  { prefix: '192.0.0.0/24', name: 'IETF protocol assignments', global: false },
  { prefix: '192.0.0.0/29', name: 'IPv4 service continuity prefix (DS-Lite)', global: false },
  { prefix: '192.0.0.8/32', name: 'IPv4 dummy address', global: false },
  { prefix: '192.0.0.9/32', name: 'port control protocol anycast', global: true },
  { prefix: '192.0.0.10/32', name: 'TURN anycast', global: true },
  { prefix: '192.0.0.170/31', name: 'NAT64/DNS64 discovery', global: false },
  { prefix: '192.0.2.0/24', name: 'documentation (TEST-NET-1)', global: false },
  { prefix: '192.31.196.0/24', name: 'AS112-v4', global: true },
  { prefix: '192.52.193.0/24', name: 'AMT', global: true },
  { prefix: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', global: null },
  { prefix: '192.168.0.0/16', name: 'private use', global: false },
  { prefix: '192.175.48.0/24', name: 'direct delegation AS112 service', global: true },
  { prefix: '198.18.0.0/15', name: 'benchmarking', global: false },
  { prefix: '198.51.100.0/24', name: 'documentation (TEST-NET-2)', global: false },
  { prefix: '203.0.113.0/24', name: 'documentation (TEST-NET-3)', global: false },
  { prefix: '224.0.0.0/4', name: 'multicast (address space registry)', global: null },
  { prefix: '240.0.0.0/4', name: 'reserved', global: false },
  { prefix: '255.255.255.255/32', name: 'limited broadcast', global: false },
]

/** Rows that carry an IPv4 address; `embed` writes one into the block. */
interface EmbedRow extends Row {
  embed: (v4: number) => string
}

// prettier-ignore
const IPV6: Row[] = [
  { prefix: '::1/128', name: 'loopback', global: false },
  { prefix: '::/128', name: 'unspecified', global: false },
  { prefix: '::/96', name: 'deprecated IPv4-compatible (address architecture)', global: false },
  { prefix: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation', global: false },
  { prefix: '100::/64', name: 'discard-only', global: false },
  { prefix: '100:0:0:1::/64', name: 'dummy IPv6 prefix', global: false },
  { prefix: '2001::/23', name: 'IETF protocol assignments', global: false },
  { prefix: '2001:1::1/128', name: 'port control protocol anycast', global: true },
  { prefix: '2001:1::2/128', name: 'TURN anycast', global: true },
  { prefix: '2001:1::3/128', name: 'DNS-SD service registration protocol anycast', global: true },
  { prefix: '2001:2::/48', name: 'benchmarking', global: false },
  { prefix: '2001:3::/32', name: 'AMT', global: true },
  { prefix: '2001:4:112::/48', name: 'AS112-v6', global: true },
  { prefix: '2001:10::/28', name: 'deprecated ORCHID', global: null },
  { prefix: '2001:20::/28', name: 'ORCHIDv2', global: true },
  { prefix: '2001:30::/28', name: 'drone remote ID tags', global: true },
  { prefix: '2001:db8::/32', name: 'documentation', global: false },
  { prefix: '2620:4f:8000::/48', name: 'direct delegation AS112 service', global: true },
  { prefix: '3fff::/20', name: 'documentation', global: false },
  { prefix: '5f00::/16', name: 'segment routing SIDs', global: false },
  { prefix: 'fc00::/7', name: 'unique local', global: false },
  { prefix: 'fe80::/10', name: 'link-local unicast', global: false },
  { prefix: 'fec0::/10', name: 'deprecated site-local (address architecture)', global: false },
  { prefix: 'ff00::/8', name: 'multicast (address architecture)', global: false },
  { prefix: '4000::/3', name: 'unassigned, outside global unicast 2000::/3', global: null },
  { prefix: '8000::/1', name: 'unassigned, outside global unicast 2000::/3', global: null },
]

const hex = (n: number) => n.toString(16)
const hi = (v4: number) => hex(v4 >>> 16)
const lo = (v4: number) => hex(v4 & 0xffff)

// prettier-ignore
const EMBEDDING: EmbedRow[] = [
  { prefix: '::ffff:0:0/96', name: 'IPv4-mapped', global: false, embed: (v) => `::ffff:${dotted(v)}` },
  { prefix: '::ffff:0:0/96', name: 'IPv4-mapped (hex groups)', global: false, embed: (v) => `::ffff:${hi(v)}:${lo(v)}` },
  { prefix: '::ffff:0:0:0/96', name: 'IPv4-translated (SIIT)', global: null, embed: (v) => `::ffff:0:${dotted(v)}` },
  { prefix: '64:ff9b::/96', name: 'IPv4/IPv6 translation (NAT64 well-known)', global: true, embed: (v) => `64:ff9b::${dotted(v)}` },
  { prefix: '2002::/16', name: '6to4', global: null, embed: (v) => `2002:${hi(v)}:${lo(v)}::1` },
  // Teredo: server IPv4 in bits 32-63; the client's IPv4 in the last 32 bits, inverted.
  { prefix: '2001::/32', name: 'Teredo (client)', global: null, embed: (v) => `2001:0:808:808:0:0:${hi(~v >>> 0)}:${lo(~v >>> 0)}` },
  { prefix: '2001::/32', name: 'Teredo (server)', global: null, embed: (v) => `2001:0:${hi(v)}:${lo(v)}:0:0:f7f7:f7f7` },
]

function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
}

function v4Range(prefix: string): [number, number] {
  const [addr, bits] = prefix.split('/') as [string, string]
  const base = addr.split('.').reduce((n, p) => n * 256 + Number(p), 0)
  const size = 2 ** (32 - Number(bits))
  return [base, base + size - 1]
}

function v6ToBig(text: string): bigint {
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n)
}

function bigToV6(n: bigint): string {
  const groups: string[] = []
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16))
  return groups.join(':')
}

function v6Range(prefix: string): [bigint, bigint] {
  const [addr, bits] = prefix.split('/') as [string, string]
  const size = 1n << BigInt(128 - Number(bits))
  const base = v6ToBig(addr)
  return [base, base + size - 1n]
}

/** A global unicast IPv4 address: none of the blocks above (nor 192.88.99/24 and the rest). */
const globalV4 = fc
  .integer({ min: 0x01000000, max: 0xdfffffff })
  .filter((n) => !IPV4.some((r) => n >= v4Range(r.prefix)[0] && n <= v4Range(r.prefix)[1]))

const PRIVATE_V4 = ['10.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '0.0.0.0/8']
const privateV4 = fc.constantFrom(...PRIVATE_V4).chain((p) => {
  const [lo, hi] = v4Range(p)
  return fc.integer({ min: lo, max: hi })
})

/** A global unicast IPv6 address: in 2000::/3 and none of the special blocks. */
const globalV6 = fc
  .bigInt({ min: v6ToBig('2000::'), max: v6ToBig('3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff') })
  .filter((n) => ![...IPV6, ...EMBEDDING].some((r) => n >= v6Range(r.prefix)[0] && n <= v6Range(r.prefix)[1]))
  .map(bigToV6)

describe('the webhook address guard', () => {
  it.each(IPV4)('refuses IPv4 $prefix ($name)', ({ prefix }) => {
    const [first, last] = v4Range(prefix)
    for (const n of [first, last, first + Math.floor((last - first) / 2)]) expect(isBlockedAddress(dotted(n)), dotted(n)).toBe(true)
  })

  it.each(IPV6)('refuses IPv6 $prefix ($name)', ({ prefix }) => {
    const [first, last] = v6Range(prefix)
    for (const n of [first, last, first + (last - first) / 2n]) expect(isBlockedAddress(bigToV6(n)), bigToV6(n)).toBe(true)
  })

  it.each(EMBEDDING)('judges $prefix ($name) by the IPv4 address inside it', ({ embed }) => {
    for (const bad of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.1.1', '172.16.0.1', '100.64.0.1', '0.0.0.0', '224.0.0.1']) {
      expect(isBlockedAddress(embed(v4Range(`${bad}/32`)[0])), `${embed(v4Range(`${bad}/32`)[0])} (${bad})`).toBe(true)
    }
    expect(isBlockedAddress(embed(v4Range('93.184.216.34/32')[0]))).toBe(false)
  })

  it('accepts ordinary global unicast addresses', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) {
      expect(isBlockedAddress(ip), ip).toBe(false)
    }
  })

  it('refuses what is not an address, and zone ids do not hide a link-local address', () => {
    for (const text of ['', 'example.com', '1.2.3', '1.2.3.4.5', '::g', '1:2:3:4:5:6:7:8:9', 'fe80::1%eth0', '[::1]', '01.2.3.4']) {
      expect(isBlockedAddress(text), text).toBe(true)
    }
    expect(ipVersion('2606:4700::1')).toBe(6)
    expect(ipVersion('1.2.3.4')).toBe(4)
    expect(ipVersion('nope')).toBe(0)
  })

  it('property: a private or loopback IPv4 address inside any IPv6 form is always refused', () => {
    fc.assert(
      fc.property(privateV4, fc.constantFrom(...EMBEDDING), (v4, row) => {
        expect(isBlockedAddress(row.embed(v4)), row.embed(v4)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  it('property: global unicast addresses pass, alone and inside the forms that carry them', () => {
    fc.assert(
      fc.property(globalV4, globalV6, fc.constantFrom(...EMBEDDING.filter((r) => !r.name.startsWith('Teredo'))), (v4, v6, row) => {
        expect(isBlockedAddress(dotted(v4)), dotted(v4)).toBe(false)
        expect(isBlockedAddress(v6), v6).toBe(false)
        expect(isBlockedAddress(row.embed(v4)), row.embed(v4)).toBe(false)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('registering a webhook', () => {
  it('refuses an URL on any IPv6 form that reaches a private IPv4 address, naming the option that allows it', async () => {
    const app = await makeApp(() => createMemoryStorage(), { webhooks: { allowPrivate: false } })
    try {
      for (const host of [
        '[::ffff:0:7f00:1]',
        '[2002:7f00:1::1]',
        '[64:ff9b:1::a00:1]',
        '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
        '[fec0::1]',
        '[100::1]',
        '[::ffff:169.254.169.254]',
      ]) {
        const res = await app.post('/webhooks', { url: `http://${host}/hook` }, { as: 'administrator' })
        expect(res.status, host).toBe(400)
        expect(Object.keys(res.body.data.params), host).toEqual(['url'])
        expect(res.body.data.params.url, host).toContain('webhooks.allowPrivate')
      }
      expect((await app.get('/webhooks', { as: 'administrator' })).body.total).toBe(0)
    } finally {
      await app.close()
    }
  })
})
