import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

/**
 * The broker's users as the data-layer component declares them
 * (k8s/components/data-layer/rabbitmq-users.yaml: User, Permission and Policy
 * custom resources of the Messaging Topology Operator), the one source of
 * truth the permission tests and the workloads run create their users from.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BROKER_USERS_MANIFEST = resolve(REPO_ROOT, 'k8s/components/data-layer/rabbitmq-users.yaml');
const STACK = resolve(REPO_ROOT, 'scripts/stack.sh');

export interface BrokerPermission {
  /** The Secret the user's credentials come from, dfc-amqp-<who>, which the service mounts. */
  secret: string;
  configure: string;
  write: string;
  read: string;
}

export interface BrokerPolicy {
  name: string;
  pattern: string;
  applyTo: string;
  priority: number;
  definition: Record<string, string | number>;
}

interface Resource {
  kind: string;
  metadata: { name: string };
  /** The fields read here, of whichever kind the resource is (User, Permission, Policy). */
  spec: Partial<Omit<BrokerPolicy, 'name'>> & {
    name?: string;
    importCredentialsSecret?: { name: string };
    userReference?: { name: string };
    permissions?: Record<string, string>;
  };
}

function resources(): Resource[] {
  return parseAllDocuments(readFileSync(BROKER_USERS_MANIFEST, 'utf8')).map((document) => document.toJS() as Resource);
}

/** Every User with its Permission, keyed by the credentials Secret (dfc-amqp-gateway, …). */
export function brokerPermissions(): Map<string, BrokerPermission> {
  const all = resources();
  const users = new Map(all.filter((r) => r.kind === 'User').map((r) => [r.metadata.name, r.spec.importCredentialsSecret?.name as string]));
  const permissions = new Map<string, BrokerPermission>();
  for (const permission of all.filter((r) => r.kind === 'Permission')) {
    const secret = users.get(permission.spec.userReference?.name ?? '');
    if (!secret) throw new Error(`Permission ${permission.metadata.name} names no User of ${BROKER_USERS_MANIFEST}`);
    const { configure, write, read } = permission.spec.permissions as Record<string, string>;
    permissions.set(secret, { secret, configure: configure!, write: write!, read: read! });
  }
  return permissions;
}

export function brokerPolicy(name: string): BrokerPolicy {
  const policy = resources().find((r) => r.kind === 'Policy' && r.spec.name === name);
  if (!policy) throw new Error(`no Policy ${name} in ${BROKER_USERS_MANIFEST}`);
  const { pattern, applyTo, priority, definition } = policy.spec as Omit<BrokerPolicy, 'name'>;
  return { name, pattern, applyTo, priority, definition };
}

/** The local node's rabbitmqctl (scripts/stack.sh), as the administrator. */
export async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [STACK, 'rabbitmqctl', '-q', ...args], { timeout: 60_000 });
  return stdout;
}

export interface BrokerUsersRun {
  vhost: string;
  /** amqp://<user>:<password>@host/<vhost> for the user of that Secret. */
  url(secret: string): string;
  /** The administrator's URL on the run's vhost. */
  adminUrl: string;
  remove(): Promise<void>;
}

/**
 * A vhost of its own with one user per Permission of the manifest, holding
 * exactly its regexes (the manifest's vhost "/" becomes the run's), so the
 * production names (dfc.events, …) can be used without meeting other runs.
 */
export async function createBrokerUsers(amqpUrl: string): Promise<BrokerUsersRun> {
  const run = randomBytes(4).toString('hex');
  const vhost = `dfc-permissions-${run}`;
  const permissions = [...brokerPermissions().values()];
  const credentials = new Map(permissions.map((p) => [p.secret, { username: `${p.secret}-${run}`, password: randomBytes(12).toString('hex') }]));
  const base = new URL(amqpUrl);
  await rabbitmqctl('add_vhost', vhost);
  // The test's own administrator (the URL's user) may do anything there, to look and set up.
  await rabbitmqctl('set_permissions', '-p', vhost, decodeURIComponent(base.username) || 'guest', '.*', '.*', '.*');
  for (const permission of permissions) {
    const { username, password } = credentials.get(permission.secret)!;
    await rabbitmqctl('add_user', username, password);
    await rabbitmqctl('set_permissions', '-p', vhost, username, permission.configure, permission.write, permission.read);
  }
  const at = (username: string, password: string) => {
    const url = new URL(base.href);
    url.username = encodeURIComponent(username);
    url.password = encodeURIComponent(password);
    url.pathname = `/${encodeURIComponent(vhost)}`;
    return url.href;
  };
  return {
    vhost,
    adminUrl: at(decodeURIComponent(base.username) || 'guest', decodeURIComponent(base.password) || 'guest'),
    url(secret) {
      const user = credentials.get(secret);
      if (!user) throw new Error(`no broker user for the Secret ${secret} in ${BROKER_USERS_MANIFEST}`);
      return at(user.username, user.password);
    },
    async remove() {
      await rabbitmqctl('delete_vhost', vhost).catch(() => undefined);
      for (const { username } of credentials.values()) await rabbitmqctl('delete_user', username).catch(() => undefined);
    },
  };
}
