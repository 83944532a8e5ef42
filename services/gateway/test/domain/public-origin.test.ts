import { expect } from 'chai';
import { parseBaseUrl, publicOriginResolver } from '../../src/domain/public-origin.js';

describe('publicOriginResolver', () => {
  it('when PUBLIC_BASE_URL is set, then every request gets it, whatever its Host or scheme', () => {
    const originOf = publicOriginResolver({ baseUrl: 'https://API.example.org/', allowedHosts: '', port: 8080 });
    for (const host of ['evil.example', 'a"b<c>', '127.0.0.1:8080', '']) {
      expect(originOf({ protocol: 'http', host }), host).to.deep.equal({ protocol: 'https', host: 'api.example.org' });
    }
  });

  it('when nothing is configured, then only the loopback names on the gateway port are reflected', () => {
    const originOf = publicOriginResolver({ baseUrl: '', allowedHosts: '', port: 8080 });
    for (const host of ['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST:8080', '[::1]:8080']) {
      expect(originOf({ protocol: 'http', host }), host).to.deep.equal({ protocol: 'http', host: host.toLowerCase() });
    }
    for (const host of ['127.0.0.1:8081', 'localhost', 'evil.example', 'evil.example:8080', '127.0.0.1:8080.evil.example', '']) {
      expect(originOf({ protocol: 'http', host }), host).to.equal(undefined);
    }
  });

  it('when the gateway listens on port 0, then the loopback names on any port are reflected, nothing else', () => {
    const originOf = publicOriginResolver({ baseUrl: '', allowedHosts: '', port: 0 });
    expect(originOf({ protocol: 'http', host: '127.0.0.1:41234' })).to.deep.equal({ protocol: 'http', host: '127.0.0.1:41234' });
    expect(originOf({ protocol: 'http', host: 'localhost.evil.example:41234' })).to.equal(undefined);
  });

  it('when ALLOWED_HOSTS lists hosts, then exactly those are reflected, with the request scheme', () => {
    const originOf = publicOriginResolver({ baseUrl: '', allowedHosts: 'api.example.org, staging.example.org:8443', port: 8080 });
    expect(originOf({ protocol: 'https', host: 'API.example.org' })).to.deep.equal({ protocol: 'https', host: 'api.example.org' });
    expect(originOf({ protocol: 'http', host: 'staging.example.org:8443' })).to.deep.equal({ protocol: 'http', host: 'staging.example.org:8443' });
    expect(originOf({ protocol: 'http', host: '127.0.0.1:8080' })).to.equal(undefined);
  });

  it('when PUBLIC_BASE_URL carries a path, query or credentials, then it is a configuration error', () => {
    for (const text of ['https://api.example.org/v1', 'https://u:p@api.example.org', 'https://api.example.org/?a=1', 'ftp://api.example.org']) {
      expect(() => parseBaseUrl(text), text).to.throw(/PUBLIC_BASE_URL/);
    }
  });
});
