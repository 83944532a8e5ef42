import { expect } from 'chai';
import { repeatEvery } from '@dfc/kit/service';
import { createLogger, type Logger } from '@dfc/kit/logging';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that keeps its warnings, for the one assertion about them. */
function recordingLogger(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const log = createLogger('test', 'silent');
  log.warn = ((fields: { err?: string }, message: string) => {
    warnings.push(`${message}: ${fields.err}`);
  }) as Logger['warn'];
  return { log, warnings };
}

describe('repeatEvery (periodic background work)', () => {
  it('when a round takes longer than the interval, then rounds never overlap', async () => {
    let running = 0;
    let most = 0;
    let rounds = 0;
    const job = repeatEvery(
      'slow work',
      5,
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(40);
        running--;
        rounds++;
      },
      createLogger('test', 'silent'),
    );
    await sleep(150);
    await job.stop();
    expect(most).to.equal(1);
    expect(rounds).to.be.at.least(2);
  });

  it('when stopped during a round, then stop resolves only after the round finished, and no round follows', async () => {
    let started = 0;
    let finished = 0;
    const job = repeatEvery(
      'work',
      5,
      async () => {
        started++;
        await sleep(50);
        finished++;
      },
      createLogger('test', 'silent'),
    );
    await sleep(20);
    expect(started).to.equal(1);
    await job.stop();
    expect(finished).to.equal(1);
    await sleep(30);
    expect(started).to.equal(1);
  });

  it('when its interval is a function and the pace changes, then the next round comes at the new pace, not the old one', async () => {
    let every = 60_000;
    let rounds = 0;
    const job = repeatEvery(
      'paced work',
      () => every,
      () => {
        rounds++;
        return Promise.resolve();
      },
      createLogger('test', 'silent'),
      { immediately: true },
    );
    await sleep(60);
    expect(rounds, 'at the slow pace only the first round').to.equal(1);
    every = 5;
    job.paceChanged();
    await sleep(100);
    await job.stop();
    expect(rounds).to.be.at.least(3);
  });

  it('when asked to run immediately, then the first round starts before the first interval has passed', async () => {
    let rounds = 0;
    const job = repeatEvery(
      'work',
      60_000,
      () => {
        rounds++;
        return Promise.resolve();
      },
      createLogger('test', 'silent'),
      { immediately: true },
    );
    await job.stop();
    expect(rounds).to.equal(1);
  });

  it('when a round fails, then the failure is logged under the job’s name and the next round runs', async () => {
    const { log, warnings } = recordingLogger();
    let rounds = 0;
    const job = repeatEvery(
      'expiry sweep',
      5,
      () => {
        rounds++;
        return rounds === 1 ? Promise.reject(new Error('database unreachable')) : Promise.resolve();
      },
      log,
    );
    await sleep(60);
    await job.stop();
    expect(warnings[0]).to.equal('expiry sweep failed: database unreachable');
    expect(rounds).to.be.at.least(2);
  });
});
