import autocannon from "autocannon";
let connection = 0;
const r = await autocannon({ url: "http://127.0.0.1:18080/v1/turns", connections: 16, duration: Number(process.argv[2] ?? 8), requests: [{ method: "POST", headers: { "content-type": "application/json" }, setupRequest: (request, context) => { context.session ??= `b-${(connection += 1)}`; context.turn = (context.turn ?? 0) + 1; return { ...request, body: JSON.stringify({ user_id: `u-${context.session}`, session_id: context.session, message: `Question ${context.turn}: what does plan ${context.turn} cost per month?` }) }; } }] });
console.log(JSON.stringify({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx }));
