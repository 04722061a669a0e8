// Times cases {name: async () => …} interleaved (machine load hits every case alike): one
// warm-up run of each, then `rounds` rounds; returns {name: {min, median}} in ms. Shared by
// the graph timers (time_graphs.mjs, text/time_text.mjs).
export async function timeInterleaved(cases, rounds) {
  const ms = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const run of Object.values(cases)) await run(); // warm-up
  for (let r = 0; r < Number(rounds); r += 1) {
    for (const [name, run] of Object.entries(cases)) {
      const t0 = performance.now();
      await run();
      ms[name].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, stat(v)]));
}

function stat(a) {
  const s = [...a].sort((x, y) => x - y);
  return { min: s[0], median: s[Math.floor(s.length / 2)] };
}
