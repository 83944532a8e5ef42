// Prints how many flight requests the operator of a key owns: after the fuzz runs, how many of
// the fuzzer's submissions the service accepted. Usage: node accepted-submissions.mjs <gateway url> <key>
const [gateway, key] = process.argv.slice(2);
const answer = await fetch(`${gateway}/api/flight-requests?per_page=1`, { headers: { 'x-api-key': key } });
if (answer.status !== 200) throw new Error(`GET /api/flight-requests answered ${answer.status}: ${await answer.text()}`);
process.stdout.write(`${(await answer.json()).meta.total}\n`);
