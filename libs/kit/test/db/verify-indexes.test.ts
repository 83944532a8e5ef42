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
