import { expect } from 'chai';
import { checkEndpointUrl, isForbiddenAddress } from '../../src/domain/endpoint-url.js';

const strict = { allowHttp: false, allowLoopbackTargets: false };
const loopbackAllowed = { allowHttp: true, allowLoopbackTargets: true };

describe('endpoint URL rules', () => {
  it('when the address is private, loopback, link-local, CGNAT, unique-local or metadata, then it is forbidden', () => {
    for (const address of [
      '10.0.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.31.255.255',
      '192.168.1.1',
      '100.100.100.100',
      '0.0.0.0',
      '::1',
      '::',
      'fc00::1',
      'fe80::1',
      '::ffff:7f00:1',
      '100.100.100.200',
      'fd00:ec2::254',
    ]) {
      expect(isForbiddenAddress(address), address).to.equal(true);
    }
  });

  it('when the address is public or a host name, then it is not forbidden here (host names are checked after DNS)', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', 'localhost', 'hooks.example.com']) {
      expect(isForbiddenAddress(address), address).to.equal(false);
    }
  });

  it('when the URL is a public https URL, then it has no errors', () => {
    expect(checkEndpointUrl('https://hooks.example.com/dfc?x=1', strict)).to.deep.equal([]);
    expect(checkEndpointUrl('https://8.8.8.8/x', strict)).to.deep.equal([]);
  });

  it('when http is allowed, then http passes; other schemes never do', () => {
    expect(checkEndpointUrl('http://hooks.example.com', { ...strict, allowHttp: true })).to.deep.equal([]);
    expect(checkEndpointUrl('ws://hooks.example.com', { ...strict, allowHttp: true })).to.have.length(1);
  });

  it('when the URL holds CR/LF, a tab, surrounding or inner spaces, then it is refused rather than silently cleaned by the parser', () => {
    for (const url of [
      'https://hooks.example.com/a\r\nX-Injected: 1',
      ' https://hooks.example.com/',
      'https://hooks.example.com/\n',
      'https://hooks.example.com/a b',
      'https://hooks.\texample.com/',
      'https://hooks.example.com/\u00a0',
    ]) {
      expect(checkEndpointUrl(url, strict), JSON.stringify(url)).to.deep.equal([
        'The url field must not contain white space, line breaks or control characters (percent-encode them).',
      ]);
    }
  });

  it('when the URL names port 0, then it is refused; other explicit ports pass', () => {
    expect(checkEndpointUrl('https://hooks.example.com:0/x', strict)).to.deep.equal(['The url field must not name port 0.']);
    expect(checkEndpointUrl('https://hooks.example.com:8443/x', strict)).to.deep.equal([]);
  });

  it('when loopback targets are allowed (development), then a loopback literal passes', () => {
    expect(checkEndpointUrl('https://127.0.0.1:8443/x', loopbackAllowed)).to.deep.equal([]);
    expect(checkEndpointUrl('http://[::1]:8080/x', loopbackAllowed)).to.deep.equal([]);
  });

  it('when loopback targets are allowed, then link-local, cloud metadata and private addresses are still refused', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://169.254.0.1/',
      'http://[fe80::1]/',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.1/x',
      'http://192.168.1.10/',
    ]) {
      expect(checkEndpointUrl(url, loopbackAllowed), url).to.deep.equal([
        'The url field must not point to a private, loopback or link-local address.',
      ]);
    }
  });

  it('when the URL has credentials and a fragment and is http, then every problem is listed', () => {
    expect(checkEndpointUrl('http://u:p@hooks.example.com/#x', strict)).to.have.length(3);
  });
});
