import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseTzif } from '../../src/time-zones/tzif.js';

/** A version 2 file: an empty version 1 block, then the 64-bit one, then the footer. */
function tzif(transitions: number[], typeOffsets: number[], typeIndexes: number[], footer: string, version = '2'): Uint8Array {
  const header = (timecnt: number, typecnt: number, charcnt: number) => {
    const bytes = Buffer.alloc(44);
    bytes.write('TZif', 0, 'latin1');
    bytes.write(version, 4, 'latin1');
    [0, 0, 0, timecnt, typecnt, charcnt].forEach((count, index) => bytes.writeUInt32BE(count, 20 + index * 4));
    return bytes;
  };
  const times = Buffer.alloc(transitions.length * 8);
  transitions.forEach((time, index) => times.writeBigInt64BE(BigInt(time), index * 8));
  const types = Buffer.alloc(typeOffsets.length * 6);
  typeOffsets.forEach((offset, index) => types.writeInt32BE(offset, index * 6));
  return Buffer.concat([
    header(0, 1, 1),
    Buffer.alloc(6 + 1),
    header(transitions.length, typeOffsets.length, 1),
    times,
    Buffer.from(typeIndexes),
    types,
    Buffer.alloc(1),
    Buffer.from(`\n${footer}\n`, 'latin1'),
  ]);
}

describe('TZif files (RFC 8536)', () => {
  it('when the file lists transitions, then each gives the offset of its type, the first type before them, and the footer after', () => {
    const zone = parseTzif(tzif([100, 200], [3600, 7200], [1, 0], 'CET-1'));
    expect(zone.transitions).to.deep.equal([100, 200]);
    expect(zone.offsets).to.deep.equal([7200, 3600]);
    expect(zone.initialOffset).to.equal(3600);
    expect(zone.rule).to.deep.equal({ standardOffset: 3600 });
  });

  it('when the footer is empty, then there is no rule', () => {
    expect(parseTzif(tzif([], [0], [], '')).rule).to.equal(undefined);
  });

  it('when the file is version 1, or not TZif at all, then it is refused', () => {
    expect(() => parseTzif(tzif([], [0], [], '', '\0'))).to.throw(/version 1/);
    expect(() => parseTzif(Buffer.from('not a zone file at all, but long enough to hold a header'))).to.throw(/not a TZif/);
    expect(() => parseTzif(new Uint8Array(10))).to.throw(/not a TZif/);
  });

  it('when it reads the system’s Europe/Amsterdam, then 2026’s changes are at 01:00 UTC on the last Sundays of March and October', () => {
    const zone = parseTzif(readFileSync('/usr/share/zoneinfo/Europe/Amsterdam'));
    const march = zone.transitions.indexOf(Date.parse('2026-03-29T01:00:00Z') / 1000);
    const october = zone.transitions.indexOf(Date.parse('2026-10-25T01:00:00Z') / 1000);
    expect([zone.offsets[march], zone.offsets[october]]).to.deep.equal([7200, 3600]);
    expect(zone.rule).to.have.property('standardOffset', 3600);
  });
});
