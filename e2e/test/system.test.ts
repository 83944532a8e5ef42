import { expect } from 'chai';
import { entryPoint } from '../src/system.js';

describe('entryPoint (how the harness starts a service)', () => {
  it("compiled: when a caller gives node flags, then they come after the image's ENTRYPOINT flags and before the script, so the last one given wins", () => {
    const args = entryPoint('webhook-service', 'main', true, ['--max-semi-space-size=8']);
    const imageFlag = args.findIndex((arg) => arg.startsWith('--max-semi-space-size=') && arg !== '--max-semi-space-size=8');
    expect(imageFlag, 'the Dockerfile ENTRYPOINT sets a semi-space size').to.be.greaterThan(-1);
    expect(args.indexOf('--max-semi-space-size=8')).to.be.greaterThan(imageFlag);
    expect(args.at(-1)).to.equal('services/webhook-service/dist/main.js');
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
