import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '@dfc/kit/config';

describe('loadConfig', () => {
  const schema = Type.Object({ PORT: Type.Integer({ minimum: 1, maximum: 65535 }), NAME: Type.String({ default: 'x' }) });

  it('when values are valid, then they are coerced and defaults applied', () => {
    expect(loadConfig(schema, { PORT: '8081' })).to.deep.equal({ PORT: 8081, NAME: 'x' });
  });

  it('when a variable is missing or invalid, then the error names it', () => {
    expect(() => loadConfig(schema, {})).to.throw(ConfigError, 'PORT is required');
    expect(() => loadConfig(schema, { PORT: 'eighty' })).to.throw(ConfigError, 'PORT');
  });

  it('when a variable is given as NAME_FILE, then it is read from that file', () => {
    const path = join(tmpdir(), `dfc-config-${process.pid}`);
    writeFileSync(path, '9090\n');
    expect(loadConfig(schema, { PORT_FILE: path }).PORT).to.equal(9090);
    expect(() => loadConfig(schema, { PORT_FILE: `${path}-missing` })).to.throw(ConfigError, 'PORT_FILE');
  });
});
