/**
 * Standard Webhooks 1.0 signing: a secret is `whsec_` + base64 of random bytes; a delivery's
 * `webhook-signature` is `v1,` + base64 of HMAC-SHA256(key, `${id}.${timestamp}.${body}`), one
 * per secret that currently signs (space separated), so a receiver on either side of a rotation
 * accepts it. WebCrypto only: it runs wherever the router runs.
 */
const encoder = new TextEncoder()

const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))

/**
 * A new signing secret: `whsec_` and the base64 of 32 random bytes.
 *
 * @example
 * newSecret() // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw...'
 */
export function newSecret(bytes = 32): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(bytes)))}`
}

/** Whether a text is a secret of that form, its key 24 to 64 bytes long. */
export function isSecret(text: string): boolean {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(text)) return false
  try {
    const n = fromBase64(text.slice(6)).length
    return n >= 24 && n <= 64
  } catch {
    // Not base64: not a secret of that form.
    return false
  }
}

/** `v1,<signature>` of one message with one secret. */
export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', fromBase64(secret.slice(6)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`))
  return `v1,${toBase64(new Uint8Array(mac))}`
}

/** The `webhook-signature` header: one signature per secret that signs at `now`. */
export async function signatureHeader(
  endpoint: { secret: string; previousSecret: string | null; previousSecretUntil: string | null },
  id: string,
  timestamp: number,
  body: string,
  now: Date,
): Promise<string> {
  const secrets = [endpoint.secret]
  if (endpoint.previousSecret && endpoint.previousSecretUntil && Date.parse(endpoint.previousSecretUntil) > now.getTime()) {
    secrets.push(endpoint.previousSecret)
  }
  return (await Promise.all(secrets.map((s) => sign(s, id, timestamp, body)))).join(' ')
}

let sequence = 0

/**
 * A delivery id: `msg_`, the time and a counter (so ids sort in the order deliveries were made,
 * which is the order they are sent to one endpoint), then 12 random characters.
 */
export function messageId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  sequence = (sequence + 1) % 36 ** 4
  const random = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => alphabet[b & 31]).join('')
  return `msg_${Date.now().toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${random}`
}
