import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  reload: () => void;
}

/**
 * Loads `load()` whenever `keys` change; `pollMs` reloads in the background
 * (a group's state updates without a reload of the page), keeping the last
 * data shown while the next answer is on its way.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[], pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && (setData(value), setError(null)),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [...keys, tick]);
  useEffect(() => {
    if (pollMs === undefined) return undefined;
    const timer = setInterval(reload, pollMs);
    return () => clearInterval(timer);
  }, [pollMs]);
  return { data, error, reload };
}
