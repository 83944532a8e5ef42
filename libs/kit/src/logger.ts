import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs. Anything that may carry a secret is redacted by path, so a careless
 * `log.info({ body })` can never write a password, key or signing secret.
 */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'key',
  '*.key',
  'secret',
  '*.secret',
  '*.secrets',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
];

export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}
