import { randomUUID } from 'node:crypto';
import { unrecorded } from '@dfc/kit/testing';
import { expect } from 'chai';
import { admin, api, cleanUp, freshNames, operator, reviewer, startService, type TestService } from '../support.js';

describe('webhook endpoints API (/api/webhooks)', () => {
  const names = freshNames();
  let service: TestService;
  const alice = operator();
  const bob = operator();
  const url = 'https://hooks.example.com/dfc';

  before(async () => {
    service = await startService(names, { ALLOW_HTTP_WEBHOOKS: 'false', ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'false' });
  });
  after(async () => {
    await service?.close();
    await cleanUp(names);
  });

  describe('POST /api/webhooks', () => {
    it('when the body is valid, then 201 returns the record with a whsec_ secret and a Location', async () => {
      const response = await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'], description: 'ops' });
      expect(response.status).to.equal(201);
      const data = response.body.data;
      expect(data).to.include({ url, description: 'ops', enabled: true, disabled_reason: null, operator_uuid: alice.operator_uuid });
      expect(data.events).to.deep.equal(['status_change']);
      expect(data.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(data.id).to.match(/^[0-9a-f-]{36}$/);
      expect(data.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      expect(response.headers.get('location')).to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/webhooks/${data.id}$`));
    });

    it('when the secret is stored, then the raw database document holds no plaintext and nothing readable of it', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const raw = await service.connection.db!.collection('webhook_endpoints').findOne({ _id: created.id } as never);
      const text = JSON.stringify(raw);
      expect(text).not.to.include(created.secret);
      expect(text).not.to.include(created.secret.slice(6));
      expect(raw?.['secrets'][0]).to.have.keys('ciphertext', 'iv', 'tag', 'created_at', 'expires_at');
    });

    it('when an operator holds the most endpoints it may (20 by default), then another is 422 naming the cap, also when several race for the last places', async () => {
      const carol = operator();
      await Promise.all(Array.from({ length: 18 }, () => api(service.url, carol, 'POST', '/api/webhooks', { url, events: ['status_change'] })));
      const racing = await Promise.all(
        Array.from({ length: 5 }, () => api(service.url, carol, 'POST', '/api/webhooks', { url, events: ['status_change'] })),
      );
      expect(racing.filter((answer) => answer.status === 201).length).to.be.at.most(2);
      const held = await unrecorded(() =>
        service.connection.db!.collection('webhook_endpoints').countDocuments({ operator_uuid: carol.operator_uuid }),
      );
      expect(held).to.be.at.most(20);
      for (let i = held; i < 20; i += 1)
        expect((await api(service.url, carol, 'POST', '/api/webhooks', { url, events: ['status_change'] })).status).to.equal(201);
      const refused = await api(service.url, carol, 'POST', '/api/webhooks', { url, events: ['status_change'] });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors).to.deep.equal({
        endpoints: ['An operator may hold at most 20 webhook endpoints (WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR); delete one first.'],
      });
    });

    it('when read afterwards, then the secret is never shown again', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const shown = await api(service.url, alice, 'GET', `/api/webhooks/${created.id}`);
      const listed = await api(service.url, alice, 'GET', '/api/webhooks');
      expect(shown.body.data).not.to.have.property('secret');
      expect(JSON.stringify(listed.body)).not.to.include(created.secret);
    });

    it('when url and events are missing, then 422 names both at once', async () => {
      const response = await api(service.url, alice, 'POST', '/api/webhooks', {});
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.keys('url', 'events');
      expect(response.body.errors.url).to.deep.equal(['The url field is required.']);
    });

    it('when events is empty, repeated or names an unknown kind, then 422 on events', async () => {
      for (const events of [[], ['status_change', 'status_change'], ['ping'], ['nope'], 'status_change']) {
        const response = await api(service.url, alice, 'POST', '/api/webhooks', { url, events });
        expect(response.status, JSON.stringify(events)).to.equal(422);
        expect(Object.keys(response.body.errors)[0], JSON.stringify(events)).to.match(/^events/);
      }
    });

    it('when the url is not https, relative, has credentials or is too long, then 422 on url', async () => {
      const cases: Array<[string, RegExp]> = [
        ['http://hooks.example.com/x', /must use https/],
        ['/relative', /valid URL/],
        ['not a url', /valid URL/],
        ['ftp://hooks.example.com/x', /must use https/],
        ['https://user:pass@hooks.example.com/x', /credentials/],
        [`https://hooks.example.com/${'a'.repeat(2040)}`, /2048/],
      ];
      for (const [bad, message] of cases) {
        const response = await api(service.url, alice, 'POST', '/api/webhooks', { url: bad, events: ['status_change'] });
        expect(response.status, bad).to.equal(422);
        expect(response.body.errors.url.join(' '), bad).to.match(message);
      }
    });

    it('when the url is a literal private, loopback, link-local or metadata address, then 422 on url', async () => {
      for (const bad of [
        'https://127.0.0.1/x',
        'https://10.1.2.3/x',
        'https://192.168.0.10/x',
        'https://172.20.0.1/x',
        'https://169.254.169.254/latest/meta-data',
        'https://100.64.0.1/x',
        'https://[::1]/x',
        'https://[fd00::1]/x',
        'https://[fe80::1]/x',
        'https://[::ffff:127.0.0.1]/x',
        'https://2130706433/x',
        'https://0.0.0.0/x',
      ]) {
        const response = await api(service.url, alice, 'POST', '/api/webhooks', { url: bad, events: ['status_change'] });
        expect(response.status, bad).to.equal(422);
        expect(response.body.errors.url[0], bad).to.match(/private, loopback or link-local/);
      }
    });

    it('when the description is over 500 characters, then 422 on description', async () => {
      const response = await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'], description: 'x'.repeat(501) });
      expect(response.status).to.equal(422);
      expect(response.body.errors.description).to.deep.equal(['The description field must not be greater than 500 characters.']);
    });

    it('when validation fails, then nothing is stored', async () => {
      const before = await unrecorded(() => service.connection.db!.collection('webhook_endpoints').countDocuments());
      await api(service.url, alice, 'POST', '/api/webhooks', { url: 'http://x', events: [] });
      expect(await unrecorded(() => service.connection.db!.collection('webhook_endpoints').countDocuments())).to.equal(before);
    });

    it('when a reviewer calls, then 403', async () => {
      const response = await api(service.url, reviewer, 'POST', '/api/webhooks', { url, events: ['status_change'] });
      expect(response.status).to.equal(403);
    });

    it('when an admin names no operator, then 422 on operator_uuid; naming one, it is created for that operator', async () => {
      const missing = await api(service.url, admin, 'POST', '/api/webhooks', { url, events: ['status_change'] });
      expect(missing.status).to.equal(422);
      expect(missing.body.errors).to.have.key('operator_uuid');
      const created = await api(service.url, admin, 'POST', `/api/webhooks?operator_uuid=${bob.operator_uuid}`, { url, events: ['status_change'] });
      expect(created.status).to.equal(201);
      expect(created.body.data.operator_uuid).to.equal(bob.operator_uuid);
    });
  });

  describe('GET /api/webhooks', () => {
    it('when an operator lists, then it sees only its own endpoints, paginated newest first', async () => {
      const carol = operator();
      const ids: string[] = [];
      for (let index = 0; index < 3; index++) {
        ids.push((await api(service.url, carol, 'POST', '/api/webhooks', { url: `${url}/${index}`, events: ['status_change'] })).body.data.id);
      }
      const page1 = await api(service.url, carol, 'GET', '/api/webhooks?per_page=2');
      expect(page1.status).to.equal(200);
      expect(page1.body.meta).to.include({ total: 3, per_page: 2, current_page: 1, last_page: 2, from: 1, to: 2 });
      expect(page1.body.data.map((endpoint: { id: string }) => endpoint.id)).to.deep.equal([ids[2], ids[1]]);
      expect(page1.body.links.next).to.match(/\/api\/webhooks\?per_page=2&page=2$/);
      const page2 = await api(service.url, carol, 'GET', '/api/webhooks?per_page=2&page=2');
      expect(page2.body.data.map((endpoint: { id: string }) => endpoint.id)).to.deep.equal([ids[0]]);
    });

    it('when per_page is over 100, then 422', async () => {
      const response = await api(service.url, alice, 'GET', '/api/webhooks?per_page=101');
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.key('per_page');
    });

    it("when an admin filters by operator, then only that operator's endpoints are listed", async () => {
      const response = await api(service.url, admin, 'GET', `/api/webhooks?operator_uuid=${bob.operator_uuid}`);
      expect(response.status).to.equal(200);
      expect(response.body.data.length).to.be.greaterThan(0);
      expect(response.body.data.every((endpoint: { operator_uuid: string }) => endpoint.operator_uuid === bob.operator_uuid)).to.equal(true);
    });
  });

  describe('GET/PATCH/DELETE /api/webhooks/:id', () => {
    it("when the endpoint is another operator's, then every route answers 404 and nothing changes", async () => {
      const bobs = (await api(service.url, bob, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      for (const [method, path, body] of [
        ['GET', `/api/webhooks/${bobs.id}`],
        ['PATCH', `/api/webhooks/${bobs.id}`, { enabled: false }],
        ['DELETE', `/api/webhooks/${bobs.id}`],
        ['POST', `/api/webhooks/${bobs.id}/rotate-secret`],
        ['POST', `/api/webhooks/${bobs.id}/test`],
        ['GET', `/api/webhooks/${bobs.id}/deliveries`],
        ['POST', `/api/webhooks/${bobs.id}/deliveries/${randomUUID()}/redeliver`],
      ] as const) {
        const response = await api(service.url, alice, method, path, body);
        expect(response.status, `${method} ${path}`).to.equal(404);
        expect(response.body).to.deep.equal({ message: 'Not Found.' });
      }
      // Naming the other operator in the query does not help an operator key either.
      expect((await api(service.url, alice, 'GET', `/api/webhooks/${bobs.id}?operator_uuid=${bob.operator_uuid}`)).status).to.equal(404);
      const still = await api(service.url, bob, 'GET', `/api/webhooks/${bobs.id}`);
      expect(still.body.data.enabled).to.equal(true);
    });

    it('when the id is unknown or not a uuid, then 404', async () => {
      expect((await api(service.url, alice, 'GET', `/api/webhooks/${randomUUID()}`)).status).to.equal(404);
      expect((await api(service.url, alice, 'GET', '/api/webhooks/not-an-id')).status).to.equal(404);
    });

    it("when an admin reads any operator's endpoint, then 200", async () => {
      const bobs = (await api(service.url, bob, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      expect((await api(service.url, admin, 'GET', `/api/webhooks/${bobs.id}`)).status).to.equal(200);
      expect((await api(service.url, admin, 'GET', `/api/webhooks/${bobs.id}?operator_uuid=${alice.operator_uuid}`)).status).to.equal(404);
    });

    it('when patched, then url, events, description and enabled change', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const patched = await api(service.url, alice, 'PATCH', `/api/webhooks/${created.id}`, {
        url: 'https://other.example.com/hook',
        events: ['review_complete', 'cascade_rejection'],
        description: 'moved',
        enabled: false,
      });
      expect(patched.status).to.equal(200);
      expect(patched.body.data).to.include({
        url: 'https://other.example.com/hook',
        description: 'moved',
        enabled: false,
        disabled_reason: 'Disabled through the API.',
      });
      expect(patched.body.data.events).to.deep.equal(['review_complete', 'cascade_rejection']);
      const enabled = await api(service.url, alice, 'PATCH', `/api/webhooks/${created.id}`, { enabled: true });
      expect(enabled.body.data).to.include({ enabled: true, disabled_reason: null });
    });

    it('when a patch is invalid, then 422 names every field and nothing changes', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const response = await api(service.url, alice, 'PATCH', `/api/webhooks/${created.id}`, {
        url: 'http://127.0.0.1/',
        events: [],
        enabled: 'yes',
      });
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.keys('url', 'events', 'enabled');
      const shown = await api(service.url, alice, 'GET', `/api/webhooks/${created.id}`);
      expect(shown.body.data.url).to.equal(url);
    });

    it('when a patch has no body or an empty object, then 422 and nothing changes', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      for (const body of [undefined, {}]) {
        const response = await api(service.url, alice, 'PATCH', `/api/webhooks/${created.id}`, body);
        expect(response.status, JSON.stringify(body)).to.equal(422);
        expect(response.body.message).to.be.a('string');
        expect(Object.keys(response.body.errors)).to.have.length.greaterThan(0);
      }
      const shown = await api(service.url, alice, 'GET', `/api/webhooks/${created.id}`);
      expect(shown.body.data.updated_at).to.equal(created.updated_at);
    });

    it('when timestamps are shown, then they have a numeric offset and whole seconds', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      expect(created.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      expect(created.updated_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    });

    it('when deleted, then 204 and it is gone', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const deleted = await api(service.url, alice, 'DELETE', `/api/webhooks/${created.id}`);
      expect(deleted.status).to.equal(204);
      expect((await api(service.url, alice, 'GET', `/api/webhooks/${created.id}`)).status).to.equal(404);
    });
  });

  describe('POST /api/webhooks/:id/rotate-secret', () => {
    it('when rotated, then 200 shows a new secret once and the store keeps both, encrypted, the old one expiring in 24 h', async () => {
      const created = (await api(service.url, alice, 'POST', '/api/webhooks', { url, events: ['status_change'] })).body.data;
      const rotated = await api(service.url, alice, 'POST', `/api/webhooks/${created.id}/rotate-secret`);
      expect(rotated.status).to.equal(200);
      expect(rotated.body.data.secret)
        .to.match(/^whsec_/)
        .and.not.equal(created.secret);
      const raw = await service.connection.db!.collection('webhook_endpoints').findOne({ _id: created.id } as never);
      expect(raw?.['secrets']).to.have.length(2);
      expect(raw?.['secrets'][0].expires_at).to.equal(null);
      const expiresIn = (raw?.['secrets'][1].expires_at as Date).getTime() - Date.now();
      expect(expiresIn).to.be.within(23.9 * 3_600_000, 24 * 3_600_000);
      expect(JSON.stringify(raw)).not.to.include(rotated.body.data.secret.slice(6));
    });
  });

  describe('without an internal token', () => {
    it('when called directly, then 401', async () => {
      const response = await fetch(`${service.url}/api/webhooks`);
      expect(response.status).to.equal(401);
    });
  });
});
