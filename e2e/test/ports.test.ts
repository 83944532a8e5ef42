import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { expect } from 'chai';
import { freePort, portTakenIn, PortTakenError, retryOnTakenPort } from '../src/ports.js';

describe('e2e system: ports taken before a service binds them', () => {
  describe('portTakenIn', () => {
    it('when a process could not listen because its port was taken, then the port is read from what it wrote, as Node or a service’s log words it', () => {
      expect(portTakenIn(['Error: listen EADDRINUSE: address already in use 127.0.0.1:40123'])).to.equal(40123);
      expect(
        portTakenIn(['{"level":60,"service":"gateway","err":"listen EADDRINUSE: address already in use 127.0.0.1:9464","msg":"start-up failed"}']),
      ).to.equal(9464);
      expect(portTakenIn(['{"level":60,"err":"connect ECONNREFUSED 127.0.0.1:27017","msg":"start-up failed"}'])).to.equal(undefined);
    });

    it('when a process is started on a port something already listens on, then its own error names that port', async () => {
      const holder: Server = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
      try {
        const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1')`], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let written = '';
        child.stderr.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
        await new Promise((resolve) => child.once('close', resolve));
        expect(portTakenIn(written.split('\n'))).to.equal(port);
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });
  });

  describe('retryOnTakenPort', () => {
    it('when a start finds its port taken, then the port is moved and the start runs again on the fresh one', async () => {
      let port = 5001;
      const tried: number[] = [];
      const started = await retryOnTakenPort(
        () => {
          tried.push(port);
          return port === 5001 ? Promise.reject(new PortTakenError(5001, 'gateway did not become ready')) : Promise.resolve(`listening on ${port}`);
        },
        (taken) => {
          expect(taken).to.equal(5001);
          port = 5002;
          return Promise.resolve();
        },
      );
      expect(started).to.equal('listening on 5002');
      expect(tried).to.deep.equal([5001, 5002]);
    });

    it('when every attempt finds its port taken, then the last failure stands; any other failure stands at once', async () => {
      let starts = 0;
      const taken = () => {
        starts += 1;
        return Promise.reject(new PortTakenError(6000 + starts, 'taken'));
      };
      const last = await retryOnTakenPort(taken, () => Promise.resolve(), 3).catch((error: unknown) => error);
      expect(last).to.be.instanceOf(PortTakenError).with.property('port', 6003);
      starts = 0;
      const broken = await retryOnTakenPort(
        () => {
          starts += 1;
          return Promise.reject(new Error('no database'));
        },
        () => Promise.resolve(),
      ).catch((error: unknown) => error);
      expect(broken).to.be.instanceOf(Error).with.property('message', 'no database');
      expect(starts).to.equal(1);
    });
  });
});
