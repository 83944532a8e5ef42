/**
 * The broker users of the data-layer component (k8s/components/data-layer/rabbitmq-users.yaml),
 * one line each: <Secret name> TAB <configure> TAB <write> TAB <read>. scripts/ci/workloads.sh
 * creates them in the RabbitMQ stand-in, so the production overlay runs with per-service users
 * holding exactly the manifest's permissions.
 */
import { brokerPermissions } from '../../../e2e/src/broker-users.js';

for (const { secret, configure, write, read } of brokerPermissions().values()) {
  console.log([secret, configure, write, read].join('\t'));
}
