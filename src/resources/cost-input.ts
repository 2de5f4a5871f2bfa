/**
 * Event cost on write: the `cost` parameter as the entries stored, and the currency they carry
 * (the display side is representation/cost.ts).
 */
import { otherNotation, type CostInput } from '../representation/cost.js'

const SINGLE = /^\s*([^\d\s.,-]*)\s*(\d+(?:[.,]\d+)?)\s*([^\d\s.,-]*)\s*$/

/** Normalises the `cost` parameter (string, number or list of them) into entries. */
export function costEntries(input: unknown): string[] {
  const list = Array.isArray(input) ? input : input === null || input === undefined || input === '' ? [] : [input]
  return list
    .filter((x): x is string | number => (typeof x === 'string' && x.trim() !== '') || (typeof x === 'number' && Number.isFinite(x)))
    .map((x) => String(x).trim())
}

/** Derives symbol and position when every entry carries the same one (`20$` → `$`, postfix). */
export function deriveCurrency(entries: string[]): Pick<CostInput, 'currencySymbol' | 'currencyPosition'> {
  let found: { symbol: string; position: 'prefix' | 'postfix' } | null = null
  for (const e of entries) {
    // `0xFF` is no price with the symbol `xFF`.
    const m = otherNotation(e) ? null : SINGLE.exec(e)
    const before = m?.[1] ?? ''
    const after = m?.[3] ?? ''
    if (!m || (before && after) || (!before && !after)) return { currencySymbol: '', currencyPosition: '' }
    const next = before ? { symbol: before, position: 'prefix' as const } : { symbol: after, position: 'postfix' as const }
    if (found && (found.symbol !== next.symbol || found.position !== next.position)) return { currencySymbol: '', currencyPosition: '' }
    found = next
  }
  return found ? { currencySymbol: found.symbol, currencyPosition: found.position } : { currencySymbol: '', currencyPosition: '' }
}
