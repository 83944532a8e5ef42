import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createKoa } from '@dfc/kit/http';
import { listen, type Listening } from '@dfc/kit/testing';

const run = promisify(execFile);

/**
 * A process of its own: this one has loaded Node's fetch for its own calls. It answers one JSON
 * body over node:http and says whether Node's bundled undici is loaded afterwards.
 */
const CHILD = `
import { request } from 'node:http';
import { createKoa } from '@dfc/kit/http';
const app = createKoa();
app.use((ctx) => { ctx.body = { data: { name: 'Zoë', tags: ['a', 'b'] } }; });
const server = app.listen(0, '127.0.0.1', () => {
  request({ port: server.address().port, host: '127.0.0.1', path: '/' }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => {
      const undici = process.moduleLoadList.some((name) => name.includes('undici'));
      console.log(JSON.stringify({ status: res.statusCode, type: res.headers['content-type'], length: res.headers['content-length'], text, undici }));
      server.close();
    });
  }).end();
});
`;

describe('createKoa', () => {
  let service: Listening;

  before(async () => {
    const app = createKoa();
    app.use((ctx) => {
      if (ctx.path === '/problem') {
        ctx.type = 'application/problem+json';
        ctx.body = { title: 'Not here' };
      } else if (ctx.path === '/list') ctx.body = [1, 'two'];
      else if (ctx.path === '/text') ctx.body = 'plain words';
      else if (ctx.path === '/stream') ctx.body = Readable.from(['streamed']);
    });
    service = await listen(app);
  });

  after(() => service.close());

  it('a JSON body: then the text koa writes for it, typed JSON with its length, and Node’s fetch is never loaded', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: process.cwd() });
    const answer = JSON.parse(stdout) as Record<string, unknown>;
    const text = JSON.stringify({ data: { name: 'Zoë', tags: ['a', 'b'] } });
    expect(answer).to.deep.equal({
      status: 200,
      type: 'application/json; charset=utf-8',
      length: String(Buffer.byteLength(text)),
      text,
      undici: false,
    });
  });

  it('an array body: then JSON too', async () => {
    const response = await fetch(`${service.url}/list`);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await response.json()).to.deep.equal([1, 'two']);
  });

  it('a JSON type the handler chose: then it is kept', async () => {
    const response = await fetch(`${service.url}/problem`);
    expect(response.headers.get('content-type')).to.equal('application/problem+json');
    expect(await response.json()).to.deep.equal({ title: 'Not here' });
  });

  it('a string or a stream: then koa’s own handling, as before', async () => {
    const text = await fetch(`${service.url}/text`);
    expect(text.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(await text.text()).to.equal('plain words');
    const stream = await fetch(`${service.url}/stream`);
    expect(stream.headers.get('content-type')).to.equal('application/octet-stream');
    expect(await stream.text()).to.equal('streamed');
  });
});
