import { OperatorRegistry, projectedFacts } from './store/operator-registry.js';
import { airspaceCellModel, cellClaimModel } from './store/airspace-ledger-model.js';
import { AirspaceLedgerStore } from './store/airspace-ledger-store.js';
import { InternalTokenVerifier } from '@dfc/kit/http';
import { OutboxRelay } from '@dfc/kit/outbox';
import { Lease, verifyIndexes } from '@dfc/kit/db';
import { dependencyReadiness, repeatEvery, type PeriodicJob, type Service, type ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import type { FlightRequestServiceConfig } from './config.js';
import { AuthorisationKeys } from './domain/authorisation/signing-keys.js';
import { DEFAULT_FLIGHT_AREA_LIMITS } from './domain/geometry/flight-area.js';
import { ZoneIndex } from './domain/zones/zone-index.js';
import {
  subscribeOperatorProjection,
  subscribeReexamination,
  subscribeReviewQueueProjection,
  subscribeZoneChanges,
  subscribeZoneRescreening,
} from './events/consumers.js';
import { reexamineWaiting } from './use-cases/deconfliction/reexamine-waiting.js';
import { createFlightRequestMetrics } from './metrics.js';
import { flightRequestModel } from './store/flight-request-model.js';
import { FlightRequestStore } from './store/flight-request-store.js';
import { idempotencyKeyModel, IdempotencyKeyStore } from './store/idempotency-key-store.js';
import { operatorProjectionModel } from './store/operator-model.js';
import { OperatorStore } from './store/operator-store.js';
import { reviewQueueModel } from './store/review-item-model.js';
import { ReviewQueueStore } from './store/review-queue-store.js';
import { zoneModel } from './store/zone-model.js';
import { ZoneStore } from './store/zone-store.js';
import { ZoneEpochStore } from './store/zone-epoch-store.js';
import { HgtTerrain } from './terrain/hgt-terrain.js';
import { datasetModel, ZoneDatasetStore } from './store/zone-dataset-store.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { applyOperatorChange } from './use-cases/apply-operator-change.js';
import { applyReviewItemsChange } from './use-cases/apply-review-items-change.js';
import { expirePendingRequests } from './use-cases/expire-pending-requests.js';
import { endClosedFlights } from './use-cases/end-closed-flights.js';
import { purgeFinalRequests } from './use-cases/purge-final-requests.js';
import { rescreenForZone } from './use-cases/rescreen-for-zone.js';
import { ZoneIndexSync } from './use-cases/zone-index-sync.js';

export interface FlightRequestService extends Service {
  deps: UseCaseDeps;
  zoneSync: ZoneIndexSync;
}

/** Wires the stores, the use cases and the background work of one replica. */
export function createFlightRequestService(resources: ServiceResources<FlightRequestServiceConfig>): FlightRequestService {
  const { config, connection, broker, log, registry } = resources;
  // OUTBOX_PUBLISH=false leaves every event in its outbox (a crash between write and publish, for tests).
  const relay = new OutboxRelay(broker, log, { registry, publishing: config.OUTBOX_PUBLISH });
  const requests = new FlightRequestStore(flightRequestModel(connection), relay);
  const airspace = new AirspaceLedgerStore(airspaceCellModel(connection), cellClaimModel(connection));
  const reviewQueue = new ReviewQueueStore(reviewQueueModel(connection));
  const operators = new OperatorStore(operatorProjectionModel(connection));
  const operatorFacts = config.OPERATOR_FACTS === 'registry' ? new OperatorRegistry(config.OPERATOR_SERVICE_URL) : projectedFacts(operators);
  const zones = new ZoneStore(zoneModel(connection), relay);
  const metrics = createFlightRequestMetrics(registry);
  const zoneIndex = new ZoneIndex();
  const zoneSync = new ZoneIndexSync(zones, new ZoneEpochStore(connection), zoneIndex, metrics.zonesLoaded, log);
  // Held from one round to the next by the replica that took it, lasting two rounds so its next one renews it in time.
  const expiryLease = new Lease(connection, 'expiry-sweep', { ttlMs: 2 * config.EXPIRY_SWEEP_INTERVAL_MS });
  const deps: UseCaseDeps = {
    requests,
    airspace,
    reviewQueue,
    operators,
    operatorFacts,
    idempotencyKeys: new IdempotencyKeyStore(idempotencyKeyModel(connection)),
    zones,
    datasets: new ZoneDatasetStore(datasetModel(connection)),
    zoneIndex,
    zoneSync,
    limits: {
      maxAltitudeM: config.MAX_ALTITUDE_M,
      maxDurationHours: config.MAX_DURATION_HOURS,
      maxStartAheadDays: config.MAX_START_AHEAD_DAYS,
      startGraceMinutes: config.START_GRACE_MINUTES,
      flightArea: { ...DEFAULT_FLIGHT_AREA_LIMITS, maxAreaM2: config.MAX_AREA_KM2 * 1_000_000 },
    },
    activationEndGraceMs: config.ACTIVATION_END_GRACE_MINUTES * 60_000,
    rules: {
      altitudeReviewAboveM: config.ALTITUDE_REVIEW_ABOVE_M,
      nationalAuthority: config.NATIONAL_AUTHORITY,
      vertical: new HgtTerrain(config.TERRAIN_DIR === '' ? null : config.TERRAIN_DIR),
    },
    metrics,
    authorisationKeys: AuthorisationKeys.fromPem(config.AUTHORISATION_SIGNING_KEY, config.AUTHORISATION_PREVIOUS_PUBLIC_KEYS),
    now: resources.now ?? (() => new Date()),
  };
  const app = buildApp({
    useCases: deps,
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: dependencyReadiness(resources),
  });

  const jobs: PeriodicJob[] = [];

  return {
    app,
    deps,
    zoneSync,
    async start() {
      await verifyIndexes(connection);
      // The local engine's list copies, in line with the requests before the first list (engine-gaps.ts): a
      // crash between a write and its copy is repaired here.
      await requests.reconcileListCopies();
      await zoneSync.reloadAll();
      await subscribeOperatorProjection(broker, (event) => applyOperatorChange(operators, event));
      await subscribeReviewQueueProjection(broker, (event) => applyReviewItemsChange(reviewQueue, event));
      await subscribeZoneChanges(broker, (zoneId) => zoneSync.changed(zoneId));
      // A new epoch before the rescreening's query: a submission screened against the map before it is either
      // stored before that query or finds the epoch moved once stored (docs/architecture.md, "Zone freshness").
      await subscribeZoneRescreening(broker, async (zoneId, action, requestId) => {
        await zoneSync.advance();
        return rescreenForZone(deps, zoneId, action, requestId);
      });
      await subscribeReexamination(broker, (uuid, requestId) => reexamineWaiting(deps, uuid, requestId));
      relay.start();
      // The requests still Pending when their window starts expire, and flights whose window closed end: one replica a round.
      jobs.push(
        repeatEvery(
          'expiry sweep',
          config.EXPIRY_SWEEP_INTERVAL_MS,
          () =>
            expiryLease.runIfHeld(async () => {
              await expirePendingRequests(deps);
              await endClosedFlights(deps);
            }),
          log,
        ),
      );
      if (config.FLIGHT_REQUEST_RETENTION_DAYS > 0) {
        const days = config.FLIGHT_REQUEST_RETENTION_DAYS;
        jobs.push(repeatEvery('retention purge', config.PURGE_SWEEP_INTERVAL_MS, () => purgeFinalRequests(deps, days), log));
      }
      // The safety net of the zone events: a replica that missed some (its broadcast queue lives with its connection) catches up.
      jobs.push(repeatEvery('zone reload', config.ZONE_RELOAD_INTERVAL_MS, () => zoneSync.reloadAll(), log));
    },
    async stop() {
      await Promise.all(jobs.splice(0).map((job) => job.stop()));
      // The next replica to try sweeps at once rather than when the lease lapses.
      await expiryLease.release().catch(() => undefined);
      await zoneSync.stop();
      await relay.stop();
    },
  };
}
