import { expect } from 'chai';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/** Issue 17, "refuse what cannot be stored faithfully", through the gateway: bad input is refused and changes nothing. */
describe('input the API cannot store faithfully, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' } });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
  });
  after(() => system?.stop());

  const storedCount = async () => {
    const list = await client.send('GET', '/api/flight-requests?per_page=1', { key: operator.key });
    expect(list.status).to.equal(200);
    return list.body.meta.total as number;
  };
  const post = (body: string | Uint8Array, contentType = 'application/json') =>
    fetch(`${system.gatewayUrl}/api/flight-requests`, { method: 'POST', headers: { 'content-type': contentType, 'x-api-key': operator.key }, body });

  describe('encodings and characters', () => {
    it('POST /api/flight-requests: when the body holds bytes that are not UTF-8, then 400 and nothing is stored', async () => {
      const before = await storedCount();
      const text = JSON.stringify(flightRequestBody(operator, { purpose: 'ab@@' }, 6.01));
      const at = Buffer.from(text).indexOf('@@');
      const bytes = Buffer.from(text);
      bytes[at] = 0xff;
      bytes[at + 1] = 0xfe;
      const response = await post(bytes);
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Request body is not valid UTF-8.' });
      expect(await storedCount()).to.equal(before);
    });

    it('POST /api/flight-requests: when Content-Type names charset=utf-16 or another non-UTF-8 charset, then 415 and nothing is stored', async () => {
      const before = await storedCount();
      for (const charset of ['utf-16', 'UTF-16LE', 'iso-8859-1']) {
        const response = await post(JSON.stringify(flightRequestBody(operator, {}, 6.02)), `application/json; charset=${charset}`);
        expect(response.status, charset).to.equal(415);
        expect(await response.json(), charset).to.deep.equal({ message: 'Request body must be JSON in UTF-8 (charset=utf-8).' });
      }
      expect(await storedCount()).to.equal(before);
    });

    it('POST /api/flight-requests: when a text holds a lone surrogate or a C0 control character, then 422 names the field and nothing is stored', async () => {
      const before = await storedCount();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ operator_name: 'Jane \ud800' }, 'operator_name'],
        [{ purpose: 'bell\u0007' }, 'purpose'],
        [{ aircraft_type: 'esc\u001b[31m' }, 'aircraft_type'],
        [{ operator_name: 'Jane\nPilot' }, 'operator_name'],
        [{ operator_phone: '+31\t6 1234' }, 'operator_phone'],
      ];
      for (const [overrides, field] of cases) {
        const answer = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, overrides, 6.03) });
        expect(answer.status, field).to.equal(422);
        expect(Object.keys(answer.body.errors), field).to.deep.equal([field]);
        expect(answer.body.message, field).to.be.a('string');
      }
      expect(await storedCount()).to.equal(before);
    });

    it('POST /api/flight-requests: when free text holds tabs and line breaks and a surrogate pair, then it is stored as sent', async () => {
      const purpose = 'Roof inspection\n\tnorth side 🚁';
      const answer = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, { purpose }, 6.04) });
      expect(answer.status).to.equal(201);
      const read = await client.send('GET', `/api/v1/flight-requests/${answer.body.data.uuid}`, { key: operator.key });
      expect(read.body.data.purpose).to.equal(purpose);
    });
  });

  describe('webhook URLs', () => {
    it('POST /api/webhooks and PATCH: when the url holds CR/LF, surrounding white space or port 0, then 422 and nothing is stored; a valid url is stored exactly', async () => {
      const countEndpoints = async () => (await client.send('GET', '/api/webhooks', { key: operator.key })).body.meta.total as number;
      const before = await countEndpoints();
      for (const url of [
        'http://127.0.0.1:9000/hooks\r\nX-Injected: 1',
        ' http://127.0.0.1:9000/hooks',
        'http://127.0.0.1:9000/hooks ',
        'http://127.0.0.1:9000/ho\toks',
        'http://127.0.0.1:0/hooks',
      ]) {
        const answer = await client.send('POST', '/api/webhooks', { key: operator.key, body: { url, events: ['status_change'] } });
        expect(answer.status, JSON.stringify(url)).to.equal(422);
        expect(Object.keys(answer.body.errors), JSON.stringify(url)).to.deep.equal(['url']);
      }
      expect(await countEndpoints()).to.equal(before);
      const url = 'http://127.0.0.1:9000/hooks?source=dfc';
      const created = await client.send('POST', '/api/webhooks', { key: operator.key, body: { url, events: ['status_change'] } });
      expect(created.status).to.equal(201);
      expect(created.body.data.url).to.equal(url);
      const patched = await client.send('PATCH', `/api/webhooks/${created.body.data.id}`, { key: operator.key, body: { url: `${url}\n` } });
      expect(patched.status).to.equal(422);
      expect((await client.send('GET', `/api/webhooks/${created.body.data.id}`, { key: operator.key })).body.data.url).to.equal(url);
    });
  });

  describe('GeoJSON crs', () => {
    it('POST /api/flight-requests and POST /api/zones: when GeoJSON carries a crs member, then 422 names it and nothing is stored', async () => {
      const before = await storedCount();
      const crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::28992' } };
      const body = flightRequestBody(operator, {}, 6.08) as { flight_area: Record<string, unknown> };
      const answer = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: { ...body, flight_area: { ...body.flight_area, crs } },
      });
      expect(answer.status).to.equal(422);
      expect(Object.keys(answer.body.errors)).to.deep.equal(['flight_area.crs']);
      expect(answer.body.errors['flight_area.crs'][0]).to.contain('RFC 7946');
      expect(await storedCount()).to.equal(before);
      const zone = await client.send('POST', '/api/zones', {
        key: system.adminKey,
        body: {
          name: 'Projected',
          type: 'OTHER',
          restriction: 'REQ_AUTHORISATION',
          lower_limit_m: 0,
          upper_limit_m: 500,
          authority: 'LVNL',
          geometry: {
            type: 'Polygon',
            crs,
            coordinates: [
              [
                [7, 50],
                [7.01, 50],
                [7.01, 50.01],
                [7, 50.01],
                [7, 50],
              ],
            ],
          },
        },
      });
      expect(zone.status).to.equal(422);
      expect(Object.keys(zone.body.errors)).to.deep.equal(['geometry.crs']);
    });
  });

  describe('pagination bounds', () => {
    it('GET /api/flight-requests: when page or per_page is out of range, then 422 naming it; the highest page answers 200', async () => {
      for (const [query, field] of [
        ['page=99999999999999999999', 'page'],
        ['page=2147483648', 'page'],
        ['page=1001', 'page'],
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
      ]) {
        const answer = await client.send('GET', `/api/flight-requests?${query}`, { key: operator.key });
        expect(answer.status, query).to.equal(422);
        expect(Object.keys(answer.body.errors), query).to.deep.equal([field]);
      }
      const last = await client.send('GET', '/api/flight-requests?page=1000&per_page=100', { key: operator.key });
      expect(last.status).to.equal(200);
      expect(last.body.data).to.deep.equal([]);
      expect(last.body.meta.current_page).to.equal(1000);
    });

    it('GET /api/webhooks and /api/zones: when page is past the bound, then 422 there too', async () => {
      for (const path of ['/api/webhooks', '/api/zones', `/api/operators/${operator.uuid}/api-keys`]) {
        const answer = await client.send('GET', `${path}?page=99999999999999999999`, {
          key: path.includes('api-keys') ? undefined : path === '/api/zones' ? system.adminKey : operator.key,
          headers: path.includes('api-keys')
            ? { authorization: `Basic ${Buffer.from(`${operator.email}:${operator.password}`).toString('base64')}` }
            : {},
        });
        expect(answer.status, path).to.equal(422);
        expect(answer.body.errors, path).to.have.property('page');
      }
    });
  });

  describe('required texts are trimmed and never blank', () => {
    it('POST /api/flight-requests: when operator_name or purpose is blank, then 422 "required" and nothing is stored; surrounding spaces are trimmed', async () => {
      const before = await storedCount();
      const blank = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, { operator_name: '   ', operator_phone: '\u00a0', purpose: ' \n\t ' }, 6.05),
      });
      expect(blank.status).to.equal(422);
      expect(blank.body.errors).to.deep.equal({
        operator_name: ['The operator name field is required.'],
        operator_phone: ['The operator phone field is required.'],
        purpose: ['The purpose field is required.'],
      });
      expect(await storedCount()).to.equal(before);
      const padded = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, { operator_name: '  Jane Pilot  ', aircraft_type: ' Quadcopter ', purpose: ' Survey ' }, 6.06),
      });
      expect(padded.status).to.equal(201);
      expect(padded.body.data).to.include({ operator_name: 'Jane Pilot', aircraft_type: 'Quadcopter', purpose: 'Survey' });
    });

    it('DELETE /api/flight-requests/{uuid}: when the reason is blank, then 422 and the request stays as it was; a padded reason is stored trimmed', async () => {
      const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, 6.07) });
      const uuid = submitted.body.data.uuid;
      const refused = await client.send('DELETE', `/api/flight-requests/${uuid}`, { key: operator.key, body: { reason: '   ' } });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors).to.deep.equal({ reason: ['The reason field is required.'] });
      const unchanged = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
      expect(unchanged.body.data.status).to.equal(submitted.body.data.status);
      expect(unchanged.body.data.cancellation).to.equal(null);
      const cancelled = await client.send('DELETE', `/api/flight-requests/${uuid}`, { key: operator.key, body: { reason: '  Weather  ' } });
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body.data.cancellation.reason).to.equal('Weather');
    });

    it('PATCH /api/operators/{uuid}, POST /api/zones, POST /api/reviews/{id}/decision: when a required text is blank, then 422 "required"', async () => {
      const patch = await client.send('PATCH', `/api/operators/${operator.uuid}`, { key: operator.key, body: { company_name: '   ', phone: '\t' } });
      expect(patch.status).to.equal(422);
      expect(patch.body.errors).to.deep.equal({ company_name: ['The company name field is required.'], phone: ['The phone field is required.'] });
      const zone = await client.send('POST', '/api/zones', {
        key: system.adminKey,
        body: {
          name: '   ',
          type: 'OTHER',
          restriction: 'REQ_AUTHORISATION',
          lower_limit_m: 0,
          upper_limit_m: 500,
          authority: ' ',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [7, 50],
                [7.01, 50],
                [7.01, 50.01],
                [7, 50.01],
                [7, 50],
              ],
            ],
          },
        },
      });
      expect(zone.status).to.equal(422);
      expect(zone.body.errors).to.deep.include({ name: ['The name field is required.'], authority: ['The authority field is required.'] });
      const high = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, { max_altitude: 121 }, 6.09),
      });
      const item = high.body.data.review.items[0];
      const decision = await client.send('POST', `/api/reviews/${item.id}/decision`, {
        key: system.adminKey,
        body: { decision: 'approve', reason: '  ' },
      });
      expect(decision.status).to.equal(422);
      expect(decision.body.errors).to.deep.equal({ reason: ['The reason field is required.'] });
      const still = await client.send('GET', `/api/flight-requests/${high.body.data.uuid}`, { key: operator.key });
      expect(still.body.data.status).to.equal('Pending');
      expect(still.body.data.review.items[0].status).to.equal('pending');
    });
  });
});
