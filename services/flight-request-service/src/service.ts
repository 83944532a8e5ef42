import { InternalTokenVerifier } from '@dfc/kit/http';
import { mongoReady, syncIndexes } from '@dfc/kit/db';
import { OutboxRelay } from '@dfc/kit/broker';
import type { Service, ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import type { FlightRequestServiceConfig } from './config.js';
import { AuthorisationKeys } from './domain/authorisation/signing-keys.js';
import { DEFAULT_FLIGHT_AREA_LIMITS } from './domain/geometry/flight-area.js';
import { ZoneIndex } from './domain/zones/zone-index.js';
import { subscribeOperatorProjection, subscribeZoneChanges } from './events/consumers.js';
import { createFlightRequestMetrics } from './metrics.js';
import { flightRequestModel, reviewItemPointerModel } from './store/flight-request-model.js';
import { FlightRequestStore } from './store/flight-request-store.js';
import { operatorProjectionModel } from './store/operator-model.js';
import { OperatorStore } from './store/operator-store.js';
import { zoneChangeModel, zoneModel } from './store/zone-model.js';
import { changeModel } from './store/change-model.js';
import { ZoneStore } from './store/zone-store.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { expirePendingRequests } from './use-cases/expire-pending-requests.js';
import { ZoneIndexSync } from './use-cases/zone-index-sync.js';

/** Changes recorded but not applied this long are taken to be orphaned by a crash and applied by the repair. */
const CHANGE_REPAIR_GRACE_MS = 5000;
const CHANGE_REPAIR_INTERVAL_MS = 5000;
/**
 * Change records are kept an hour after they are applied and published (long
 * past any writer still deciding on the version they name), then dropped, so
 * the relay's sweep never reads an ever-growing collection.
 */
const CHANGE_RETENTION_MS = 3_600_000;
const CHANGE_CLEANUP_INTERVAL_MS = 60_000;

async function forgetDoneChanges(requests: FlightRequestStore, zones: ZoneStore, before: Date): Promise<void> {
  await requests.forgetDoneChanges(before);
  await zones.forgetDoneChanges(before);
}

export interface FlightRequestService extends Service {
  deps: UseCaseDeps;
  zoneSync: ZoneIndexSync;
}

/** Wires the stores, the use cases and the background work of one replica. */
export function createFlightRequestService(resources: ServiceResources<FlightRequestServiceConfig>): FlightRequestService {
  const { config, connection, broker, log, registry } = resources;
  const requests = new FlightRequestStore(flightRequestModel(connection), changeModel(connection), reviewItemPointerModel(connection));
  const operators = new OperatorStore(operatorProjectionModel(connection));
  const zones = new ZoneStore(zoneModel(connection), zoneChangeModel(connection));
  const relay = new OutboxRelay(broker, log, { registry });
  relay.watch(requests.outboxModel);
  relay.watch(zones.outboxModel);
  const metrics = createFlightRequestMetrics(registry);
  const zoneIndex = new ZoneIndex();
  const zoneSync = new ZoneIndexSync(zones, zoneIndex, metrics.zonesLoaded, log);
  const deps: UseCaseDeps = {
    requests,
    operators,
    zones,
    zoneIndex,
    zoneSync,
    outbox: config.OUTBOX_PUBLISH ? relay : null,
    limits: {
      maxAltitudeM: config.MAX_ALTITUDE_M,
      maxDurationHours: config.MAX_DURATION_HOURS,
      maxStartAheadDays: config.MAX_START_AHEAD_DAYS,
      startGraceMinutes: config.START_GRACE_MINUTES,
      flightArea: { ...DEFAULT_FLIGHT_AREA_LIMITS, maxAreaM2: config.MAX_AREA_KM2 * 1_000_000 },
    },
    rules: { altitudeReviewAboveM: config.ALTITUDE_REVIEW_ABOVE_M, nationalAuthority: config.NATIONAL_AUTHORITY },
    metrics,
    authorisationKeys: AuthorisationKeys.fromPem(config.AUTHORISATION_SIGNING_KEY, config.AUTHORISATION_PREVIOUS_PUBLIC_KEYS),
    now: resources.now ?? (() => new Date()),
  };
  const app = buildApp({
    useCases: deps,
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: [
      { name: 'mongo', ready: () => mongoReady(connection) },
      { name: 'broker', ready: () => broker.isConnected() },
    ],
  });

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, work: () => Promise<unknown>, what: string) => {
    const timer = setInterval(() => {
      work().catch((error: Error) => log.warn({ err: error.message }, `${what} failed`));
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    app,
    deps,
    zoneSync,
    async start() {
      await syncIndexes(connection);
      await requests.applyStaleChanges(new Date(Date.now() - CHANGE_REPAIR_GRACE_MS));
      await zoneSync.reloadAll();
      await subscribeOperatorProjection(broker, operators);
      await subscribeZoneChanges(broker, (zoneId) => (zoneId === null ? void zoneSync.reloadAll() : zoneSync.changed(zoneId)));
      if (config.OUTBOX_PUBLISH) relay.start();
      every(config.EXPIRY_SWEEP_INTERVAL_MS, () => expirePendingRequests(deps), 'expiry sweep');
      every(CHANGE_REPAIR_INTERVAL_MS, () => requests.applyStaleChanges(new Date(Date.now() - CHANGE_REPAIR_GRACE_MS)), 'change repair');
      every(CHANGE_CLEANUP_INTERVAL_MS, () => forgetDoneChanges(requests, zones, new Date(Date.now() - CHANGE_RETENTION_MS)), 'change cleanup');
      every(config.ZONE_RELOAD_INTERVAL_MS, () => zoneSync.reloadAll(), 'zone reload');
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await zoneSync.stop();
      await relay.stop();
    },
  };
}
