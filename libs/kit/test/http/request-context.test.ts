import { Writable } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { requestContext } from '@dfc/kit/http';
import { listen, type Listening } from '@dfc/kit/testing';

describe('requestContext', () => {
  const lines: Array<Record<string, unknown>> = [];
  let service: Listening;

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
        done();
      },
    });
    const app = new Koa();
    app.use(requestContext(pino({ level: 'info' }, sink)));
    app.use((ctx) => {
      if (ctx.path === '/logs') ctx.state.log.warn({ step: 'handler' }, 'handled');
      ctx.body = { requestId: ctx.state.requestId };
    });
    service = await listen(app);
  });

  after(() => service.close());
  beforeEach(() => lines.splice(0));

  const linesOf = (requestId: string) => lines.filter((line) => line['request_id'] === requestId);

  it('GET with a well-formed X-Request-Id: then it is kept, answered and on the access line', async () => {
    const response = await fetch(`${service.url}/quiet?x=1`, { headers: { 'X-Request-Id': 'client-id.42' } });
    expect(response.headers.get('x-request-id')).to.equal('client-id.42');
    expect(await response.json()).to.deep.equal({ requestId: 'client-id.42' });
    const logged = linesOf('client-id.42');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ msg: 'request', method: 'GET', path: '/quiet', status: 200 });
    expect(logged[0]?.['duration_ms']).to.be.a('number');
  });

  it('GET with a malformed X-Request-Id: then a new id replaces it everywhere', async () => {
    const response = await fetch(`${service.url}/quiet`, { headers: { 'X-Request-Id': 'no spaces allowed' } });
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).to.match(/^[0-9a-f-]{36}$/);
    expect(linesOf(requestId)).to.have.length(1);
    expect(lines.some((line) => JSON.stringify(line).includes('no spaces allowed'))).to.equal(false);
  });

  it('when a handler logs through ctx.state.log, then its line carries the request id too', async () => {
    const response = await fetch(`${service.url}/logs`);
    const requestId = response.headers.get('x-request-id') ?? '';
    const logged = linesOf(requestId);
    expect(logged.map((line) => line['msg'])).to.deep.equal(['handled', 'request']);
    expect(logged[0]).to.include({ step: 'handler' });
  });
});
