import { expect } from 'chai';
import { reportFromImageNode } from './image-node-child.js';

/** What a child on the image's Node (scripts/image-node.sh) sees around an ES module import of node:http. */
interface ChildReport {
  undiciAfterImport: boolean;
  createServer: string;
  webSocketOnFirstUse: string;
  undiciAfterFirstUse: boolean;
}

const CHILD = `
  import http, { createServer } from 'node:http';
  const undiciLoaded = () => process.moduleLoadList.some((entry) => entry.includes('undici'));
  const undiciAfterImport = undiciLoaded();
  const webSocketOnFirstUse = typeof http.WebSocket;
  console.log(JSON.stringify({ undiciAfterImport, createServer: typeof createServer, webSocketOnFirstUse, undiciAfterFirstUse: undiciLoaded() }));
`;

describe('preload/node-http (node:http as an ES module without Node\'s bundled undici)', function () {
  // The first call may fetch the image's Node from the npm registry.
  this.timeout(180_000);

  it('when the image\'s Node imports node:http as an ES module without the preload, then it loads its bundled undici', () => {
    expect(reportFromImageNode<ChildReport>([], CHILD).undiciAfterImport).to.equal(true);
  });

  it('when the preload ran first, then the import leaves undici unloaded and http.WebSocket still loads on first use', () => {
    const report = reportFromImageNode<ChildReport>(['--import', '@dfc/kit/preload/node-http'], CHILD);
    expect(report).to.deep.equal({ undiciAfterImport: false, createServer: 'function', webSocketOnFirstUse: 'function', undiciAfterFirstUse: true });
  });
});
