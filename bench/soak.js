// `npm run bench -- soak`: the page's startup, many times over, beside two CPU hogs (busy
// loops in processes of their own, as on a shared machine): every load must end in ready or
// in an error the page shows. Half the loads are a new visitor's (a new browser context:
// nothing cached), half a new tab of one visitor's (the model from Cache Storage). A load
// that does neither within STALL_MS is a stall, reported with what the page said it was
// doing (its status line, load phases and the Worker's progress). Not a CI test: 100 loads
// take about ten minutes here. VITREL_SOAK_LOADS sets the count (default 100).
import { spawn } from 'node:child_process';
import { startSite, launch, openPage } from '../tests/browser/harness.js';
import { untilPage } from './page-state.js';
import { reportTarget } from './targets.js';

const LOADS = Number(process.env.VITREL_SOAK_LOADS ?? 100);
// Far beyond a slow load here (seconds): only a load that stopped gets there.
const STALL_MS = 300_000;

const hog = () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });

// Ready, an error shown, or the stall limit: → { outcome, ms, status, error }
async function oneLoad(page, url) {
  const started = Date.now();
  await page.goto(url);
  let outcome;
  try {
    await untilPage(page, () => document.body.dataset.modelReady === 'true' || !document.querySelector('#error').hidden, null, { timeout: STALL_MS });
    outcome = await page.evaluate(() => (document.body.dataset.modelReady === 'true' ? 'ready' : 'error'));
  } catch {
    outcome = 'stall';
  }
  const ms = Date.now() - started;
  const shown = await page.evaluate(() => ({ status: document.querySelector('#engine-status').textContent, error: document.querySelector('#error-text').textContent }));
  return { outcome, ms, ...shown };
}

const site = await startSite();
const browser = await launch();
const hogs = [hog(), hog()];
const visitor = await browser.newContext();
const results = [];
try {
  for (let i = 0; i < LOADS; i++) {
    const fresh = i % 2 === 0;
    const { page, context } = fresh ? await openPage(browser, 'about:blank') : { page: await visitor.newPage(), context: null };
    const r = await oneLoad(page, site.url);
    results.push({ fresh, ...r });
    if (r.outcome !== 'ready') console.log(`load ${i + 1} (${fresh ? 'new visitor' : 'new tab'}): ${r.outcome} after ${r.ms} ms; status "${r.status}"; error "${r.error}"`);
    else if ((i + 1) % 10 === 0) console.log(`${i + 1} loads, the last ready after ${r.ms} ms`);
    await (context ?? page).close();
  }
} finally {
  for (const h of hogs) h.kill();
  await browser.close();
  await site.close();
}
const count = (o) => results.filter((r) => r.outcome === o).length;
const times = (fresh) => results.filter((r) => r.fresh === fresh && r.outcome === 'ready').map((r) => r.ms).sort((a, b) => a - b);
const spread = (t) => (t.length ? `median ${t[t.length >> 1]} ms, slowest ${t[t.length - 1]} ms` : 'none');
console.log(`soak: ${results.length} loads beside two CPU hogs: ${count('ready')} ready, ${count('error')} showed an error, ${count('stall')} stalled`);
console.log(`  to ready: new visitor ${spread(times(true))}; new tab ${spread(times(false))}`);
reportTarget('soak.stalls', {
  label: `page startups that neither became ready nor showed an error, of ${results.length} beside two CPU hogs`,
  value: count('stall'), limit: 0, unit: 'loads', bench: 'soak',
  detail: `${count('ready')} ready, ${count('error')} errors; ready in: new visitor ${spread(times(true))}, new tab ${spread(times(false))}`,
});
process.exitCode = count('stall') ? 1 : 0;
