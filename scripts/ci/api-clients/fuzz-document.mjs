// Writes the served document as the fuzzer reads it: the request examples that name an operator
// name the fuzzer's own (the document's example names a made-up one, "use your own"), so the
// examples and the coverage phase built on them submit flight requests that are accepted.
// Usage: node fuzz-document.mjs <document> <operator uuid> <output>
import { readFileSync, writeFileSync } from 'node:fs';

const [input, operatorUuid, output] = process.argv.slice(2);
const document = JSON.parse(readFileSync(input, 'utf8'));
let named = 0;
for (const item of Object.values(document.paths)) {
  for (const operation of Object.values(item)) {
    const example = operation?.requestBody?.content?.['application/json']?.example;
    if (example !== null && typeof example === 'object' && 'operator_uuid' in example) {
      example.operator_uuid = operatorUuid;
      named += 1;
    }
  }
}
if (named === 0) throw new Error('no request example names an operator: the document changed, adapt fuzz-document.mjs');
writeFileSync(output, JSON.stringify(document));
