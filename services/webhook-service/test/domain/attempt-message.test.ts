import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { attemptDue, attemptsDue, carriedMessages, firstAttemptDue } from '../../src/domain/attempt-message.js';

const delivery = () => ({
  _id: randomUUID(),
  endpoint_id: randomUUID(),
  operator_uuid: randomUUID(),
  dispatch_token: randomUUID(),
  event_id: randomUUID(),
  event: 'status_change',
  body: '{"event":"status_change"}',
  event_created_at: new Date('2026-11-27T10:00:00Z'),
  created_at: new Date('2026-11-27T10:00:01Z'),
});

describe('work-queue messages (what a broker message carries)', () => {
  it('when a message names one delivery, then it carries itself', () => {
    const message = attemptDue(delivery());
    expect(carriedMessages(message)).to.deep.equal([message]);
  });

  it("when the first messages of an event's deliveries travel together, then each comes out as it went in, in order", () => {
    const messages = [firstAttemptDue(delivery()), firstAttemptDue(delivery())];
    const together = attemptsDue(messages[0]!.operator_uuid, messages);
    expect(together.type).to.equal('webhook.attempts_due');
    expect(carriedMessages(JSON.parse(JSON.stringify(together)))).to.deep.equal(JSON.parse(JSON.stringify(messages)));
  });

  it('when a message, or one message inside a message, lacks what an attempt needs, then nothing comes out (the message is dropped)', () => {
    const good = attemptDue(delivery());
    const { dispatch_token: _token, ...untokened } = good.data;
    expect(carriedMessages({ ...good, data: untokened })).to.equal(undefined);
    expect(carriedMessages(attemptsDue(null, [good, { ...good, data: untokened } as typeof good]))).to.equal(undefined);
    expect(carriedMessages(attemptsDue(null, []))).to.equal(undefined);
    expect(carriedMessages({ ...attemptsDue(null, [good]), data: { messages: 'not a list' } })).to.equal(undefined);
    expect(carriedMessages({ ...attemptsDue(null, [good]), data: null })).to.equal(undefined);
  });
});
