import { connect } from 'amqplib';
import { deadLetterExchange, deadLetterQueue } from '../broker/broker.js';

/**
 * Removes what a test run declared on the broker, as tests drop their
 * databases: its exchange and dead-letter exchange, its dead-letter queue and
 * the durable queues named (e.g. `broker.durableQueues()`). Durable queues
 * outlive their consumers, so without this every run leaves them behind.
 * Deleting what is already gone is not an error.
 */
export async function removeBrokerTopology(amqpUrl: string, exchange: string, durableQueues: string[] = []): Promise<void> {
  const connection = await connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of [...durableQueues, deadLetterQueue(exchange)]) await channel.deleteQueue(queue);
    for (const name of [exchange, deadLetterExchange(exchange)]) await channel.deleteExchange(name);
  } finally {
    await connection.close().catch(() => undefined);
  }
}
