/**
 * Loads the sample geo-zones through the gateway:
 *   GATEWAY_URL=http://127.0.0.1:8080 ADMIN_API_KEY=dfc_... npx tsx services/flight-request-service/scripts/load-sample-zones.ts [file]
 * Zones carry ids, so running it again updates them rather than adding copies.
 * Prints how many zones were loaded; exits non-zero on any failure.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DEFAULT_FILE = fileURLToPath(new URL('../data/sample-zones.ed318.json', import.meta.url));

async function main(): Promise<void> {
  const gateway = (process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const adminKey = process.env['ADMIN_API_KEY'];
  if (!adminKey) throw new Error('ADMIN_API_KEY is not set: the import needs an admin key.');

  const file = process.argv[2] ?? DEFAULT_FILE;
  const body = await readFile(file, 'utf8');
  const sent = (JSON.parse(body) as { features?: unknown[] }).features?.length ?? 0;

  const response = await fetch(`${gateway}/api/zones/import`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-API-Key': adminKey },
    body,
  });
  const answer = await response.text();
  if (!response.ok) throw new Error(`The import was refused: HTTP ${response.status} ${answer.slice(0, 2000)}`);
  console.log(`Loaded ${loadedCount(answer) ?? sent} zones from ${file} into ${gateway}.`);
}

/** The count the service reports, whatever its field is called; null when the answer says nothing countable. */
function loadedCount(answer: string): number | null {
  try {
    const data = (JSON.parse(answer) as { data?: unknown }).data;
    if (Array.isArray(data)) return data.length;
    if (data && typeof data === 'object') {
      for (const key of ['total', 'count', 'imported']) {
        const value = (data as Record<string, unknown>)[key];
        if (typeof value === 'number') return value;
      }
    }
  } catch {
    // Not JSON: fall back to the number of features sent.
  }
  return null;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
