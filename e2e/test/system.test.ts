import { expect } from 'chai';
import { rabbitmqctl } from '../src/broker-users.js';
import { entryPoint, startSystem } from '../src/system.js';

describe('entryPoint (how the harness starts a service)', () => {
  it("compiled: when a caller gives node flags, then they come after every one of the image's ENTRYPOINT flags and before the script, so the last one given wins", () => {
    const image = entryPoint('webhook-service', 'main', true);
    const args = entryPoint('webhook-service', 'main', true, ['--max-semi-space-size=8']);
    expect(args).to.deep.equal([...image.slice(0, -1), '--max-semi-space-size=8', 'services/webhook-service/dist/main.js']);
  });

  it('from sources: when a caller gives node flags, then they come after tsx and before the script', () => {
    expect(entryPoint('gateway', 'migrate', false, ['--cpu-prof'])).to.deep.equal(['--import', 'tsx', '--cpu-prof', 'services/gateway/src/migrate.ts']);
  });

  it('without flags of the caller, then the compiled entry point is the image flags and the script alone', () => {
    const args = entryPoint('gateway', 'main', true);
    expect(args[0]).to.equal('--conditions=compiled');
    expect(args.at(-1)).to.equal('services/gateway/dist/main.js');
    expect(args.slice(0, -1).every((arg) => arg.startsWith('--'))).to.equal(true);
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
