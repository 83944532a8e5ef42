import { expect } from 'chai';
import mongoose from 'mongoose';
import { registerModels } from '../../src/store/models.js';
import { startTestService } from '../support/test-service.js';

describe('index migration models (npm run migrate)', () => {
  it('when the service runs, then the migration registers exactly the models it uses, so the Job builds all their indexes', async () => {
    const running = await startTestService();
    try {
      const migration = mongoose.createConnection();
      registerModels(migration);
      expect(Object.keys(migration.models).sort()).to.deep.equal(Object.keys(running.connection.models).sort());
    } finally {
      await running.close();
    }
  });
});
