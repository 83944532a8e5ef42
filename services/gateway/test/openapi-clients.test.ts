import { expect } from 'chai';
import type { TSchema } from '@sinclair/typebox';
import { buildOpenApiDocument, type JsonObject } from '@dfc/contracts';
import { schemaErrors } from '@dfc/kit/validation';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every object in the document with the JSON pointer where it sits. */
function objectsOf(value: unknown, at = '#'): Array<[JsonObject, string]> {
  if (Array.isArray(value)) return value.flatMap((child, index) => objectsOf(child, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return [[value as JsonObject, at], ...Object.entries(value).flatMap(([key, child]) => objectsOf(child, `${at}/${key}`))];
}

/** The schema with every `#/components/schemas/...` reference replaced by the component (the document has no cycles). */
function inlined(schema: unknown, components: Record<string, JsonObject>): unknown {
  if (Array.isArray(schema)) return schema.map((child) => inlined(child, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as JsonObject)['$ref'];
  if (typeof ref === 'string') return inlined(components[ref.replace('#/components/schemas/', '')], components);
  return Object.fromEntries(Object.entries(schema).map(([key, child]) => [key, inlined(child, components)]));
}

function operations(document: ReturnType<typeof buildOpenApiDocument>): Array<[string, string, JsonObject]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => [path, method, item[method] as JsonObject] as [string, string, JsonObject]),
  );
}

