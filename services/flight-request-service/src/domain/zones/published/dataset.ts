import type { FieldErrors } from '@dfc/kit/errors';
import type { GeoZoneDraft, LangText } from '../geo-zone.js';

/** One issue of an authority's dataset: what a newer issue replaces. */
export interface DatasetIssue {
  /** `ED-318:<provider>` or `ED-269:<countries>`: the same dataset across its issues. */
  id: string;
  format: 'ED-269' | 'ED-318';
  name: string | null;
  provider: LangText[];
  description: LangText[];
  /** When the authority issued it (ED-318 `metadata.issued`, ED-269 `createdAt`). */
  issued: string | null;
  valid_from: string | null;
  valid_to: string | null;
}

export interface PublishedZoneEntry {
  index: number;
  /** `<country>.<identifier>`: stable across issues. */
  id: string;
  zone: GeoZoneDraft;
}

export interface PublishedImportParse {
  ok: boolean;
  errors: FieldErrors;
  dataset: DatasetIssue | null;
  zones: PublishedZoneEntry[];
}

/** Two zones with one identifier in one document would overwrite each other: the later one is refused. */
export function repeatedIdErrors(zones: PublishedZoneEntry[], pathOf: (index: number) => string): FieldErrors {
  const first = new Map<string, number>();
  const errors: FieldErrors = {};
  for (const entry of zones) {
    const seen = first.get(entry.id);
    if (seen === undefined) first.set(entry.id, entry.index);
    else
      errors[pathOf(entry.index)] = [
        `The ${pathOf(entry.index)} field (zone ${entry.zone.identifier}) repeats the country and identifier at ${pathOf(seen)}.`,
      ];
  }
  return errors;
}
