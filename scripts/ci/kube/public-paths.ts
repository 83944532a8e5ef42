/**
 * Prints the public API's paths as JSON (an array of strings): every path of the OpenAPI document
 * the gateway serves. scripts/ci/kube/check-wiring.py checks that the Ingress routes each of them.
 *   npx tsx scripts/ci/kube/public-paths.ts > paths.json
 */
import { buildOpenApiDocument } from '@dfc/contracts';

process.stdout.write(`${JSON.stringify(Object.keys(buildOpenApiDocument().paths).sort(), null, 2)}\n`);
