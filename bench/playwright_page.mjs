// Playwright side of guest/internal/server's BenchmarkBrowser*: connects to a running Chromium over CDP
// (chromium.connectOverCDP, the same browser the Go side drives), finds the tab showing a URL and times one
// operation n times (at least 20). Prints {"p50_ms":..,"mean_ns":..} on stdout.
//
// usage: node playwright_page.mjs <cdp-url> <page-url> <snapshot|click|fill> <n>
// playwright-core is loaded from $PLAYWRIGHT_DIR/node_modules (npm install playwright-core there).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.PLAYWRIGHT_DIR || '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

const [cdpURL, pageURL, op, nArg] = process.argv.slice(2);
// At least minSamples timed runs whatever n is: go test asks for b.N, which stays at 1 or 2 when starting node
// and connecting take most of the benchtime, and the median of one or two runs says little.
const minSamples = 20;
const n = Math.max(minSamples, parseInt(nArg, 10) || 1);
const browser = await chromium.connectOverCDP(cdpURL);
let page;
for (const ctx of browser.contexts()) for (const p of ctx.pages()) if (p.url() === pageURL) page = p;
if (!page) { console.error('no tab shows ' + pageURL); process.exit(2); }

const ops = {
  snapshot: () => page.locator('body').ariaSnapshot(),
  click: () => page.click('#btn5'),
  fill: () => page.fill('#in5', 'sixteen chars ok'),
};
const run = ops[op];
if (!run) { console.error('unknown op ' + op); process.exit(2); }
await run(); // warm up
const times = [];
for (let i = 0; i < n; i++) {
  const t0 = process.hrtime.bigint();
  await run();
  times.push(Number(process.hrtime.bigint() - t0));
}
times.sort((a, b) => a - b);
const mean = times.reduce((a, b) => a + b, 0) / times.length;
console.log(JSON.stringify({ p50_ms: times[Math.floor(times.length / 2)] / 1e6, mean_ns: mean }));
// Leave the browser and its tabs as they were: exit without browser.close(), dropping only our connection.
process.exit(0);
