/**
 * Which addresses a webhook may not reach (SSRF): loopback, private, shared, link-local (the
 * cloud metadata services live there), multicast, reserved and unspecified ones, in IPv4 and
 * IPv6 (IPv4 inside IPv6 included). Checked when an endpoint is saved and again, on the address
 * actually connected to, at every delivery.
 */
/** 4 or 6 for an IP address literal, 0 otherwise (node:net's isIP, which the core may not import). */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(text)) return 4
  if (!text.includes(':') || !/^[0-9a-fA-F:.%]+$/.test(text.split('%')[0] ?? '')) return 0
  try {
    new URL(`http://[${text.split('%')[0]}]/`)
    return 6
  } catch {
    return 0
  }
}

const V4_BLOCKED: Array<[number, number]> = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 shared (carrier-grade NAT)
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local, metadata services
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 protocol assignments
  [0xc0000200, 24], // 192.0.2/24 documentation
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 documentation
  [0xcb007100, 24], // 203.0.113/24 documentation
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, broadcast
]

function v4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

function blockedV4(ip: string): boolean {
  const n = v4Number(ip)
  return V4_BLOCKED.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)))
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part expanded). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split('%')[0] as string
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const n = v4Number(dotted[1] as string)
    text = text.slice(0, -dotted[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail !== undefined && tail ? tail.split(':') : []
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16))
}

function blockedV6(ip: string): boolean {
  const g = v6Groups(ip)
  if (g.length !== 8 || g.some((x) => !Number.isFinite(x))) return true
  const [a, b, c, d, e, f, h7, h8] = g as [number, number, number, number, number, number, number, number]
  const v4 = `${h7 >> 8}.${h7 & 255}.${h8 >> 8}.${h8 & 255}`
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
    if (f === 0xffff) return blockedV4(v4) // ::ffff:a.b.c.d, IPv4-mapped
    if (f === 0 && h7 === 0 && (h8 === 0 || h8 === 1)) return true // :: and ::1
    if (f === 0) return true // ::a.b.c.d, deprecated IPv4-compatible
  }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return blockedV4(v4) // 64:ff9b::/96 NAT64
  if ((a & 0xfe00) === 0xfc00) return true // fc00::/7 unique local
  if ((a & 0xffc0) === 0xfe80) return true // fe80::/10 link-local
  if ((a & 0xff00) === 0xff00) return true // multicast
  if (a === 0x2001 && b === 0x0db8) return true // documentation
  return false
}

/**
 * Whether a webhook may not be sent to this IP address (unless the host allows private ones).
 *
 * @example
 * isBlockedAddress('169.254.169.254') // true: the cloud metadata service
 * isBlockedAddress('93.184.216.34') // false
 */
export function isBlockedAddress(ip: string): boolean {
  const kind = ipVersion(ip)
  if (kind === 4) return blockedV4(ip)
  if (kind === 6) return blockedV6(ip)
  return true
}
