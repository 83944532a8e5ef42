import { expect } from 'chai';
import { rabbitmqctl } from '../src/broker-users.js';
import { entryPoint, startSystem } from '../src/system.js';

describe('entryPoint (how the harness starts a service)', () => {
  it("compiled: when a caller gives node flags, then they come after the pod's node options and the image's --conditions=compiled, and before the script", () => {
    expect(entryPoint('webhook-service', 'main', true, ['--cpu-prof'])).to.deep.equal([
      '--max-old-space-size=256',
      '--max-semi-space-size=1',
      '--v8-pool-size=1',
      '--conditions=compiled',
      '--cpu-prof',
      'services/webhook-service/dist/main.js',
    ]);
  });

  it('from sources: when a caller gives node flags, then they come after tsx and before the script', () => {
    expect(entryPoint('gateway', 'migrate', false, ['--cpu-prof'])).to.deep.equal([
      '--import',
      'tsx',
      '--cpu-prof',
      'services/gateway/src/migrate.ts',
    ]);
  });

  it("without flags of the caller, then the compiled entry point is the image's with the pod's node options: the heap sizes, one V8 background thread, --conditions=compiled and the script", () => {
    expect(entryPoint('gateway', 'main', true)).to.deep.equal([
      '--max-old-space-size=256',
      '--max-semi-space-size=1',
      '--v8-pool-size=1',
      '--conditions=compiled',
      'services/gateway/dist/main.js',
    ]);
  });
});

describe('startSystem … stop (the broker a run leaves)', function () {
  this.timeout(120_000);

  it('when a run stops, then no queue of its exchange is left: each durable one is a quorum queue, a process in the broker', async () => {
    const system = await startSystem({ services: ['flight-request-service', 'webhook-service'] });
    const ofTheRun = async () => (await rabbitmqctl('list_queues', 'name')).split('\n').filter((name) => name.startsWith(`${system.exchange}.`));
    let stopped = false;
    try {
      expect(await ofTheRun()).to.include.members([
        `${system.exchange}.flight-request-service.review-queue`,
        `${system.exchange}.flight-request-service.zone-rescreening`,
        `${system.exchange}.webhook-service.attempts`,
      ]);
      await system.stop();
      stopped = true;
      expect(await ofTheRun()).to.deep.equal([]);
    } finally {
      if (!stopped) await system.stop();
    }
  });
});
