import { expect } from 'chai';
import { Schema, type Connection } from 'mongoose';
import { connectMongo, syncIndexes, verifyIndexes } from '@dfc/kit/db';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, uniqueName } from '@dfc/kit/testing';

describe('verifyIndexes (real database): services check, the migration builds', () => {
  let connection: Connection;

  beforeEach(async () => {
    const { mongoUrl } = await testDependencies();
    connection = await connectMongo(mongoUrl, uniqueName('kit_indexes'), createLogger('test', 'silent'));
    const schema = new Schema({ _id: String, email: String, created_at: Date }, { collection: 'accounts', versionKey: false });
    schema.index({ email: 1 }, { unique: true });
    schema.index({ created_at: -1 });
    connection.model('Account', schema);
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('when the migration has not run, then it refuses, naming the collection and each missing index', async () => {
    const refusal = await verifyIndexes(connection).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refusal?.message).to.match(/^indexes missing \(run the index migration, npm run migrate\)/);
    expect(refusal?.message).to.include('accounts {"email":1}').and.include('accounts {"created_at":-1}');
  });

  it('when the migration has run (syncIndexes), then it passes', async () => {
    await syncIndexes(connection);
    await verifyIndexes(connection);
  });

  it('when one index was dropped after the migration, then it refuses, naming that one only', async () => {
    await syncIndexes(connection);
    await connection.collection('accounts').dropIndex('created_at_-1');
    const refusal = await verifyIndexes(connection).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refusal?.message).to.include('accounts {"created_at":-1}').and.not.include('email');
  });
});

describe('syncIndexes and verifyIndexes with a TTL index (real database)', () => {
  let connection: Connection;

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  async function withTtl(seconds: number, database: string): Promise<Connection> {
    const { mongoUrl } = await testDependencies();
    const opened = await connectMongo(mongoUrl, database, createLogger('test', 'silent'));
    const schema = new Schema({ _id: String, at: Date }, { collection: 'attempts', versionKey: false });
    schema.index({ at: 1 }, { expireAfterSeconds: seconds });
    opened.model('Attempt', schema);
    return opened;
  }

  it('when a model declares a TTL index, then the migration builds it (with its seconds where the engine has TTL) and the service accepts it', async () => {
    connection = await withTtl(3600, uniqueName('kit_ttl'));
    await syncIndexes(connection);
    await verifyIndexes(connection);
    const built = (await connection.collection('attempts').listIndexes().toArray()).find((index) => JSON.stringify(index['key']) === '{"at":1}');
    expect(built).to.not.equal(undefined);
    const local = 'ferretdbVersion' in (await connection.db!.admin().command({ buildInfo: 1 }));
    if (!local) expect(built!['expireAfterSeconds']).to.equal(3600);
  });

  it('when the retention changes and the migration runs again, then the index takes the new seconds and the service accepts it', async () => {
    const database = uniqueName('kit_ttl');
    connection = await withTtl(3600, database);
    await syncIndexes(connection);
    await connection.close();
    connection = await withTtl(7200, database);
    await syncIndexes(connection);
    await verifyIndexes(connection);
    const built = (await connection.collection('attempts').listIndexes().toArray()).find((index) => JSON.stringify(index['key']) === '{"at":1}');
    const local = 'ferretdbVersion' in (await connection.db!.admin().command({ buildInfo: 1 }));
    if (!local) expect(built!['expireAfterSeconds']).to.equal(7200);
  });
});
