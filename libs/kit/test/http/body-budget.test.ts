import { request as httpRequest, type ClientRequest } from 'node:http';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import Koa from 'koa';
import {
  BodyBudget,
  bodyReservation,
  DEFAULT_HEAP_SHARE,
  errorMiddleware,
  jsonBody,
  parsedHeapBytes,
  RAW_BYTES_PER_BODY_BYTE,
  textHeapBytes,
} from '@dfc/kit/http';
import { listen, waitFor, type Listening } from '@dfc/kit/testing';

const KIB = 1024;

/** Parses the text given, keeps every copy, and answers the heap that took per copy. */
const MEASURE_PARSE = `
const { parentPort, workerData } = require('node:worker_threads');
const kept = [];
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < workerData.copies; i += 1) kept.push(JSON.parse(workerData.text));
parentPort.postMessage((process.memoryUsage().heapUsed - before) / kept.length);
`;

/**
 * The heap `JSON.parse` of `text` takes, per parse, measured in a worker of its own: a fresh heap holds almost
 * no garbage that the collector could free during the parses and so hide part of their cost, and several copies
 * kept at once make what little there is small beside what is measured.
 */
async function measuredParseHeap(text: string, copies: number): Promise<number> {
  const worker = new Worker(MEASURE_PARSE, { eval: true, workerData: { text, copies } });
  try {
    return await new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

const list = (items: number, item: (i: number) => string) => `{"a":[${Array.from({ length: items }, (_, i) => item(i)).join(',')}]}`;

describe('BodyBudget', () => {
  it('when reservations do not fit beside those held, then they are refused; a release gives its bytes back once', () => {
    const budget = new BodyBudget(100);
    const first = budget.tryReserve(60);
    expect(first).to.be.a('function');
    expect(budget.tryReserve(50)).to.equal(undefined);
    first?.();
    first?.();
    expect(budget.inUseBytes).to.equal(0);
    expect(budget.tryReserve(100)).to.be.a('function');
    expect(budget.admits(100)).to.equal(true);
    expect(budget.admits(101)).to.equal(false);
  });

  describe('what a body reserves for its parse, against the heap the parse takes', () => {
    // The costliest shapes per byte: containers and separators with nothing in them, the deepest nesting
    // allowed, keys and short strings all different (none shared by the parser), and an import's own
    // coordinates for comparison.
    const shapes: Array<[string, string]> = [
      ['empty objects', list(200_000, () => '{}')],
      ['empty arrays', list(200_000, () => '[]')],
      ['objects of one empty key', list(100_000, () => '{"":0}')],
      ['small numbers', list(300_000, () => '0')],
      ['nested 63 deep', list(3_000, () => `${'['.repeat(63)}${']'.repeat(63)}`)],
      ['objects of one key each, all different', list(100_000, (i) => `{"${i.toString(36)}":0}`)],
      ['distinct keys', `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`],
      ['distinct short strings', list(100_000, (i) => `"${i.toString(36)}"`)],
      ['coordinates', list(50_000, (i) => `[4.${100_000 + i},52.${200_000 + i}]`)],
      ['one long string', `{"a":"${'x'.repeat(1_000_000)}"}`],
      ['one long string beyond Latin-1', `{"a":"${'€'.repeat(500_000)}"}`],
    ];
    for (const [shape, text] of shapes) {
      it(`when a body is ${shape}, then what it reserves while parsed covers its text and the heap its parse takes`, async () => {
        const textBytes = (/^[\x20-\x7e]*$/.test(text) ? 1 : 2) * text.length;
        expect(textHeapBytes(text)).to.be.at.least(textBytes + (await measuredParseHeap(text, 4)));
      });
    }
  });
});

describe('parsedHeapBytes', () => {
  it('when objects repeat their keys in order, as a dataset’s features do, then their members reserve a slot each, not a hidden class', () => {
    const feature = (keys: string[]) => `{${keys.map((key) => `"${key}":1`).join(',')}}`;
    const repeated = list(1_000, () => feature(['type', 'id', 'name', 'lower', 'upper']));
    const distinct = list(1_000, (i) => feature(['type', 'id', 'name', 'lower', 'upper'].map((key) => `${key}${i}`)));
    expect(parsedHeapBytes(repeated) / Buffer.byteLength(repeated)).to.be.below(8);
    expect(parsedHeapBytes(distinct)).to.be.above(3 * parsedHeapBytes(repeated));
  });
});

describe('jsonBody with a budget of bodies in flight', () => {
  const budget = new BodyBudget(3 * RAW_BYTES_PER_BODY_BYTE * 64 * KIB);
  let service: Listening;

  before(async () => {
    const app = new Koa();
    app.use(errorMiddleware());
    app.use(jsonBody(64 * KIB, budget));
    app.use((ctx) => {
      ctx.status = 201;
      ctx.body = { fields: Object.keys(ctx.state.body as object).length };
    });
    service = await listen(app);
  });
  after(() => service.close());

  /** A body sent without a length, whose first bytes alone arrive: it holds what a body up to the limit may cost. */
  function streamedBody(): ClientRequest {
    const { hostname, port } = new URL(service.url);
    const streamed = httpRequest({ hostname, port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } });
    streamed.on('error', () => undefined);
    streamed.write('{"a":');
    return streamed;
  }

  const post = (body: string) => fetch(service.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('when a body does not fit beside those being read, then 503 with Retry-After; once they are done it fits', async () => {
    const held = [streamedBody(), streamedBody(), streamedBody()];
    try {
      await waitFor(() => budget.inUseBytes === budget.capacityBytes, 2_000);
      const refused = await post('{"name":"x"}');
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(await refused.json()).to.deep.equal({ message: 'Too many request bodies are being read; try again shortly.' });
    } finally {
      for (const streamed of held) streamed.destroy();
    }
    await waitFor(() => budget.inUseBytes === 0, 2_000);
    expect((await post('{"name":"x"}')).status).to.equal(201);
  });

  it('when a body within the byte limit would cost more to parse than the whole budget, then 413, and the budget is whole again', async () => {
    const text = list(20_000, () => '{}');
    expect(Buffer.byteLength(text)).to.be.below(64 * KIB);
    expect(budget.admits(bodyReservation(text))).to.equal(false);
    const refused = await post(text);
    expect(refused.status).to.equal(413);
    expect(await refused.json()).to.deep.equal({ message: 'Request body is too large to be read by this server.' });
    await waitFor(() => budget.inUseBytes === 0, 2_000);
  });
});

describe('jsonBody with the budget of a 256 MiB heap', () => {
  const MIB = 1024 * KIB;
  // What a service's share of a 256 MiB heap at least is (the heap limit adds the young generation to it).
  const budget = new BodyBudget(Math.floor(DEFAULT_HEAP_SHARE * 256 * MIB));
  let service: Listening;

  before(async () => {
    const app = new Koa();
    app.use(errorMiddleware());
    app.use(jsonBody(16 * MIB, budget));
    app.use((ctx) => {
      ctx.status = 201;
      ctx.body = { features: (ctx.state.body as { features: unknown[] }).features.length };
    });
    service = await listen(app);
  });
  after(() => service.close());

  it('when a 15 MB GeoJSON body of 500 polygons of 1,400 vertices comes alone, then it is read: its text and parse take the place of its raw bytes, not a place beside them', async () => {
    const features = Array.from({ length: 500 }, (_, index) => {
      const ring = Array.from({ length: 1_400 }, (_, k) => {
        const angle = (2 * Math.PI * k) / 1_400;
        return [Number((30 + (index % 25) * 0.5 + 0.2 * Math.cos(angle)).toFixed(6)), Number((30 + 0.2 * Math.sin(angle)).toFixed(6))];
      });
      return {
        type: 'Feature',
        id: `zone-${index}`,
        properties: { name: `Zone ${index}` },
        geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
      };
    });
    const text = JSON.stringify({ type: 'FeatureCollection', features });
    expect(Buffer.byteLength(text)).to.be.above(15_000_000);
    expect(budget.admits(RAW_BYTES_PER_BODY_BYTE * Buffer.byteLength(text) + parsedHeapBytes(text))).to.equal(false);
    const answer = await fetch(service.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(answer.status).to.equal(201);
    expect(await answer.json()).to.deep.equal({ features: 500 });
    await waitFor(() => budget.inUseBytes === 0, 2_000);
  });
});
