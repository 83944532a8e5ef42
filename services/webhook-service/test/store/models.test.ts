import { expect } from 'chai';
import mongoose from 'mongoose';
import { retentionOf } from '../../src/config.js';
import { registerModels } from '../../src/store/models.js';
import { cleanUp, freshNames, startService } from '../support.js';

describe('index migration models (npm run migrate)', () => {
  it('when the service runs, then the migration registers exactly the models it uses, so the Job builds all their indexes', async () => {
    const names = freshNames();
    const running = await startService(names);
    try {
      const migration = mongoose.createConnection();
      registerModels(migration, retentionOf(running.config));
      expect(Object.keys(migration.models).sort()).to.deep.equal(Object.keys(running.connection.models).sort());
    } finally {
      await running.close();
      await cleanUp(names);
    }
  });
});
