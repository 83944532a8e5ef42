import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { REPO_ROOT, reportFromImageNode } from './image-node-child.js';

const PRELOAD = `${REPO_ROOT}libs/kit/src/preload/bundled-packages.ts`;

/** What a child on the image's Node (scripts/image-node.sh) gets when it imports TypeBox and jose. */
interface ChildReport {
  typebox: string;
  jose: string;
  schema: unknown;
  kind: unknown;
  verified: unknown;
}

const CHILD = `
  const { Type, Kind } = await import('@sinclair/typebox');
  const { SignJWT, jwtVerify, generateKeyPair } = await import('jose');
  const schema = Type.Object({ id: Type.String({ format: 'uuid' }), altitude: Type.Optional(Type.Integer({ minimum: 0 })) });
  const { privateKey, publicKey } = await generateKeyPair('EdDSA');
  const token = await new SignJWT({ scope: 'read' }).setProtectedHeader({ alg: 'EdDSA' }).setSubject('op-1').sign(privateKey);
  const { payload } = await jwtVerify(token, publicKey);
  console.log(JSON.stringify({
    typebox: import.meta.resolve('@sinclair/typebox'),
    jose: import.meta.resolve('jose'),
    schema,
    kind: schema[Symbol.for('TypeBox.Kind')] === schema[Kind] ? schema[Kind] : 'another Kind symbol',
    verified: { sub: payload.sub, scope: payload.scope },
  }));
`;

describe('preload/bundled-packages (TypeBox and jose as one file each in the compiled services)', function () {
  // The first call may fetch the image's Node from the npm registry.
  this.timeout(180_000);

  before(() => {
    // The build step of `npm run build:services` that writes the single files.
    execFileSync(process.execPath, ['--import', 'tsx', 'libs/kit/scripts/bundle-packages.ts'], { cwd: REPO_ROOT });
  });

  it('when a compiled service imports them, then it gets the single files, which build the same schemas and tokens', () => {
    const bundled = reportFromImageNode<ChildReport>(['--conditions=compiled', '--import', PRELOAD], CHILD);
    const installed = reportFromImageNode<ChildReport>([], CHILD);
    expect(bundled.typebox).to.equal(new URL('libs/kit/dist/bundled/sinclair-typebox.js', `file://${REPO_ROOT}`).href);
    expect(bundled.jose).to.equal(new URL('libs/kit/dist/bundled/jose.js', `file://${REPO_ROOT}`).href);
    expect(bundled.kind).to.equal('Object');
    expect(bundled.verified).to.deep.equal({ sub: 'op-1', scope: 'read' });
    expect({ schema: bundled.schema, verified: bundled.verified }).to.deep.equal({ schema: installed.schema, verified: installed.verified });
  });

  it('when sources run under tsx (no "compiled" condition), then the packages resolve as installed', () => {
    const report = reportFromImageNode<ChildReport>(['--import', PRELOAD], CHILD);
    expect(report.typebox).to.match(/\/node_modules\/@sinclair\/typebox\//);
    expect(report.jose).to.match(/\/node_modules\/jose\//);
  });
});
