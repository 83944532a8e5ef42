import type { AuthorisationKeys } from '../domain/authorisation/signing-keys.js';
import type { ZoneIndex } from '../domain/zones/zone-index.js';
import type { ScreeningRules } from '../domain/screening/screen.js';
import type { SubmissionLimits } from '../domain/submission/limits.js';
import type { FlightRequestMetrics } from '../metrics.js';
import type { AirspaceLedgerStore } from '../store/airspace-ledger-store.js';
import type { FlightRequestStore } from '../store/flight-request-store.js';
import type { OperatorFacts } from '../store/operator-registry.js';
import type { IdempotencyKeyStore } from '../store/idempotency-key-store.js';
import type { OperatorStore } from '../store/operator-store.js';
import type { ReviewQueueStore } from '../store/review-queue-store.js';
import type { ZoneDatasetStore } from '../store/zone-dataset-store.js';
import type { ZoneStore } from '../store/zone-store.js';
import type { ZoneIndexSync } from './zone-index-sync.js';

/** Everything the use cases work with; built once by the service. */
export interface UseCaseDeps {
  requests: FlightRequestStore;
  /** The reservation ledger deconfliction claims airspace on. */
  airspace: AirspaceLedgerStore;
  reviewQueue: ReviewQueueStore;
  operators: OperatorStore;
  /** The operator's current facts, read at decision time. */
  operatorFacts: OperatorFacts;
  /** Which request each operator's Idempotency-Key names. */
  idempotencyKeys: IdempotencyKeyStore;
  zones: ZoneStore;
  /** The last imported issue of each published dataset. */
  datasets: ZoneDatasetStore;
  zoneIndex: ZoneIndex;
  /** Keeps zoneIndex equal to the zones collection (events, periodic reload). */
  zoneSync: ZoneIndexSync;
  limits: SubmissionLimits;
  /** How long an Activated flight may outlast its window before the system ends it. */
  activationEndGraceMs: number;
  rules: ScreeningRules;
  metrics: FlightRequestMetrics;
  /** Signs authorisations of Approved requests and publishes the JWKS. */
  authorisationKeys: AuthorisationKeys;
  now: () => Date;
}
