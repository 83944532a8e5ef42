import { expect } from 'chai';
import { UnauthenticatedError } from '@dfc/kit/errors';
import { basicCredentials } from '../../src/http/auth.js';

const encode = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('HTTP Basic credentials', () => {
  it('splits at the first colon: passwords may contain colons', () => {
    expect(basicCredentials(encode('pilot@example.com:pass:word'))).to.deep.equal({ email: 'pilot@example.com', password: 'pass:word' });
  });

  it('reads UTF-8 and the scheme in any case', () => {
    expect(basicCredentials(`basic ${Buffer.from('zoë@example.com:pässword').toString('base64')}`)).to.deep.equal({
      email: 'zoë@example.com',
      password: 'pässword',
    });
  });

  it('when there is no Basic header, then there are no credentials', () => {
    expect(basicCredentials('')).to.equal(undefined);
    expect(basicCredentials('Bearer abc')).to.equal(undefined);
  });

  it('when a Basic header is broken, then it is a failed login', () => {
    expect(() => basicCredentials('Basic')).to.throw(UnauthenticatedError);
    expect(() => basicCredentials(encode('no colon'))).to.throw(UnauthenticatedError);
    expect(() => basicCredentials(encode(':password-without-email'))).to.throw(UnauthenticatedError);
  });
});
