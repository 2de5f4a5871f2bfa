/**
 * Node's built-in modules where the runtime has them (Node, Bun and Deno all offer
 * `process.getBuiltinModule`), without an import: the router's root entry loads on workers too,
 * where webhooks then fall back to `fetch` (webhooks/sender.ts).
 */
type GetBuiltin = (id: string) => unknown

export function builtin<T>(id: string): T | null {
  const p = (globalThis as { process?: { getBuiltinModule?: GetBuiltin } }).process
  try {
    return (p?.getBuiltinModule?.(id) as T | undefined) ?? null
  } catch {
    // Feature detection: this runtime has no such built-in.
    return null
  }
}
