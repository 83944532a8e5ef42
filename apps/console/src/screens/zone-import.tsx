import { useMemo, useState } from 'preact/hooks';
import type { ZoneImportResult } from '@dfc/contracts';
import { ApiError, type Api } from '../api';
import { MapView, type MapLayer } from '../map/map-view';
import { ErrorBanner } from '../ui/components';

interface ImportFeature {
  properties?: { name?: unknown; id?: unknown };
  geometry?: unknown;
}

/** A feature's name as written, or what else it holds as JSON: the import refuses it, and the list says why. */
function nameOf(feature: ImportFeature, fallback: string): string {
  const name = feature.properties?.name;
  if (name === undefined || name === null) return fallback;
  return typeof name === 'string' ? name : JSON.stringify(name);
}

function featuresOf(text: string): ImportFeature[] {
  try {
    const parsed = JSON.parse(text) as { features?: unknown };
    return Array.isArray(parsed.features) ? (parsed.features as ImportFeature[]) : [];
  } catch {
    return [];
  }
}

/** `features.3.properties.name` → 3: the API names each failing feature by its position. */
function errorsByFeature(error: unknown): { byFeature: Map<number, string[]>; other: string[] } {
  const byFeature = new Map<number, string[]>();
  const other: string[] = [];
  if (!(error instanceof ApiError)) return { byFeature, other };
  for (const [field, messages] of Object.entries(error.fields)) {
    const position = /^features\.(\d+)(\.|$)/.exec(field);
    if (position === null) {
      other.push(...messages.map((message) => `${field}: ${message}`));
      continue;
    }
    const index = Number(position[1]);
    byFeature.set(index, [...(byFeature.get(index) ?? []), ...messages]);
  }
  return { byFeature, other };
}

/**
 * Import of a FeatureCollection (pasted or read from a file). The API takes all
 * or nothing; when it refuses, each feature is listed with its own errors
 * beside it, and failing features are drawn apart on the map.
 */
export function ZoneImport({ api }: { api: Api }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<ZoneImportResult | null>(null);
  const [busy, setBusy] = useState(false);
  const features = useMemo(() => featuresOf(text), [text]);
  const { byFeature, other } = errorsByFeature(error);
  const layers = useMemo<MapLayer[]>(
    () =>
      features
        .filter((feature) => typeof feature.geometry === 'object' && feature.geometry !== null)
        .map((feature, index) => ({
          id: `feature-${index}`,
          kind: byFeature.has(index) ? 'refused' : 'zone',
          data: feature.geometry as GeoJSON.GeoJsonObject,
          label: `Feature ${index + 1}: ${nameOf(feature, '')}`,
        })),
    [features, error],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ApiError(422, 'The file is not valid JSON.', { body: ['Paste or choose a GeoJSON FeatureCollection.'] });
      }
      setResult((await api.post<{ data: ZoneImportResult }>('/api/zones/import', body)).data);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const readFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (file) setText(await file.text());
  };
  return (
    <section>
      <h1>Import zones</h1>
      <div class="split">
        <form onSubmit={(event) => void submit(event)}>
          <div class="field">
            <label for="import-file">GeoJSON file</label>
            <input
              id="import-file"
              type="file"
              accept=".json,.geojson,application/json,application/geo+json"
              onChange={(e) => void readFile(e.currentTarget)}
            />
          </div>
          <div class="field">
            <label for="import-text">FeatureCollection (each feature's properties hold the zone's fields)</label>
            <textarea id="import-text" rows={10} spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </div>
          <button type="submit" disabled={busy || text.trim() === ''}>
            Import
          </button>
          <ErrorBanner error={error} />
          {other.length ? (
            <ul class="field-errors">
              {other.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          ) : null}
          {result ? (
            <p role="status" class="success">
              Imported {result.total} zone(s): {result.created} new, {result.updated} replaced.
            </p>
          ) : null}
        </form>
        <MapView label="The features of the import" layers={layers} />
      </div>
      {features.length ? (
        <ol class="import-features" aria-label="Features of the import">
          {features.map((feature, index) => {
            const messages = byFeature.get(index) ?? [];
            return (
              <li key={index} class={messages.length ? 'invalid' : ''}>
                <span>
                  Feature {index + 1}: {nameOf(feature, '(no name)')}
                </span>
                {messages.length ? (
                  <ul class="field-errors">
                    {messages.map((message) => (
                      <li key={message}>{message}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
