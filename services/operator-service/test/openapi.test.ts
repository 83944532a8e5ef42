import { expect } from 'chai';
import { assembleOpenApiDocument, operatorPaths } from '@dfc/contracts';
import type Router from '@koa/router';
import { apiKeysRouter } from '../src/http/api-keys-router.js';
import { operatorsRouter } from '../src/http/operators-router.js';
import type { UseCaseDeps } from '../src/use-cases/deps.js';

type Operation = { operationId?: string; responses?: Record<string, unknown> };

/** `/api/operators/:uuid/api-keys/:id` → `/api/operators/{uuid}/api-keys/{id}` */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}

function routesOf(router: Router): Array<{ path: string; method: string }> {
  return router.stack.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ path: openApiPath(String(layer.path)), method: method.toLowerCase() })),
  );
}

describe('OpenAPI path items of the operator-service', () => {
  // The routers only need their dependencies when a request comes in.
  const deps = {} as UseCaseDeps;
  const routes = [...routesOf(operatorsRouter(deps)), ...routesOf(apiKeysRouter(deps))];

  it('documents every public route the service serves, and nothing else', () => {
    const documented = Object.entries(operatorPaths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'patch', 'put', 'delete'].includes(key))
        .map((method) => ({ path, method })),
    );
    const key = ({ path, method }: { path: string; method: string }) => `${method} ${path}`;
    expect(documented.map(key).sort()).to.deep.equal(routes.map(key).sort());
  });

  it('gives every operation an id and a success and an error response', () => {
    for (const [path, item] of Object.entries(operatorPaths)) {
      for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
        if (method === 'parameters') continue;
        expect(operation.operationId, `${method} ${path}`).to.be.a('string');
        const statuses = Object.keys(operation.responses ?? {});
        expect(
          statuses.some((status) => status.startsWith('2')),
          `${method} ${path}`,
        ).to.equal(true);
        expect(
          statuses.some((status) => status.startsWith('4')),
          `${method} ${path}`,
        ).to.equal(true);
      }
    }
  });

  it('assembles into a document whose every $ref resolves and that never exposes the password', () => {
    const document = assembleOpenApiDocument([operatorPaths]);
    const text = JSON.stringify(document);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/(schemas|responses|headers)\/([^"]+)"/g)];
    expect(refs.length).to.be.greaterThan(0);
    for (const [, kind, name] of refs) {
      expect((document.components as Record<string, Record<string, unknown>>)[kind ?? '']?.[name ?? ''], `${kind}/${name}`).to.not.equal(undefined);
    }
    const record = document.components.schemas['OperatorRecord'] as { properties: Record<string, unknown> };
    expect(Object.keys(record.properties)).not.to.include('password');
  });
});
