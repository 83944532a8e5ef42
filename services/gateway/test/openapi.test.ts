import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { assembleOpenApiDocument, buildOpenApiDocument, type JsonObject } from '@dfc/contracts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` in the document, with where it was found. */
function refsOf(value: unknown, at = '#'): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((child, index) => refsOf(child, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [[child, at] as [string, string]] : refsOf(child, `${at}/${key}`),
  );
}

function resolve(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, segment) => (typeof node === 'object' && node !== null ? (node as JsonObject)[segment] : undefined), document);
}

describe('the OpenAPI document (buildOpenApiDocument)', () => {
  const document = buildOpenApiDocument();

  it('when assembled, then it is OpenAPI 3.1.0 with info, servers and both security schemes', () => {
    expect(document.openapi).to.equal('3.1.0');
    expect(document.info).to.include.keys('title', 'version');
    expect(document.servers).to.have.length.above(0);
    expect(document.components.securitySchemes['ApiKeyAuth']).to.deep.equal({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(document.components.securitySchemes['BasicAuth']).to.include({ type: 'http', scheme: 'basic' });
    expect(document.components.schemas).to.include.keys('ErrorBody', 'ValidationErrorBody');
  });

  it('when assembled, then it has the operator routes and every operation has responses', () => {
    expect(document.paths).to.include.keys('/api/operators', '/api/operators/{uuid}');
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS.filter((name) => name in item)) {
        operations += 1;
        const responses = (item[method] as JsonObject)['responses'];
        expect(responses, `${method} ${path}`).to.be.an('object');
        expect(Object.keys(responses as JsonObject), `${method} ${path}`).to.have.length.above(0);
      }
    }
    expect(operations).to.be.greaterThan(3);
  });

  it('when assembled from every slice, then operation ids are unique', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      METHODS.map((method) => (item[method] as JsonObject | undefined)?.['operationId']).filter((id) => id !== undefined),
    );
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('when a write operation takes a JSON body, then every object in its schema but GeoJSON refuses fields it does not name (no silent ignore)', () => {
    // RFC 7946 §6.1 lets a GeoJSON object carry foreign members: an area or a zone geometry keeps them valid.
    const geoJson = /^#\/components\/schemas\/(GeoJson|FlightArea)/;
    /** The object schemas of `schema` that accept fields they do not name, by where they are. */
    const open = (schema: unknown, at: string, seen: Set<unknown>): string[] => {
      if (typeof schema !== 'object' || schema === null || seen.has(schema)) return [];
      seen.add(schema);
      const node = schema as JsonObject;
      if (typeof node['$ref'] === 'string')
        return geoJson.test(node['$ref']) ? [] : open(resolve(document, node['$ref']), `${at} → ${node['$ref']}`, seen);
      const own = node['type'] === 'object' && node['properties'] !== undefined && node['additionalProperties'] !== false ? [at] : [];
      const children = Object.entries(node).flatMap(([key, child]) =>
        key === 'properties' && typeof child === 'object' && child !== null
          ? Object.entries(child).flatMap(([name, property]) => open(property, `${at}.${name}`, seen))
          : ['items', 'anyOf', 'oneOf', 'allOf'].includes(key)
            ? (Array.isArray(child) ? child : [child]).flatMap((one: unknown, index: number) => open(one, `${at}/${key}/${index}`, seen))
            : [],
      );
      return [...own, ...children];
    };
    const bodies = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['post', 'put', 'patch'].includes(method))
        .flatMap(([method, operation]) => {
          const content = ((operation as JsonObject)['requestBody'] as JsonObject | undefined)?.['content'] as JsonObject | undefined;
          const schema = (content?.['application/json'] as JsonObject | undefined)?.['schema'];
          return schema === undefined ? [] : [[`${method.toUpperCase()} ${path}`, schema] as const];
        }),
    );
    expect(bodies.length).to.be.above(8);
    const accepting = bodies.flatMap(([operation, schema]) => open(schema, operation, new Set()));
    expect(accepting).to.deep.equal([]);
  });

  it('when assembled, then every $ref resolves inside the document', () => {
    const refs = refsOf(document);
    expect(refs).to.have.length.above(0);
    for (const [ref, at] of refs) expect(resolve(document, ref), `${ref} at ${at}`).to.not.equal(undefined);
  });

  it("when assembled, then registration needs no key and an operator's keys take HTTP Basic", () => {
    const registration = document.paths['/api/operators']?.['post'] as JsonObject;
    expect(registration['security']).to.satisfy((security: unknown[]) => security.length === 0 || JSON.stringify(security).includes('{}'));
    const issuance = Object.entries(document.paths).find(([path]) => /^\/api\/operators\/\{[^}]+\}\/api-keys$/.test(path))?.[1];
    expect(JSON.stringify((issuance?.['post'] as JsonObject)['security'])).to.include('BasicAuth');
  });

  it('when a route needs no key, then its 401 says that a key which is sent must still be valid (the gateway checks it)', () => {
    for (const [path, method] of [
      ['/api/operators', 'post'],
      ['/.well-known/jwks.json', 'get'],
      ['/api/authorisations/{jti}', 'get'],
    ] as const) {
      const responses = (document.paths[path]?.[method] as { responses: JsonObject }).responses;
      expect(responses['401'], `${method} ${path}`).to.deep.equal({ $ref: '#/components/responses/KeyRefused' });
    }
    const read = (document.paths['/api/operators/{uuid}']?.['get'] as { responses: JsonObject }).responses;
    expect(JSON.stringify(read['401'])).to.not.include('KeyRefused');
  });

  it('when assembled, then the document is plain JSON (no TypeBox symbols, survives a round trip)', () => {
    expect(JSON.parse(JSON.stringify(document))).to.deep.equal(document);
  });
});

describe('assembleOpenApiDocument', () => {
  const Widget = Type.Object({ name: Type.String() }, { $id: 'Widget' });
  const slice = {
    '/api/widgets': {
      post: {
        requestBody: { content: { 'application/json': { schema: Widget } } },
        responses: { '201': { description: 'Created.', content: { 'application/json': { schema: Type.Object({ data: Widget }) } } } },
      },
      get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: Type.Ref(Widget) } } } } },
    },
  };

  it('when a schema has an $id, then it is hoisted into components once and referenced', () => {
    const document = assembleOpenApiDocument([slice]);
    expect(document.components.schemas['Widget']).to.deep.equal({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    const post = document.paths['/api/widgets']?.['post'] as JsonObject;
    expect(JSON.stringify(post['requestBody'])).to.include('"$ref":"#/components/schemas/Widget"');
    expect(JSON.stringify(document.paths['/api/widgets']?.['get'])).to.include('"$ref":"#/components/schemas/Widget"');
  });

  it("when an operation is documented, then the gateway's own statuses and the /api/v1 alias are added", () => {
    const document = assembleOpenApiDocument([slice]);
    const item = document.paths['/api/widgets'] as JsonObject;
    expect(item['description']).to.include('/api/v1/widgets');
    const post = item['post'] as { responses: JsonObject };
    expect(post.responses).to.include.keys('201', '400', '401', '413', '415', '429', '503');
    const get = item['get'] as { responses: JsonObject };
    expect(get.responses).to.include.keys('200', '401', '429', '503');
    expect(get.responses).to.not.have.key('413');
  });
});
