/**
 * Verifies a flight authorisation as an outside party would, with only the
 * gateway's public keys, and prints its claims and whether it still stands:
 *
 *   GATEWAY_URL=http://127.0.0.1:8080 npx tsx examples/webhook-receiver/verify-authorisation.ts <token>
 */
import { checkAuthorisation } from './flight-status.js';

const token = process.argv[2];
if (!token) {
  process.stderr.write('usage: verify-authorisation.ts <token>   (GET /api/v1/flight-requests/{uuid}/authorisation gives it)\n');
  process.exit(1);
}
const checked = await checkAuthorisation(token, process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:8080');
console.log(JSON.stringify(checked, null, 2));
