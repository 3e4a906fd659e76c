/**
 * System-wide reference rows that never change while the server runs (units of measure: inserted
 * by every process at start, no operation writes them), loaded once per app and database and then
 * served from memory. A value that is loaded answers synchronously, so a GraphQL field resolving
 * from it costs neither a statement nor a promise per object (an item list embedding sales and
 * stock units read the `units` table twice per request before).
 */
export class ReferenceCache {
  private readonly values = new Map<string, unknown>();
  private readonly pending = new Map<string, Promise<unknown>>();

  /** The value under `key`, loading it with `load` the first time (concurrent callers share that load). */
  get<T>(key: string, load: () => Promise<T>): T | Promise<T> {
    if (this.values.has(key)) return this.values.get(key) as T;
    let pending = this.pending.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = load().then(
        (value) => {
          this.values.set(key, value);
          this.pending.delete(key);
          return value;
        },
        (e: unknown) => {
          this.pending.delete(key);
          throw e;
        },
      );
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** The value under `key` when it is loaded, else undefined (the fast path: no closure, no promise). */
  peek<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  /** Load `key` again on its next use (a row it should hold was not there). */
  forget(key: string): void {
    this.values.delete(key);
  }
}
