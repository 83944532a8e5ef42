import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { parseSignatureHeader, signStandardWebhook, signWebhookPayload, verifyWebhookSignature } from '@dfc/contracts';

const secret = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const otherSecret = 'whsec_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const rawBody = '{"id":"1","event":"status_change","created_at":"2026-01-01T00:00:00Z","data":{}}';
const now = new Date('2026-01-01T12:00:00Z');
const t = Math.floor(now.getTime() / 1000);

describe('webhook signatures (signWebhookPayload / verifyWebhookSignature)', () => {
  it('when signed with the secret, then it verifies', () => {
    const header = signWebhookPayload({ rawBody, secrets: secret, timestamp: t });
    expect(verifyWebhookSignature({ rawBody, header, secrets: secret, now })).to.deep.equal({ valid: true, timestamp: t });
  });

  it('when signed, then v1 is the hex HMAC-SHA256 of "<t>.<raw body>" keyed with the whole secret', () => {
    const header = signWebhookPayload({ rawBody, secrets: secret, timestamp: t });
    const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
    expect(header).to.equal(`t=${t},v1=${expected}`);
  });

  it('when the body was tampered with, then it is refused', () => {
    const header = signWebhookPayload({ rawBody, secrets: secret, timestamp: t });
    const result = verifyWebhookSignature({ rawBody: rawBody.replace('status_change', 'review_complete'), header, secrets: secret, now });
    expect(result).to.deep.equal({ valid: false, reason: 'no_matching_signature' });
  });

  it('when the secret is another one, then it is refused', () => {
    const header = signWebhookPayload({ rawBody, secrets: otherSecret, timestamp: t });
    expect(verifyWebhookSignature({ rawBody, header, secrets: secret, now }).valid).to.equal(false);
  });

  it('when t is older than the tolerance, then it is refused; at the tolerance it is accepted', () => {
    const stale = signWebhookPayload({ rawBody, secrets: secret, timestamp: t - 301 });
    const edge = signWebhookPayload({ rawBody, secrets: secret, timestamp: t - 300 });
    expect(verifyWebhookSignature({ rawBody, header: stale, secrets: secret, now })).to.deep.equal({
      valid: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifyWebhookSignature({ rawBody, header: edge, secrets: secret, now }).valid).to.equal(true);
  });

  it('when t is in the future beyond the tolerance, then it is refused', () => {
    const future = signWebhookPayload({ rawBody, secrets: secret, timestamp: t + 301 });
    expect(verifyWebhookSignature({ rawBody, header: future, secrets: secret, now }).valid).to.equal(false);
    expect(verifyWebhookSignature({ rawBody, header: future, secrets: secret, now, toleranceSeconds: 600 }).valid).to.equal(true);
  });

  it('when the header is malformed, then it is refused as malformed', () => {
    const good = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
    for (const header of [
      undefined,
      null,
      '',
      `v1=${good}`,
      `t=${t}`,
      `t=abc,v1=${good}`,
      `t=${t},v1=zz`,
      `t=${t},v1=${good.toUpperCase()}`,
      `t=${t},t=${t},v1=${good}`,
      `t=${t};v1=${good}`,
      `t=${t},v1=${good},${'x'.repeat(5000)}`,
    ]) {
      expect(verifyWebhookSignature({ rawBody, header, secrets: secret, now }), String(header)).to.deep.equal({
        valid: false,
        reason: 'malformed_header',
      });
    }
  });

  it('when there are several secrets and several v1, then any match is accepted', () => {
    const header = signWebhookPayload({ rawBody, secrets: [otherSecret, secret], timestamp: t });
    expect(header.split(',v1=')).to.have.length(3);
    expect(verifyWebhookSignature({ rawBody, header, secrets: secret, now }).valid).to.equal(true);
    expect(verifyWebhookSignature({ rawBody, header, secrets: otherSecret, now }).valid).to.equal(true);
    const single = signWebhookPayload({ rawBody, secrets: secret, timestamp: t });
    expect(verifyWebhookSignature({ rawBody, header: single, secrets: [otherSecret, secret], now }).valid).to.equal(true);
  });

  it('when the body is a Buffer, then it verifies like the same bytes as a string', () => {
    const header = signWebhookPayload({ rawBody, secrets: secret, timestamp: t });
    expect(verifyWebhookSignature({ rawBody: Buffer.from(rawBody), header, secrets: secret, now }).valid).to.equal(true);
  });

  it('when unknown schemes are present, then they are ignored', () => {
    const header = `${signWebhookPayload({ rawBody, secrets: secret, timestamp: t })},v0=abc`;
    expect(parseSignatureHeader(header)?.signatures).to.have.length(1);
    expect(verifyWebhookSignature({ rawBody, header, secrets: secret, now }).valid).to.equal(true);
  });
});

describe('Standard Webhooks signatures (signStandardWebhook)', () => {
  const keyBytes = Buffer.from(Array.from({ length: 32 }, (_, index) => 250 - index * 3));
  const standard = `whsec_${keyBytes.toString('base64')}`;
  const urlSafe = `whsec_${keyBytes.toString('base64url')}`;
  const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const expected = (key: Buffer) => createHmac('sha256', key).update(`${id}.${t}.${rawBody}`).digest('base64');

  it('when signed, then v1 is the base64 HMAC-SHA256 of "<id>.<t>.<raw body>" keyed with the decoded secret, which the standardwebhooks package verifies', () => {
    expect(standard).to.match(/[+/]/);
    expect(signStandardWebhook({ id, timestamp: t, rawBody, secrets: [standard] })).to.equal(`v1,${expected(keyBytes)}`);
    // The package refuses timestamps more than five minutes from its clock.
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signStandardWebhook({ id, timestamp, rawBody, secrets: [standard] }),
    };
    expect(new Webhook(standard).verify(rawBody, headers)).to.deep.equal(JSON.parse(rawBody));
  });

  it('when the secret was issued in URL-safe base64, then it signs with the same key bytes', () => {
    expect(urlSafe).to.match(/[-_]/);
    expect(signStandardWebhook({ id, timestamp: t, rawBody: Buffer.from(rawBody), secrets: [urlSafe] })).to.equal(`v1,${expected(keyBytes)}`);
  });

  it('when there are several secrets, then one v1 each, newest first, separated by a space', () => {
    const other = Buffer.alloc(32, 9);
    const header = signStandardWebhook({ id, timestamp: t, rawBody, secrets: [`whsec_${other.toString('base64')}`, standard] });
    expect(header).to.equal(`v1,${expected(other)} v1,${expected(keyBytes)}`);
  });
});
