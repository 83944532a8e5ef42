import { MongoClient } from 'mongodb';
import { testDependencies, uniqueName } from '@dfc/kit/testing';
import { SharedLimitStore } from '../../src/store/limit-store.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

export interface LimitReplicaOptions extends Omit<TestGatewayOptions, 'limitStore'> {
  /** Where the replica's limits are counted; default: the suite's own database on the test server. */
  mongoUrl?: string;
  /** The connections of the replica's limit store; default: the driver's. */
  maxPoolSize?: number;
}

/**
 * Gateway replicas that count their limits in one database of the suite's own, each through a
 * store of its own as a replica process holds it. Call it inside a `describe`: it adds the hooks
 * that close every replica after each test and drop the database after the last.
 */
export function limitSharingReplicas(databasePrefix: string): (options?: LimitReplicaOptions) => Promise<TestGateway> {
  let database: string;
  let mongoUrl: string;
  const stores: SharedLimitStore[] = [];
  const gateways: TestGateway[] = [];

  before(async () => {
    mongoUrl = (await testDependencies()).mongoUrl;
    database = uniqueName(databasePrefix);
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.closeAll()));
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  after(async () => {
    const client = new MongoClient(mongoUrl);
    await client.db(database).dropDatabase();
    await client.close();
  });

  return async ({ mongoUrl: url, maxPoolSize, ...options } = {}) => {
    const store = new SharedLimitStore(url ?? mongoUrl, database, maxPoolSize);
    stores.push(store);
    const gateway = await startTestGateway({ ...options, limitStore: store });
    gateways.push(gateway);
    return gateway;
  };
}
