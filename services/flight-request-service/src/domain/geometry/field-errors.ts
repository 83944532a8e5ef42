import type { FieldErrors } from '@dfc/kit/errors';

/**
 * Collects field errors under dot paths, in Laravel's words (the attribute is
 * the path with underscores shown as spaces, as the kit's schema messages do).
 * Hostile input can fail at thousands of positions; past `maxFields` distinct
 * paths further errors are dropped, so a 422 body stays small.
 */
export class FieldErrorBag {
  private readonly fields = new Map<string, string[]>();

  constructor(private readonly maxFields = 100) {}

  add(path: string, message: string): void {
    const existing = this.fields.get(path);
    if (existing) {
      if (!existing.includes(message)) existing.push(message);
    } else if (this.fields.size < this.maxFields) {
      this.fields.set(path, [message]);
    }
  }

  get empty(): boolean {
    return this.fields.size === 0;
  }

  /** `Object.fromEntries` defines own properties, so even a `__proto__` path stays a plain key. */
  toFieldErrors(): FieldErrors {
    return Object.fromEntries(this.fields);
  }
}

/** `flight_area.features.0.properties.radius_m` → `flight area.features.0.properties.radius m`. */
export function attribute(path: string): string {
  return path.replace(/_/g, ' ');
}

export function at(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}
