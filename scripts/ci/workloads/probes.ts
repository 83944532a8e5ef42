/**
 * Kubernetes probe semantics, polled from the host at the pod's IP on the podman network (the image
 * has no curl, and the kubelet probes from outside the container too): initialDelaySeconds, then one
 * attempt every periodSeconds with timeoutSeconds; successThreshold consecutive successes pass,
 * failureThreshold consecutive failures fail. HTTP 200-399 is a success.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Probe } from './spec.js';

export interface ProbeTarget {
  /** The pod IP. */
  host: string;
  /** The probe's port, resolved from its name. */
  port: number;
}

/** One attempt: undefined on success, otherwise what went wrong. */
export function probeOnce(probe: Probe, target: ProbeTarget): Promise<string | undefined> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.tcpSocket) return tcpAttempt(probe.tcpSocket.host ?? target.host, target.port, timeoutMs);
  const get = probe.httpGet!;
  const https = (get.scheme ?? 'HTTP').toUpperCase() === 'HTTPS';
  return new Promise((resolve) => {
    const headers = Object.fromEntries((get.httpHeaders ?? []).map((header) => [header.name, header.value]));
    const url = `${https ? 'https' : 'http'}://${get.host ?? target.host}:${target.port}${get.path ?? '/'}`;
    const options = { method: 'GET', headers: { 'User-Agent': 'kube-probe/1.31', ...headers }, timeout: timeoutMs, rejectUnauthorized: false };
    const call = (https ? httpsRequest : httpRequest)(url, options, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(status >= 200 && status < 400 ? undefined : `GET ${url}: HTTP ${status}`);
    });
    call.on('timeout', () => call.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    call.on('error', (error) => resolve(`GET ${url}: ${error.message}`));
    call.end();
  });
}

function tcpAttempt(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs }, () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('timeout', () => socket.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    socket.on('error', (error) => resolve(`TCP ${host}:${port}: ${error.message}`));
  });
}

export type ProbeOutcome = { passed: true; attempts: number } | { passed: false; attempts: number; detail: string };

/**
 * Polls until the probe passes (successThreshold in a row) or, when `failureIsFinal`, fails
 * (failureThreshold in a row); a readiness probe's failures are not final, the caller's signal
 * ends the wait (it rejects then). `onAttempt` hears every attempt (undefined: a success).
 */
export async function pollUntilDecided(
  probe: Probe,
  target: () => Promise<ProbeTarget>,
  options: { failureIsFinal: boolean; signal: AbortSignal; onAttempt?: (failure: string | undefined) => void },
): Promise<ProbeOutcome> {
  const successThreshold = probe.successThreshold ?? 1;
  const failureThreshold = probe.failureThreshold ?? 3;
  await pause(probe.initialDelaySeconds ?? 0, options.signal);
  let successes = 0;
  let failures = 0;
  for (let attempts = 1; ; attempts++) {
    const detail = await target().then(
      (resolved) => probeOnce(probe, resolved),
      (error: Error) => `no pod IP: ${error.message}`,
    );
    options.onAttempt?.(detail);
    if (detail === undefined) {
      successes++;
      failures = 0;
      if (successes >= successThreshold) return { passed: true, attempts };
    } else {
      failures++;
      successes = 0;
      if (options.failureIsFinal && failures >= failureThreshold) {
        return { passed: false, attempts, detail: `${failures} failures in a row (failureThreshold ${failureThreshold}), last: ${detail}` };
      }
    }
    await pause(probe.periodSeconds ?? 10, options.signal);
  }
}

/** Polls a liveness probe until the signal ends (undefined) or it fails (what failed). */
export async function watchLiveness(
  probe: Probe,
  target: () => Promise<ProbeTarget>,
  signal: AbortSignal,
  onAttempt: (failure: string | undefined) => void,
): Promise<string | undefined> {
  try {
    const outcome = await pollUntilDecided({ ...probe, successThreshold: Number.POSITIVE_INFINITY }, target, {
      failureIsFinal: true,
      signal,
      onAttempt,
    });
    return outcome.passed ? undefined : outcome.detail;
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}

async function pause(seconds: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  if (seconds > 0) await sleep(seconds * 1000, undefined, { signal });
}
