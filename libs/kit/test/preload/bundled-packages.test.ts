import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { bundledFile, eachBundle } from '../../src/bundled-packages.js';
import { imageNode, REPO_ROOT, reportFromImageNode } from './image-node-child.js';

const PRELOAD = `${REPO_ROOT}libs/kit/src/preload/bundled-packages.ts`;
const PACKAGES = eachBundle().flatMap(([, bundle]) => bundle.packages);

/** What a child on the image's Node (scripts/image-node.sh) gets when it imports the bundled packages. */
interface ChildReport {
  /** Each package → the URL it resolved to and its named exports. */
  packages: Record<string, { url: string; exports: string[] }>;
  schema: unknown;
  kind: unknown;
  verified: unknown;
  geometry: unknown;
  validation: unknown;
}

/** One package's line of a report; a package the child did not import fails the test here. */
function packageOf(report: ChildReport, name: string): { url: string; exports: string[] } {
  const entry = report.packages[name];
  if (entry === undefined) throw new Error(`the child did not import ${name}`);
  return entry;
}

const CHILD = `
  const packages = {};
  for (const name of ${JSON.stringify(PACKAGES)}) {
    const exports = Object.keys(await import(name)).filter((key) => key !== 'default').sort();
    packages[name] = { url: import.meta.resolve(name), exports };
  }
  const { Type, Kind } = await import('@sinclair/typebox');
  const { SignJWT, jwtVerify, generateKeyPair } = await import('jose');
  const schema = Type.Object({ id: Type.String({ format: 'uuid' }), altitude: Type.Optional(Type.Integer({ minimum: 0 })) });
  const { privateKey, publicKey } = await generateKeyPair('EdDSA');
  const token = await new SignJWT({ scope: 'read' }).setProtectedHeader({ alg: 'EdDSA' }).setSubject('op-1').sign(privateKey);
  const { payload } = await jwtVerify(token, publicKey);
  const { polygon } = await import('@turf/helpers');
  const { area } = await import('@turf/area');
  const { booleanIntersects } = await import('@turf/boolean-intersects');
  const { intersect } = await import('@turf/intersect');
  const { kinks } = await import('@turf/kinks');
  const { featureCollection } = await import('@turf/helpers');
  const { default: mongoose, Schema } = await import('mongoose');
  const Drone = mongoose.model('Drone', new Schema({ serial: { type: String, required: true }, mass: { type: Number, min: 0 } }));
  const invalid = await new Drone({ mass: -1 }).validate().catch((error) => error);
  const square = polygon([[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]);
  const shifted = polygon([[[0.5, 0.5], [1.5, 0.5], [1.5, 1.5], [0.5, 1.5], [0.5, 0.5]]]);
  const bowtie = polygon([[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]);
  console.log(JSON.stringify({
    packages,
    schema,
    kind: schema[Symbol.for('TypeBox.Kind')] === schema[Kind] ? schema[Kind] : 'another Kind symbol',
    verified: { sub: payload.sub, scope: payload.scope },
    geometry: {
      area: area(square),
      intersects: booleanIntersects(square, shifted),
      overlap: intersect(featureCollection([square, shifted])).geometry,
      kinks: kinks(bowtie).features.map((point) => point.geometry.coordinates),
    },
    validation: Object.fromEntries(Object.entries(invalid.errors).map(([path, error]) => [path, error.kind])),
  }));
`;

describe('preload/bundled-packages (TypeBox, jose, turf and mongoose as single files in the compiled services)', function () {
  // The first call may fetch the image's Node from the npm registry.
  this.timeout(180_000);

  // What a compiled child (the preload, the "compiled" condition) and a plain one get: each story reads both.
  let bundled: ChildReport;
  let installed: ChildReport;

  before(() => {
    // The build step of `npm run build:services` that writes the single files, on the Node the image builds them with.
    execFileSync(imageNode(), ['--import', 'tsx', 'libs/kit/scripts/bundle-packages.ts'], { cwd: REPO_ROOT });
    bundled = reportFromImageNode<ChildReport>(['--conditions=compiled', '--import', PRELOAD], CHILD);
    installed = reportFromImageNode<ChildReport>([], CHILD);
  });

  it('when a compiled service imports them, then every package of a bundle resolves to its one file, with the same named exports', () => {
    for (const [bundle, { packages }] of eachBundle()) {
      for (const name of packages) {
        expect(packageOf(bundled, name).url, name).to.equal(bundledFile(bundle).href);
        expect(packageOf(bundled, name).exports, name).to.include.members(packageOf(installed, name).exports);
        expect(packageOf(installed, name).url, name).to.match(/\/node_modules\//);
      }
    }
  });

  it('when a compiled service uses them, then they build the same schemas, tokens, geometry and validation as the packages installed', () => {
    expect(bundled.kind).to.equal('Object');
    expect(bundled.verified).to.deep.equal({ sub: 'op-1', scope: 'read' });
    expect(bundled.geometry).to.have.property('intersects', true);
    expect(bundled.geometry).to.have.nested.property('kinks.length', 1);
    expect(bundled.validation).to.deep.equal({ serial: 'required', mass: 'min' });
    const { schema, verified, geometry, validation } = bundled;
    expect({ schema, verified, geometry, validation }).to.deep.equal({
      schema: installed.schema,
      verified: installed.verified,
      geometry: installed.geometry,
      validation: installed.validation,
    });
  });

  it('when the driver is bundled, then it still requires saslprep, which preload/lazy-saslprep answers with its stand-in', () => {
    const source = readFileSync(bundledFile('mongoose'), 'utf8');
    expect(source).to.include('require("@mongodb-js/saslprep")');
    expect(source).not.to.include('node_modules/@mongodb-js/saslprep/');
  });

  it('when sources run under tsx (no "compiled" condition), then the packages resolve as installed', () => {
    const report = reportFromImageNode<ChildReport>(['--import', PRELOAD], CHILD);
    for (const name of PACKAGES) expect(packageOf(report, name).url, name).to.match(/\/node_modules\//);
  });
});
