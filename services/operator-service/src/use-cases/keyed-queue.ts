/**
 * Runs tasks that share a key one after another, within this process.
 *
 * Why: FerretDB 1.x (the local and CI database) applies concurrent
 * conditional updates of one document without isolation, so the optimistic
 * version check of a PATCH can let two racing writes both "win" (the last
 * one replacing the other). Queuing an operator's changes per replica makes
 * them strictly ordered there; across replicas the version check is what
 * orders them, which MongoDB honours atomically.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
