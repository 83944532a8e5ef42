import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { documentedEnvTable, envTable, OPERATIONS_DOC } from './env-table.js';

describe('docs/operations.md environment table', () => {
  it("when compared with the services' config schemas, then it lists every variable with its type and defaults", () => {
    const documented = documentedEnvTable(readFileSync(OPERATIONS_DOC, 'utf8'));
    expect(documented, 'run `npx tsx scripts/env-table.ts --write` to regenerate it').to.equal(envTable());
  });
});
