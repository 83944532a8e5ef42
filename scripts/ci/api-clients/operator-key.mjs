// Registers an operator through the gateway and prints a fresh API key of it and its uuid (for the fuzzer).
// Usage: node operator-key.mjs <gateway url>
const [gateway] = process.argv.slice(2);
const email = `fuzz-${Date.now()}@example.com`;
const password = 'correct horse battery';
const call = async (path, init) => {
  const response = await fetch(`${gateway}${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  if (response.status !== 201) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()).data;
};
const operator = await call('/api/operators', {
  method: 'POST',
  body: JSON.stringify({ company_name: 'Fuzzer', email, password, phone: '+31 20 555 0100' }),
});
const issued = await call(`/api/operators/${operator.uuid}/api-keys`, {
  method: 'POST',
  headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  body: JSON.stringify({ name: 'fuzzer' }),
});
process.stdout.write(`${issued.key} ${operator.uuid}\n`);