describe('the OpenAPI document for client generators', () => {
  const document = buildOpenApiDocument();
  const components = document.components.schemas;
  const everything = objectsOf(document);

  it('when a schema lists allowed strings, then it is type string + enum, never an anyOf of consts', () => {
    const constUnions = everything.filter(
      ([node]) => Array.isArray(node['anyOf']) && (node['anyOf'] as JsonObject[]).some((member) => 'const' in member),
    );
    expect(constUnions.map(([, at]) => at)).to.deep.equal([]);
    const status = (components['FlightRequestRecord']?.['properties'] as JsonObject)['status'];
    expect(status).to.deep.equal({
      type: 'string',
      enum: ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Expired', 'Rescinded', 'Suspended', 'Activated', 'Ended'],
    });
  });

  it('when a record combines schemas (IssuedApiKey, WebhookEndpointWithSecret), then it is one object that keeps its nulls', () => {
    expect(everything.filter(([node]) => 'allOf' in node).map(([, at]) => at)).to.deep.equal([]);
    for (const name of ['IssuedApiKey', 'WebhookEndpointWithSecret']) {
      const schema = components[name] as { type: string; properties: Record<string, { type: unknown }>; required: string[] };
      expect(schema.type, name).to.equal('object');
      expect(schema.required, name).to.include('created_at');
    }
    const issued = components['IssuedApiKey'] as { properties: Record<string, { type: unknown }> };
    expect(issued.properties['key']?.type).to.equal('string');
    expect(issued.properties['last_used_at']?.type).to.deep.equal(['string', 'null']);
  });

  it('when keywords are not OpenAPI ones, then they are x- extensions; uniqueItems stays where the service refuses duplicates', () => {
    expect(everything.filter(([node]) => 'errorMessage' in node).map(([, at]) => at)).to.deep.equal([]);
    expect(JSON.stringify(document)).to.include('"x-error-message"');
    expect(everything.filter(([node]) => 'uniqueItems' in node).map(([, at]) => at)).to.deep.equal([
      '#/components/schemas/WebhookEndpointCreate/properties/events',
      '#/components/schemas/WebhookEndpointUpdate/properties/events',
    ]);
  });

  it('when the webhooks section lists what subscribers receive, then its operations have a tag of their own (one API class per tag)', () => {
    const tagsOf = (items: Record<string, JsonObject>) =>
      new Set(
        Object.values(items).flatMap((item) =>
          METHODS.flatMap((method) => ((item[method] as JsonObject | undefined)?.['tags'] as string[] | undefined) ?? []),
        ),
      );
    const received = tagsOf(document.webhooks);
    expect([...received]).to.deep.equal(['Webhook events']);
    expect([...tagsOf(document.paths)].filter((tag) => received.has(tag))).to.deep.equal([]);
  });

  it('when a number is documented, then it has format double; an integer format int32 or int64', () => {
    const unformatted = everything
      .filter(
        ([node]) =>
          node['type'] === 'number' ||
          node['type'] === 'integer' ||
          (Array.isArray(node['type']) && (node['type'].includes('number') || node['type'].includes('integer'))),
      )
      .filter(([node]) => !['double', 'int32', 'int64'].includes(String(node['format'])))
      .map(([, at]) => at);
    expect(unformatted).to.deep.equal([]);
    const summary = (components['FlightRequestRecord']?.['properties'] as Record<string, JsonObject>)['area'] as {
      properties: Record<string, JsonObject>;
    };
    expect(summary.properties['bbox']?.['items']).to.deep.equal({ type: 'number', format: 'double' });
    expect(summary.properties['area_m2']).to.deep.include({ format: 'double', minimum: 0 });
  });

  it('when the API writes a timestamp, then it is a date-time (flight windows too)', () => {
    const record = components['FlightRequestRecord']?.['properties'] as Record<string, JsonObject>;
    for (const name of ['start_time', 'end_time', 'created_at', 'updated_at']) expect(record[name]?.['format'], name).to.equal('date-time');
    const queued = (components['ReviewQueueEntry']?.['properties'] as Record<string, { properties: Record<string, JsonObject> }>)['flight_request'];
    expect(queued?.properties['start_time']?.['format']).to.equal('date-time');
    const responseTimes = everything.filter(
      // Request bodies (a submission, an amendment, a volume sent with them) take the `Z` form as a pattern, not a date-time.
      ([node, at]) =>
        at.includes('/components/schemas/') && !/Create|Amendment|Input/.test(at) && /_(at|time)$/.test(at) && node['type'] !== undefined,
    );
    expect(responseTimes.filter(([node]) => node['format'] !== 'date-time').map(([, at]) => at)).to.deep.equal([]);
  });

  it('when a schema forbids a field or holds only null, then it says so in schemas every generator models: no boolean schema, no type null alone', () => {
    const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
    const booleans = everything.flatMap(([node, at]) => {
      // A map of properties that has a property named `type` is not itself a schema.
      if (typeof node['type'] === 'object' && !Array.isArray(node['type'])) return [];
      const children: Array<[string, unknown]> = [
        ...Object.entries((node['properties'] ?? {}) as Record<string, unknown>).map(([name, child]): [string, unknown] => [
          `properties/${name}`,
          child,
        ]),
        ...['items', 'not', 'if', 'then', 'else'].map((key): [string, unknown] => [key, node[key]]),
        ...SUBSCHEMA_LISTS.flatMap((key) => ((node[key] ?? []) as unknown[]).map((child, index): [string, unknown] => [`${key}/${index}`, child])),
      ];
      return children.filter(([, child]) => typeof child === 'boolean').map(([key]) => `${at}/${key}`);
    });
    expect(booleans, 'OpenAPI 3.0 loaders (oapi-codegen) refuse boolean schemas').to.deep.equal([]);
    // `anyOf: [schema, { type: null }]` is how a nullable record is written, and every generator reads it.
    const nullAlone = everything.filter(([node, at]) => node['type'] === 'null' && !/\/(anyOf|oneOf)\/\d+$/.test(at)).map(([, at]) => at);
    expect(nullAlone, 'a field of type null alone has no model in several generators').to.deep.equal([]);
  });

  it('when a geometry is one of several, then it is a oneOf discriminated by type with a mapping to each component', () => {
    const geometry = (components['FlightAreaFeature']?.['properties'] as Record<string, JsonObject>)['geometry'];
    expect(geometry).to.deep.equal({
      oneOf: ['GeoJsonPolygon', 'GeoJsonMultiPolygon', 'GeoJsonPoint'].map((name) => ({ $ref: `#/components/schemas/${name}` })),
      discriminator: {
        propertyName: 'type',
        mapping: {
          Polygon: '#/components/schemas/GeoJsonPolygon',
          MultiPolygon: '#/components/schemas/GeoJsonMultiPolygon',
          Point: '#/components/schemas/GeoJsonPoint',
        },
      },
    });
  });

  it('when operations and the delivery callback are listed, then each has an operationId', () => {
    const missing = everything
      .filter(([node, at]) => 'responses' in node && /\/(get|put|post|delete|patch)$/.test(at) && typeof node['operationId'] !== 'string')
      .map(([, at]) => at);
    expect(missing).to.deep.equal([]);
    expect(JSON.stringify(document)).to.include('"operationId":"receiveWebhookDelivery"');
  });

  it('when an answer is wrapped in data or a page, then the wrapper is a named component', () => {
    const getOperator = document.paths['/api/operators/{uuid}']?.['get'] as { responses: Record<string, JsonObject> };
    expect(JSON.stringify(getOperator.responses['200'])).to.include('#/components/schemas/OperatorRecordResponse');
    expect(components).to.include.keys('FlightRequestRecordPage', 'PageMeta', 'PageLinks', 'PagerLink', 'WebhookEndpointWithSecretResponse');
  });

  it('when geometry is documented, then flight_area and its variants are named schemas', () => {
    const record = components['FlightRequestRecord']?.['properties'] as JsonObject;
    expect(record['flight_area']).to.deep.equal({ $ref: '#/components/schemas/FlightArea' });
    expect(components).to.include.keys('FlightAreaFeature', 'GeoJsonPolygon', 'GeoJsonMultiPolygon', 'GeoJsonPoint');
  });

  it("when the spec's /api/v1 retrieval path is looked for, then it is documented", () => {
    expect((document.paths['/api/v1/flight-requests/{uuid}']?.['get'] as JsonObject)['operationId']).to.equal('getFlightRequestV1');
  });

  it('when a request body field has a default (exemption_for_ctr), then it is optional and the default is described', () => {
    const property = (components['OperatorCreate']?.['properties'] as Record<string, JsonObject>)['exemption_for_ctr'];
    expect(property).to.not.have.property('default');
    expect(property?.['description']).to.include('Defaults to false.');
    expect(components['OperatorCreate']?.['required']).to.not.include('exemption_for_ctr');
  });

  it('when an operation takes a body or query parameters (webhooks too), then its 422 is documented', () => {
    for (const [path, method, operation] of operations(document)) {
      const item = document.paths[path] as JsonObject;
      const parameters = [
        ...((operation['parameters'] as JsonObject[] | undefined) ?? []),
        ...((item['parameters'] as JsonObject[] | undefined) ?? []),
      ];
      if (operation['requestBody'] === undefined && !parameters.some((parameter) => parameter['in'] === 'query')) continue;
      expect(operation['responses'], `${method} ${path}`).to.have.property('422');
    }
  });

  it('when a request documents examples (whole bodies or fields), then every one is valid against its schema', () => {
    let checked = 0;
    for (const [path, method, operation] of operations(document)) {
      const media = ((operation['requestBody'] as JsonObject | undefined)?.['content'] as Record<string, JsonObject> | undefined)?.[
        'application/json'
      ];
      if (media === undefined) continue;
      const schema = inlined(media['schema'], components) as JsonObject;
      if (media['example'] !== undefined) {
        checked += 1;
        expect(schemaErrors(schema as TSchema, media['example']), `${method} ${path} example`).to.deep.equal({});
      }
      for (const [node, at] of objectsOf(schema)) {
        for (const example of (node['examples'] as unknown[] | undefined) ?? []) {
          checked += 1;
          expect(schemaErrors(node as TSchema, example), `${method} ${path} ${at}: ${JSON.stringify(example)}`).to.deep.equal({});
        }
      }
    }
    expect(checked).to.be.greaterThan(10);
  });
});
