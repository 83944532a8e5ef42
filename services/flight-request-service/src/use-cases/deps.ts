import type { AuthorisationKeys } from '../domain/authorisation/signing-keys.js';
import type { ZoneIndex } from '../domain/zones/zone-index.js';
import type { ScreeningRules } from '../domain/screening/screen.js';
import type { SubmissionLimits } from '../domain/submission/limits.js';
import type { FlightRequestMetrics } from '../metrics.js';
import type { FlightRequestStore } from '../store/flight-request-store.js';
import type { OutboxModel } from '../store/outbox-model.js';
import type { OperatorStore } from '../store/operator-store.js';
import type { ZoneStore } from '../store/zone-store.js';
import type { ZoneIndexSync } from './zone-index-sync.js';

/** Publishes a document's outbox right after the write (the kit's OutboxRelay); absent when publishing is off. */
export interface OutboxNotifier {
  notify(model: OutboxModel, id: unknown): Promise<void>;
}

/** Everything the use cases work with; built once by the app. */
export interface UseCaseDeps {
  requests: FlightRequestStore;
  operators: OperatorStore;
  zones: ZoneStore;
  zoneIndex: ZoneIndex;
  /** Keeps zoneIndex equal to the zones collection (events, periodic reload). */
  zoneSync: ZoneIndexSync;
  outbox: OutboxNotifier | null;
  limits: SubmissionLimits;
  rules: ScreeningRules;
  metrics: FlightRequestMetrics;
  /** Signs authorisations of Approved requests and publishes the JWKS. */
  authorisationKeys: AuthorisationKeys;
  now: () => Date;
}

/** Fast path of the outbox: publish now, without making the client wait for the broker. */
export function publishSoon(deps: UseCaseDeps, model: OutboxModel, id: unknown): void {
  if (deps.outbox) void deps.outbox.notify(model, id);
}
