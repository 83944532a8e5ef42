/**
 * Replays dead letters (docs/runbooks/DfcMessagesDeadLettered.md): moves messages from
 * `<exchange>.dead-letters` back to the exchange and routing key they were dead-lettered from
 * (their x-death header), each confirmed before it leaves the dead-letter queue.
 *
 *   AMQP_URL_FILE=replay-url npx tsx scripts/replay-dead-letters.ts --dry-run
 *   AMQP_URL_FILE=replay-url npx tsx scripts/replay-dead-letters.ts --limit 100 [--queue webhook-service.events]
 *
 *   --dry-run        list what would be replayed; nothing moves
 *   --limit N        look at no more than N messages (default 100)
 *   --queue NAME     only the messages dead-lettered from that queue
 *   --exchange NAME  the system's exchange (default AMQP_EXCHANGE, else dfc.events)
 *
 * The broker URL comes from AMQP_URL or AMQP_URL_FILE: the `dead-letter-replay` user's
 * (Secret dfc-amqp-dead-letter-replay, key url), which may read the dead-letter queue and publish
 * on dfc.events and nothing else. One line of JSON per message, then a summary line.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connect } from 'amqplib';
import { DEFAULT_EXCHANGE } from '@dfc/contracts';
import { replayDeadLetters } from '@dfc/kit/broker';

function brokerUrl(): string {
  const file = process.env['AMQP_URL_FILE'];
  const url = file ? readFileSync(file, 'utf8').trim() : process.env['AMQP_URL'];
  if (!url) throw new Error('set AMQP_URL or AMQP_URL_FILE (the dead-letter-replay user’s URL)');
  return url;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'dry-run': { type: 'boolean', default: false },
      limit: { type: 'string', default: '100' },
      queue: { type: 'string' },
      exchange: { type: 'string', default: process.env['AMQP_EXCHANGE'] || DEFAULT_EXCHANGE },
    },
    strict: true,
  });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`--limit must be a whole number ≥ 1, not ${values.limit}`);
  const connection = await connect(brokerUrl());
  try {
    const result = await replayDeadLetters(connection, {
      exchange: values.exchange,
      limit,
      dryRun: values['dry-run'],
      ...(values.queue ? { fromQueue: values.queue } : {}),
    });
    for (const message of result.messages) console.log(JSON.stringify(message));
    console.log(JSON.stringify({ dry_run: values['dry-run'], replayed: result.replayed, left: result.left, remaining: result.remaining }));
  } finally {
    await connection.close().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(`replay-dead-letters: ${(error as Error).message}`);
  process.exit(1);
});
