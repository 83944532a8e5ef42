/**
 * The dump and restore the drill runs (scripts/ci/backup-drill/drill.ts), one database at a time:
 *
 * - mongodump / mongorestore (the MongoDB Database Tools) when MONGODUMP and MONGORESTORE name
 *   them, with the flags of the CronJob (k8s/components/data-layer/mongodb-backup.yaml) and of the
 *   restore in docs/operations.md: one gzipped archive per database, restored with --drop and
 *   --nsInclude=<db>.*; no --oplog (FerretDB keeps no oplog, and a per-database dump cannot take
 *   one) and no --preserveUUID (FerretDB cannot create a collection with a given UUID).
 * - otherwise a stand-in written against the Node.js driver, for machines where the tools cannot
 *   be installed (the Go module proxy does not serve github.com/mongodb/mongo-tools, and Debian
 *   bookworm has no mongo-tools package). It writes mongodump's directory layout
 *   (<out>/<db>/<collection>.bson: the documents as the server returned them, concatenated BSON;
 *   <collection>.metadata.json: options and indexes) and restores it as mongorestore --drop does:
 *   each collection dropped, created with its options, its documents inserted unchanged (no type
 *   promotion on the way), its indexes created.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mongoose from 'mongoose';

type Db = mongoose.mongo.Db;
type Document = mongoose.mongo.Document;
const { BSON } = mongoose.mongo;
const { EJSON } = BSON;

export interface DumpTool {
  name: string;
  dump(db: Db, dir: string): Promise<void>;
  restore(db: Db, dir: string): Promise<void>;
}

const run = promisify(execFile);

/** The MongoDB Database Tools, with the URL given in a config file as the CronJob does. */
export function databaseTools(mongodump: string, mongorestore: string, mongoUrl: string, workDir: string): DumpTool {
  const config = join(workDir, 'tools-config.yaml');
  const withConfig = async (tool: string, args: string[]) => {
    await writeFile(config, `uri: ${JSON.stringify(mongoUrl)}\n`, { mode: 0o600 });
    const { stderr } = await run(tool, [`--config=${config}`, ...args], { timeout: 120_000, maxBuffer: 16 << 20 });
    return stderr;
  };
  return {
    name: 'mongodump/mongorestore',
    async dump(db, dir) {
      await mkdir(dir, { recursive: true });
      await withConfig(mongodump, [`--db=${db.databaseName}`, '--gzip', `--archive=${join(dir, `${db.databaseName}.archive.gz`)}`]);
    },
    async restore(db, dir) {
      await withConfig(mongorestore, [
        '--drop',
        `--nsInclude=${db.databaseName}.*`,
        '--gzip',
        `--archive=${join(dir, `${db.databaseName}.archive.gz`)}`,
      ]);
    },
  };
}

export const standIn: DumpTool = {
  name: 'stand-in (Node.js driver, mongodump directory layout)',
  async dump(db, dir) {
    const out = join(dir, db.databaseName);
    await mkdir(out, { recursive: true });
    for (const info of await db.listCollections({}, { nameOnly: false }).toArray()) {
      if (info.type && info.type !== 'collection')
        throw new Error(`${db.databaseName}.${info.name}: a ${info.type}, which the drill does not expect`);
      const collection = db.collection(info.name);
      const documents: Buffer[] = [];
      // raw: each document as the server sent it, so that nothing is converted on the way to disk.
      for await (const raw of collection.find({}, { raw: true, sort: { _id: 1 } }) as AsyncIterable<unknown>) {
        documents.push(Buffer.from(raw as Uint8Array));
      }
      await writeFile(join(out, `${info.name}.bson`), Buffer.concat(documents));
      const indexes = await collection.listIndexes().toArray();
      await writeFile(
        join(out, `${info.name}.metadata.json`),
        // Canonical Extended JSON, as mongodump writes it: the types of option and key values survive.
        EJSON.stringify({ collectionName: info.name, type: 'collection', options: info.options ?? {}, indexes }, undefined, 2, { relaxed: false }),
      );
    }
  },
  async restore(db, dir) {
    const from = join(dir, db.databaseName);
    for (const file of (await readdir(from)).filter((name) => name.endsWith('.metadata.json')).sort()) {
      const metadata = EJSON.parse(await readFile(join(from, file), 'utf8'), { relaxed: false }) as {
        collectionName: string;
        options: Document;
        indexes: Document[];
      };
      const name = metadata.collectionName;
      await db
        .collection(name)
        .drop()
        .catch(() => undefined);
      await db.createCollection(name, metadata.options);
      const documents = splitBson(await readFile(join(from, `${name}.bson`))).map((bytes) =>
        // No promotion: longs stay Int64, binaries stay Binary, so the documents go back as they came.
        BSON.deserialize(bytes, { promoteLongs: false, promoteValues: false, promoteBuffers: false, bsonRegExp: true }),
      );
      for (let i = 0; i < documents.length; i += 1000) {
        await db.collection(name).insertMany(documents.slice(i, i + 1000), { ordered: true, checkKeys: false, forceServerObjectId: false });
      }
      const indexes = metadata.indexes.filter((index) => index['name'] !== '_id_');
      if (indexes.length) {
        await db.command({
          createIndexes: name,
          indexes: indexes.map(({ v: _v, ns: _ns, ...index }) => index),
        });
      }
    }
  },
};

/** Concatenated BSON documents, each prefixed by its int32 little-endian length. */
function splitBson(buffer: Buffer): Buffer[] {
  const documents: Buffer[] = [];
  for (let offset = 0; offset < buffer.length;) {
    const length = buffer.readInt32LE(offset);
    if (length < 5 || offset + length > buffer.length) throw new Error(`corrupt BSON at byte ${offset}`);
    documents.push(buffer.subarray(offset, offset + length));
    offset += length;
  }
  return documents;
}
