import { expect } from 'chai';
import { entryPoint } from '../src/system.js';

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
