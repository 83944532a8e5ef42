import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Schema, type Connection } from 'mongoose';
import { connectMongo } from '@dfc/kit/db';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, uniqueName, unrecorded } from '@dfc/kit/testing';
import { parseCommandLog, type CommandLogEntry } from '../../src/testing/index-coverage.js';

describe('connectMongo with DB_COMMAND_LOG (recording queries for the index-coverage test)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'dfc-command-log-'));
  const file = join(directory, 'commands.ndjson');
  let connection: Connection;
  const recorded = (): CommandLogEntry[] => parseCommandLog(readFileSync(file, 'utf8'));

  before(async () => {
    const { mongoUrl } = await testDependencies();
    const before = process.env['DB_COMMAND_LOG'];
    process.env['DB_COMMAND_LOG'] = file;
    try {
      connection = await connectMongo(mongoUrl, uniqueName('kit_command_log'), createLogger('probe-service', 'silent'));
    } finally {
      if (before === undefined) delete process.env['DB_COMMAND_LOG'];
      else process.env['DB_COMMAND_LOG'] = before;
    }
    const schema = new Schema({ _id: String, owner: String, created_at: Date }, { collection: 'things', versionKey: false });
    schema.index({ owner: 1, created_at: -1, _id: -1 });
    const Things = connection.model('Thing', schema);
    await Things.create({ _id: 'a', owner: 'secret-owner', created_at: new Date() });
    for (let n = 0; n < 3; n++) await Things.find({ owner: 'secret-owner' }).sort({ created_at: -1, _id: -1 }).lean();
    await Things.findById('a').lean();
    await unrecorded(() => Things.countDocuments({}));
  });

  after(async () => {
    await connection?.dropDatabase();
    await connection?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('when a query shape repeats, then it is written once, under the service name, without its values', () => {
    const finds = recorded().filter((entry) => entry.kind === 'query' && entry.command === 'find');
    expect(finds).to.deep.equal([
      {
        kind: 'query',
        service: 'probe-service',
        db: connection.name,
        collection: 'things',
        command: 'find',
        filter: { owner: '?' },
        sort: { created_at: -1, _id: -1 },
      },
      { kind: 'query', service: 'probe-service', db: connection.name, collection: 'things', command: 'find', filter: { _id: '?' } },
    ]);
    expect(readFileSync(file, 'utf8')).to.not.include('secret-owner');
  });

  it('then the indexes the model declares are written once for the collection', () => {
    const indexes = recorded().filter((entry) => entry.kind === 'indexes');
    expect(indexes).to.deep.equal([
      { kind: 'indexes', db: connection.name, collection: 'things', indexes: [{ key: { owner: 1, created_at: -1, _id: -1 }, unique: false }] },
    ]);
  });

  it('when test code runs a query inside unrecorded(), then it is not written', () => {
    expect(recorded().some((entry) => entry.kind === 'query' && entry.command === 'aggregate')).to.equal(false);
  });
});
