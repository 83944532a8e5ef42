import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '../src/index.js';

describe('loadConfig', () => {
  const schema = Type.Object({ PORT: Type.Integer({ minimum: 1, maximum: 65535 }), NAME: Type.String({ default: 'x' }) });

  it('when values are valid, then they are coerced and defaults applied', () => {
    expect(loadConfig(schema, { PORT: '8081' })).to.deep.equal({ PORT: 8081, NAME: 'x' });
  });

  it('when a variable is missing or invalid, then the error names it', () => {
    expect(() => loadConfig(schema, {})).to.throw(ConfigError, 'PORT is required');
    expect(() => loadConfig(schema, { PORT: 'eighty' })).to.throw(ConfigError, 'PORT');
  });
});
