import { execFileSync } from 'node:child_process';
import { openSync, readFileSync, readSync, closeSync } from 'node:fs';

/**
 * Which parts of the node binary a running process keeps resident: its machine
 * code (`.text`), the ICU data it embeds (the `icudt*_dat` symbol) and the rest
 * (read-only data, V8's snapshot, data), in MiB, page by page from
 * /proc/<pid>/pagemap (root only). The "node binary" share of `npm run bench --
 * cost`'s RSS by mapping, taken apart.
 *
 *   npx tsx bench/binary-pages.ts <pid>...
 */

const PAGE = 4096;

interface Range {
  start: number;
  end: number;
}

/** The binary's `.text` section and ICU data symbol, as addresses relative to its load base (readelf, from binutils). */
function layout(binary: string): { text: Range; icu: Range } {
  const sections = execFileSync('readelf', ['-SW', binary], { encoding: 'utf8' });
  const text = /\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(sections);
  const symbols = execFileSync('readelf', ['-sW', binary], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  const icu = /^\s*\d+:\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s+\S+\s+\S+\s+\S+\s+icudt\d+_dat$/m.exec(symbols);
  if (!text || !icu) throw new Error(`${binary}: no .text section or ICU data symbol`);
  const textStart = parseInt(text[1] ?? '', 16);
  const icuStart = parseInt(icu[1] ?? '', 16);
  return { text: { start: textStart, end: textStart + parseInt(text[2] ?? '', 16) }, icu: { start: icuStart, end: icuStart + Number(icu[2]) } };
}

/** The process's mappings of its node binary: address ranges and file offsets. */
function binaryMappings(pid: number): { binary: string; mappings: Array<Range & { offset: number }> } {
  const mappings: Array<Range & { offset: number }> = [];
  let binary = '';
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const fields = line.split(/\s+/);
    const path = fields[5] ?? '';
    if (!path.endsWith('/node')) continue;
    binary = path;
    const [start, end] = (fields[0] ?? '').split('-').map((hex) => parseInt(hex, 16));
    mappings.push({ start: start ?? 0, end: end ?? 0, offset: parseInt(fields[2] ?? '', 16) });
  }
  if (mappings.length === 0) throw new Error(`process ${pid} has no node binary mapped`);
  return { binary, mappings };
}

function residentParts(pid: number): Record<'machine code' | 'ICU data' | 'the rest', number> {
  const { binary, mappings } = binaryMappings(pid);
  const { text, icu } = layout(binary);
  const base = Math.min(...mappings.map((mapping) => mapping.start - mapping.offset));
  const pages = { 'machine code': 0, 'ICU data': 0, 'the rest': 0 };
  const pagemap = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    for (const mapping of mappings) {
      const count = (mapping.end - mapping.start) / PAGE;
      const entries = Buffer.alloc(count * 8);
      readSync(pagemap, entries, 0, entries.length, (mapping.start / PAGE) * 8);
      for (let page = 0; page < count; page += 1) {
        // Bit 63 of a pagemap entry: the page is present in memory.
        if ((entries.readBigUInt64LE(page * 8) >> 63n) === 0n) continue;
        const address = mapping.start + page * PAGE - base;
        const inside = (range: Range) => address >= range.start && address < range.end;
        pages[inside(icu) ? 'ICU data' : inside(text) ? 'machine code' : 'the rest'] += 1;
      }
    }
  } finally {
    closeSync(pagemap);
  }
  return { 'machine code': (pages['machine code'] * PAGE) / 2 ** 20, 'ICU data': (pages['ICU data'] * PAGE) / 2 ** 20, 'the rest': (pages['the rest'] * PAGE) / 2 ** 20 };
}

for (const pid of process.argv.slice(2).map(Number)) {
  const parts = Object.entries(residentParts(pid)).map(([part, mib]) => `${part} ${mib.toFixed(1)}`);
  process.stdout.write(`${pid}: node binary resident, MiB: ${parts.join(', ')}\n`);
}
