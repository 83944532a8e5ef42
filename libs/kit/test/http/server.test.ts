import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Koa from 'koa';
import { listen, type Listening } from '@dfc/kit/testing';

/** Node's own idle keep-alive timeout, which a proxy's kept connection outlives. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

describe('the HTTP server of every process', function () {
  this.timeout(30_000);
  let service: Listening;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    const app = new Koa();
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    service = await listen(app);
  });
  after(async () => {
    agent.destroy();
    await service.close();
  });

  const post = () =>
    new Promise<{ status: number; reusedSocket: boolean }>((resolve, reject) => {
      const call = request(`${service.url}/`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, reusedSocket: call.reusedSocket }));
      });
      call.on('error', reject);
      call.end('{}');
    });

  it('when a proxy sends a POST on a keep-alive connection idle for longer than Node’s default, then the connection is still open and the POST answered on it', async () => {
    expect(await post()).to.deep.equal({ status: 200, reusedSocket: false });
    await sleep(NODE_DEFAULT_KEEP_ALIVE_MS + 1_000);
    expect(await post()).to.deep.equal({ status: 200, reusedSocket: true });
  });
});
