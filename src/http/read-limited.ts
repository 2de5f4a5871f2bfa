/**
 * A body read whole, but never past a limit: the reader is cancelled and `tooBig()` thrown at the
 * first chunk over it, so a sender cannot make us hold more than `limit` bytes. Shared by the
 * fetch adapter's request bodies and the importer's downloads.
 */

/**
 * The bytes of `stream` (none without one), or the error `tooBig` gives once they exceed `limit`.
 * @example const bytes = await readLimited(request.body, 1 << 20, () => new PayloadTooLargeError(1 << 20))
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array> | null | undefined,
  limit: number,
  tooBig: () => Error,
  /** Awaited after each chunk (the importer lets the server answer between the chunks of a download). */
  between?: () => Promise<void>,
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      throw tooBig()
    }
    chunks.push(value)
    if (between) await between()
  }
  const all = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  return all
}
