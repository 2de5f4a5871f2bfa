/**
 * Tests only (fault injection around a real backend; the library itself has no Proxy: its hooks
 * are storage/pipeline.ts's). Delegates everything to `target` (bound, so backends may use private fields) except the
 * methods given.
 */
export function overlay<T extends object>(target: T, own: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(own, prop)) return own[prop as keyof T]
      const value = Reflect.get(t, prop, t)
      return typeof value === 'function' ? value.bind(t) : value
    },
  })
}
