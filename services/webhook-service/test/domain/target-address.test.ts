import { expect } from 'chai';
import { checkEndpointUrl } from '../../src/domain/endpoint-url.js';
import { classifyAddress, type TargetClass } from '../../src/domain/target-address.js';

/** Every form an address may take, and the class it must get: IPv6 forms that carry IPv4 by the IPv4 they carry. */
const TABLE: ReadonlyArray<readonly [string, TargetClass, string]> = [
  ['8.8.8.8', 'public', 'IPv4, public'],
  ['169.254.169.254', 'non-public', 'IPv4, cloud metadata'],
  ['10.1.2.3', 'non-public', 'IPv4, private'],
  ['100.100.100.200', 'non-public', 'IPv4, CGNAT (a metadata service)'],
  ['0.1.2.3', 'non-public', 'IPv4, this network'],
  ['192.0.2.1', 'non-public', 'IPv4, documentation'],
  ['198.18.0.1', 'non-public', 'IPv4, benchmarking'],
  ['224.0.0.1', 'non-public', 'IPv4, multicast'],
  ['255.255.255.255', 'non-public', 'IPv4, broadcast'],
  ['127.0.0.1', 'loopback', 'IPv4, loopback'],
  ['2606:4700::1111', 'public', 'IPv6, global unicast'],
  ['::1', 'loopback', 'IPv6, loopback'],
  ['::', 'non-public', 'IPv6, unspecified'],
  ['fe80::1', 'non-public', 'IPv6, link-local'],
  ['fd00:ec2::254', 'non-public', 'IPv6, unique-local (a metadata service)'],
  ['ff02::1', 'non-public', 'IPv6, multicast'],
  ['2001:db8::1', 'non-public', 'IPv6, documentation'],
  ['100::1', 'non-public', 'IPv6, discard'],
  ['::a9fe:a9fe', 'non-public', 'IPv4-compatible, metadata'],
  ['::169.254.169.254', 'non-public', 'IPv4-compatible, dotted, metadata'],
  ['::808:808', 'public', 'IPv4-compatible, public'],
  ['::ffff:a9fe:a9fe', 'non-public', 'IPv4-mapped, metadata'],
  ['::ffff:127.0.0.1', 'non-public', 'IPv4-mapped, loopback (not the development loopback)'],
  ['::ffff:8.8.8.8', 'public', 'IPv4-mapped, public'],
  ['::ffff:0:a9fe:a9fe', 'non-public', 'IPv4-translated, metadata'],
  ['::ffff:0:808:808', 'public', 'IPv4-translated, public'],
  ['2002:a9fe:a9fe::', 'non-public', '6to4, metadata'],
  ['2002:0a00:0001::1', 'non-public', '6to4, private'],
  ['2002:808:808::1', 'public', '6to4, public'],
  // Teredo: server 65.54.227.120, client obfuscated (bits inverted) in the last 32 bits.
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'non-public', 'Teredo, client 169.254.169.254 (inverted a9fe:a9fe)'],
  ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'non-public', 'Teredo, server 169.254.169.254'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public', 'Teredo, server and client (8.8.8.8) public'],
  ['64:ff9b::a9fe:a9fe', 'non-public', 'NAT64 well-known prefix, metadata'],
  ['64:ff9b::808:808', 'public', 'NAT64 well-known prefix, public'],
  ['64:ff9b:1::a9fe:a9fe', 'non-public', 'NAT64 local-use, /96 position, metadata'],
  ['64:ff9b:1:a9fe:a9:fe00::', 'non-public', 'NAT64 local-use, /48 position, metadata'],
  ['64:ff9b:1:808:8:808:808:808', 'public', 'NAT64 local-use, 8.8.8.8 at every position'],
];

describe('target addresses: one rule at registration and at send time', () => {
  for (const [address, expected, form] of TABLE) {
    it(`${form}: ${address} is ${expected}`, () => {
      expect(classifyAddress(address)).to.equal(expected);
    });
  }

  it('when a host name is given, then it has no class here (its addresses are judged once resolved)', () => {
    for (const host of ['hooks.example.com', 'localhost']) expect(classifyAddress(host), host).to.equal(undefined);
  });

  it('when a URL names any non-public form at registration, then it is refused, and every public form passes', () => {
    for (const [address, expected] of TABLE) {
      const host = address.includes(':') ? `[${address}]` : address;
      const errors = checkEndpointUrl(`https://${host}/hook`, { allowHttp: false, allowLoopbackTargets: false });
      expect(errors.length > 0, address).to.equal(expected !== 'public');
    }
  });
});
