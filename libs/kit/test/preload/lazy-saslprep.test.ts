import { expect } from 'chai';
import { REPO_ROOT, reportFromImageNode } from './image-node-child.js';

/** What a child on the image's Node sees of the driver's saslprep after it has loaded mongoose, and after a password went through it. */
interface ChildReport {
  tablesAfterLoad: boolean;
  normalised: string;
  tablesAfterFirstPassword: boolean;
  prohibited: string;
}

const CHILD = `
  import { createRequire } from 'node:module';
  const requireFromKit = createRequire(${JSON.stringify(`${REPO_ROOT}libs/kit/package.json`)});
  const requireFromDriver = createRequire(createRequire(requireFromKit.resolve('mongoose')).resolve('mongodb'));
  await import(requireFromKit.resolve('mongoose'));
  const tablesLoaded = () => Object.keys(requireFromDriver.cache).some((file) => file.includes('@mongodb-js/saslprep/dist/code-points-data'));
  const tablesAfterLoad = tablesLoaded();
  const { saslprep } = requireFromDriver('@mongodb-js/saslprep');
  const normalised = saslprep('I\\u00ADX\\u2163');
  let prohibited = 'accepted';
  try { saslprep('a\\u0007'); } catch (error) { prohibited = error.message; }
  console.log(JSON.stringify({ tablesAfterLoad, normalised, tablesAfterFirstPassword: tablesLoaded(), prohibited }));
`;

describe('preload/lazy-saslprep (the MongoDB driver\'s saslprep loaded on its first password)', function () {
  // The first call may fetch the image's Node from the npm registry.
  this.timeout(180_000);

  it('when mongoose loads without the preload, then the driver builds saslprep\'s tables at once', () => {
    expect(reportFromImageNode<ChildReport>([], CHILD).tablesAfterLoad).to.equal(true);
  });

  it('when the preload ran first, then the tables wait for the first password, which is normalised as the package does', () => {
    const report = reportFromImageNode<ChildReport>(['--import', '@dfc/kit/preload/lazy-saslprep'], CHILD);
    expect(report.tablesAfterLoad).to.equal(false);
    expect(report.tablesAfterFirstPassword).to.equal(true);
    // RFC 4013: U+00AD is mapped to nothing, U+2163 (ROMAN NUMERAL FOUR) to "IV" by NFKC.
    expect(report.normalised).to.equal('IXIV');
    expect(report.prohibited).to.match(/prohibited/i);
  });

  it('when the preload ran first, then the driver gets the same answers as without it', () => {
    const withPreload = reportFromImageNode<ChildReport>(['--import', '@dfc/kit/preload/lazy-saslprep'], CHILD);
    const without = reportFromImageNode<ChildReport>([], CHILD);
    expect({ ...withPreload, tablesAfterLoad: null }).to.deep.equal({ ...without, tablesAfterLoad: null });
  });
});
