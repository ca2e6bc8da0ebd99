/**
 * An object whose every property is built by its factory on first read and kept from then on
 * (the getter replaces itself with the value), so what is never read is never built.
 */
export function lazyRepositories<T extends object>(factories: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const key of Object.keys(factories) as (keyof T)[]) {
    Object.defineProperty(target, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = factories[key]();
        Object.defineProperty(target, key, { value, enumerable: true, writable: false });
        return value;
      },
    });
  }
  return target;
}
