import { Counter, type Registry } from 'prom-client';

/** Domain counters, next to the kit's HTTP histogram and outbox metrics. */
export class OperatorMetrics {
  readonly registrations: Counter;
  readonly keysIssued: Counter<'role'>;
  readonly keysRevoked: Counter<'role'>;
  readonly keyVerifications: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.registrations = new Counter({
      name: 'operator_registrations_total',
      help: 'Operators registered',
      registers: [registry],
    });
    this.keysIssued = new Counter({
      name: 'api_keys_issued_total',
      help: 'API keys issued, by role',
      labelNames: ['role'] as const,
      registers: [registry],
    });
    this.keysRevoked = new Counter({
      name: 'api_keys_revoked_total',
      help: 'API keys revoked, by role',
      labelNames: ['role'] as const,
      registers: [registry],
    });
    this.keyVerifications = new Counter({
      name: 'api_key_verifications_total',
      help: 'API key verifications for the gateway, by outcome (valid, malformed, unknown, revoked)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
  }
}
