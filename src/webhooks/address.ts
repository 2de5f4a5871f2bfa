/**
 * Which addresses a webhook may reach (SSRF), as an allow-list: ordinary global unicast only.
 * Loopback, private, shared, link-local (the cloud metadata services live there), multicast,
 * documentation, benchmarking, reserved and every other special-purpose block of the IANA
 * registries are refused, and an IPv4 address carried inside an IPv6 one (mapped, translated,
 * NAT64, 6to4, Teredo) is taken out and judged as IPv4. Checked when an endpoint is saved and
 * again, on the address actually connected to, at every delivery (docs/webhooks.md).
 *
 * Special-purpose blocks that are globally reachable (anycast relays, AS112 sinks, ORCHID
 * identifiers) are refused too: they are protocol infrastructure, never a site's receiver.
 */

/** 4 or 6 for an IP address literal, 0 otherwise (node:net's isIP, which the core may not import). */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (parseV4(text) !== null) return 4
  return parseV6(text) === null ? 0 : 6
}

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

/** A dotted-quad IPv4 address as an unsigned 32-bit number; null for anything else. */
function parseV4(text: string): number | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => V4_PART.test(p))) return null
  return parts.reduce((n, p) => n * 256 + Number(p), 0)
}

/** An IPv6 address (a zone id after `%` ignored) as a 128-bit number; null for anything else. */
function parseV6(text: string): bigint | null {
  const bare = text.split('%')[0] as string
  if (!bare.includes(':') || !/^[0-9a-fA-F:.]+$/.test(bare)) return null
  const halves = bare.split('::')
  if (halves.length > 2) return null
  const groups = (half: string | undefined) => (half ? half.split(':') : [])
  const left = groups(halves[0])
  const right = groups(halves[1])
  // A trailing dotted IPv4 part stands for the last two groups.
  const tail = halves.length === 2 ? right : left
  const last = tail[tail.length - 1]
  if (last !== undefined && last.includes('.')) {
    const v4 = parseV4(last)
    if (v4 === null) return null
    tail.splice(tail.length - 1, 1, (v4 >>> 16).toString(16), (v4 & 0xffff).toString(16))
  }
  const count = left.length + right.length
  if (halves.length === 2 ? count > 7 : count !== 8) return null
  const all = [...left, ...Array<string>(8 - count).fill('0'), ...right]
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n)
}

/** `a.b.c.d/n` or `x::/n` as a base and a bit count. */
type Block = readonly [base: number, bits: number]

function v4Block(prefix: string): Block {
  const [addr, bits] = prefix.split('/') as [string, string]
  return [parseV4(addr) as number, Number(bits)]
}

const inV4 = (n: number, [base, bits]: Block) => bits === 0 || Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits))

/** IPv4 blocks that are not ordinary global unicast (the registry's rows, multicast and reserved). */
const V4_REFUSED: Block[] = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private use
  '100.64.0.0/10', // shared address space (carrier-grade NAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link local: metadata services
  '172.16.0.0/12', // private use
  '192.0.0.0/24', // IETF protocol assignments (DS-Lite, PCP/TURN anycast, NAT64 discovery)
  '192.0.2.0/24', // documentation
  '192.31.196.0/24', // AS112-v4
  '192.52.193.0/24', // AMT
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private use
  '192.175.48.0/24', // direct delegation AS112
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the limited broadcast address
].map(v4Block)

function allowedV4(n: number): boolean {
  return !V4_REFUSED.some((b) => inV4(n, b))
}

type Block6 = readonly [base: bigint, bits: number]

function v6Block(prefix: string): Block6 {
  const [addr, bits] = prefix.split('/') as [string, string]
  return [parseV6(addr) as bigint, Number(bits)]
}

const inV6 = (n: bigint, [base, bits]: Block6) => n >> BigInt(128 - bits) === base >> BigInt(128 - bits)
const bits32 = (n: bigint, from: number) => Number((n >> BigInt(96 - from)) & 0xffffffffn)

/**
 * IPv6 forms that carry an IPv4 address, with where it sits: such an address is allowed when
 * every IPv4 address it carries is.
 */
const V6_EMBEDDING: Array<readonly [Block6, (n: bigint) => number[]]> = [
  [v6Block('::ffff:0:0/96'), (n) => [bits32(n, 96)]], // IPv4-mapped
  [v6Block('::ffff:0:0:0/96'), (n) => [bits32(n, 96)]], // IPv4-translated (SIIT)
  [v6Block('64:ff9b::/96'), (n) => [bits32(n, 96)]], // NAT64, well-known prefix
  [v6Block('2002::/16'), (n) => [bits32(n, 16)]], // 6to4: the site's IPv4 in bits 16-47
  // Teredo: the server's IPv4 in bits 32-63, the client's in the last 32 bits, inverted.
  [v6Block('2001::/32'), (n) => [bits32(n, 32), ~bits32(n, 96) >>> 0]],
]

/**
 * Global unicast is 2000::/3: everything outside it is refused (loopback, unspecified, the
 * deprecated IPv4-compatible ::/96, local-use NAT64 64:ff9b:1::/48, whose IPv4 position depends
 * on a prefix length only that network knows, discard-only 100::/64, segment routing 5f00::/16,
 * unique local, link-local, the old site-local fec0::/10, multicast). Inside it, these:
 */
const V6_REFUSED: Block6[] = [
  '2001::/23', // IETF protocol assignments: benchmarking, ORCHID, AMT, AS112, anycast relays
  '2001:db8::/32', // documentation
  '2620:4f:8000::/48', // direct delegation AS112
  '3fff::/20', // documentation
].map(v6Block)

const GLOBAL_UNICAST = v6Block('2000::/3')

function allowedV6(n: bigint): boolean {
  const embedding = V6_EMBEDDING.find(([block]) => inV6(n, block))
  if (embedding) return embedding[1](n).every(allowedV4)
  return inV6(n, GLOBAL_UNICAST) && !V6_REFUSED.some((b) => inV6(n, b))
}

/**
 * Whether a webhook may not be sent to this IP address (unless the host allows private ones):
 * true for anything but an ordinary global unicast address, and for text that is no address.
 *
 * @example
 * isBlockedAddress('169.254.169.254') // true: the cloud metadata service
 * isBlockedAddress('2002:7f00:1::1') // true: 6to4 carrying 127.0.0.1
 * isBlockedAddress('93.184.216.34') // false
 */
export function isBlockedAddress(ip: string): boolean {
  const v4 = parseV4(ip)
  if (v4 !== null) return !allowedV4(v4)
  const v6 = parseV6(ip)
  return v6 === null || !allowedV6(v6)
}
