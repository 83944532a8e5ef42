import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { JsonObject } from '@dfc/contracts';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Issue 17: the document promises what the server checks. Each refusal is tried twice: against the
 * served document's schema (JSON Schema 2020-12, as a client or fuzzer reads it) and against the
 * running system, and both refuse; the accepted forms pass both.
 */
describe('the OpenAPI document and the server refuse the same input, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;
  let document: JsonObject;
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

  before(async () => {
    system = await startSystem();
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
    document = (await client.send('GET', '/api/openapi.json')).body as JsonObject;
    ajv.addSchema({ $id: 'openapi.json', components: document['components'] });
  });
  after(() => system?.stop());

  const operation = (path: string, method: string) => (document['paths'] as Record<string, JsonObject>)[path]?.[method] as JsonObject;
  /** The document's request body schema with its `#/components/...` references resolved inside the document. */
  const bodySchemaOf = (path: string, method: string) => {
    const body = operation(path, method)['requestBody'] as { content: Record<string, { schema: JsonObject }> };
    return ajv.compile({ $ref: `openapi.json${String(body.content['application/json']?.schema['$ref'])}` });
  };
  const querySchemaOf = (path: string, method: string, name: string) => {
    const parameters = operation(path, method)['parameters'] as Array<{ name: string; schema: JsonObject }>;
    return ajv.compile(parameters.find((parameter) => parameter.name === name)?.schema ?? {});
  };

  describe('POST /api/flight-requests', () => {
    const submit = (body: unknown) => client.send('POST', '/api/flight-requests', { key: operator.key, body });
    const circle = (properties: Record<string, unknown>) => ({
      flight_area: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties, geometry: { type: 'Point', coordinates: [5.2, 52.1] } }],
      },
    });

    for (const [story, overrides, field] of [
      ['a start of 0000-00-00T00:00:00Z', { start_time: '0000-00-00T00:00:00Z' }, 'start_time'],
      ['an end on 30 February', { end_time: '2027-02-30T10:00:00Z' }, 'end_time'],
      ['an end at 24:00', { end_time: '2027-03-01T24:00:00Z' }, 'end_time'],
      ['a Point without radius_m', circle({}), 'flight_area.features.0.properties.radius_m'],
      ['a Point with radius_m 6000', circle({ radius_m: 6000 }), 'flight_area.features.0.properties.radius_m'],
      ['a max_altitude beyond int32', { max_altitude: 2 ** 31 }, 'max_altitude'],
    ] as const) {
      it(`when the body has ${story}, then the document's schema refuses it and the server answers 422 naming ${field}`, async () => {
        const body = flightRequestBody(operator, overrides);
        expect(bodySchemaOf('/api/flight-requests', 'post')(body), 'valid by the document').to.equal(false);
        const answer = await submit(body);
        expect(answer.status).to.equal(422);
        expect(answer.body.errors).to.have.property(field);
      });
    }

    it('when a circle and seven-decimal coordinates are sent, then both accept them and the stored geometry reads back exactly', async () => {
      const square = [
        [
          [5.1234567, 52.0912345],
          [5.1244567, 52.0912345],
          [5.1244567, 52.0922345],
          [5.1234567, 52.0922345],
          [5.1234567, 52.0912345],
        ],
      ];
      const body = flightRequestBody(operator, {
        flight_area: {
          type: 'FeatureCollection',
          features: [
            { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square } },
            { type: 'Feature', properties: { radius_m: 250.5 }, geometry: { type: 'Point', coordinates: [5.2, 52.1] } },
          ],
        },
      });
      const validate = bodySchemaOf('/api/flight-requests', 'post');
      expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
      const created = await submit(body);
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const read = await client.send('GET', `/api/v1/flight-requests/${created.body.data.uuid}?include_geometry=true`, { key: operator.key });
      expect(read.body.data.flight_area.features[0].geometry.coordinates[0][0]).to.deep.equal([5.1234567, 52.0912345]);
      expect(read.body.data.flight_area.features[1].properties).to.deep.equal({ radius_m: 250.5 });
    });
  });

  describe('GET /api/flight-requests', () => {
    for (const status of ['', ' ', 'Pending,', 'Landed']) {
      it(`when status is ${JSON.stringify(status)}, then the document refuses it and the server answers 422`, async () => {
        expect(querySchemaOf('/api/flight-requests', 'get', 'status')(status)).to.equal(false);
        const answer = await client.send('GET', `/api/flight-requests?status=${encodeURIComponent(status)}`, { key: operator.key });
        expect(answer.status).to.equal(422);
        expect(answer.body.errors).to.have.property('status');
      });
    }

    it('when status lists statuses in any case with spaces around commas, then both accept it', async () => {
      const status = ' pending , APPROVED,Rescinded';
      expect(querySchemaOf('/api/flight-requests', 'get', 'status')(status)).to.equal(true);
      expect((await client.send('GET', `/api/flight-requests?status=${encodeURIComponent(status)}`, { key: operator.key })).status).to.equal(200);
    });

    it('when page is 99999999999999999999, then the document (int32) refuses it and the server answers 422', async () => {
      expect(querySchemaOf('/api/flight-requests', 'get', 'page')(Number('99999999999999999999'))).to.equal(false);
      expect((await client.send('GET', '/api/flight-requests?page=99999999999999999999', { key: operator.key })).status).to.equal(422);
    });
  });

  describe('POST /api/webhooks', () => {
    for (const [story, body, field] of [
      ['url "0"', { url: '0', events: ['status_change'] }, 'url'],
      ['events repeated', { url: 'http://127.0.0.1:9/hooks', events: ['status_change', 'status_change'] }, 'events'],
    ] as const) {
      it(`when the body has ${story}, then the document's schema refuses it and the server answers 422 naming ${field}`, async () => {
        expect(bodySchemaOf('/api/webhooks', 'post')(body), 'valid by the document').to.equal(false);
        const answer = await client.send('POST', '/api/webhooks', { key: operator.key, body });
        expect(answer.status).to.equal(422);
        expect(answer.body.errors).to.have.property(field);
      });
    }
  });
});
