import { parsePosixRule, type PosixRule } from './posix-rule.js';

/** What a TZif file (RFC 8536) says of a zone's offsets: its transitions, then its rule. */
export interface ZoneData {
  /** Instants (seconds since the epoch) at which the offset changes, ascending. */
  transitions: number[];
  /** The offset (seconds east of UTC) from each transition on. */
  offsets: number[];
  /** The offset before the first transition. */
  initialOffset: number;
  /** The offset after the last transition; undefined when the file has no rule this reader takes. */
  rule: PosixRule | undefined;
}

const HEADER_BYTES = 44;

/** Reads a version 2 or later file: its 64-bit data block and its footer (version 1 data stops in 2038). */
export function parseTzif(bytes: Uint8Array): ZoneData {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = header(view, 0);
  if (first.version < 2) throw new Error('TZif version 1 files are not read: they end in 2038');
  const v1Bytes = first.timecnt * 5 + first.typecnt * 6 + first.charcnt + first.leapcnt * 8 + first.isstdcnt + first.isutcnt;
  const start = HEADER_BYTES + v1Bytes;
  const counts = header(view, start);
  let at = start + HEADER_BYTES;
  const transitions: number[] = [];
  for (let i = 0; i < counts.timecnt; i += 1, at += 8) transitions.push(Number(view.getBigInt64(at)));
  const typeIndexes = Array.from(bytes.subarray(at, at + counts.timecnt));
  at += counts.timecnt;
  const typeOffsets: number[] = [];
  for (let i = 0; i < counts.typecnt; i += 1, at += 6) typeOffsets.push(view.getInt32(at));
  at += counts.charcnt + counts.leapcnt * 12 + counts.isstdcnt + counts.isutcnt;
  const footer = new TextDecoder().decode(bytes.subarray(at)).split('\n')[1] ?? '';
  return {
    transitions,
    offsets: typeIndexes.map((index) => typeOffsets[index] ?? 0),
    initialOffset: typeOffsets[0] ?? 0,
    rule: footer === '' ? undefined : parsePosixRule(footer),
  };
}

interface Counts {
  version: number;
  isutcnt: number;
  isstdcnt: number;
  leapcnt: number;
  timecnt: number;
  typecnt: number;
  charcnt: number;
}

function header(view: DataView, at: number): Counts {
  if (view.byteLength < at + HEADER_BYTES || view.getUint32(at) !== 0x545a6966) throw new Error('not a TZif file');
  const versionByte = view.getUint8(at + 4);
  const count = (index: number) => view.getUint32(at + 20 + index * 4);
  return {
    version: versionByte === 0 ? 1 : versionByte - 0x30,
    isutcnt: count(0),
    isstdcnt: count(1),
    leapcnt: count(2),
    timecnt: count(3),
    typecnt: count(4),
    charcnt: count(5),
  };
}
