// puppeteer-core side of guest/internal/server's BenchmarkPuppeteer*: connects to a running browser the way a
// Node harness would (Firefox over WebDriver BiDi at ws://127.0.0.1:<port>/session; Chromium over CDP at its
// DevTools port), finds the tab showing a URL and times one operation n times (at least 20). Prints
// {"p50_ms":..,"mean_ns":..} on stdout.
//
// usage: node puppeteer_page.mjs <firefox|chromium> <port> <page-url> <snapshot|pagescript|click|fill> <n>
// pagescript evaluates the JavaScript function in the file $SNAPSHOT_SCRIPT on the page (page.evaluate): on Firefox,
// where puppeteer-core has no accessibility snapshot over WebDriver BiDi, it is the closest a puppeteer harness gets
// to one (Glovebox's own page script, so both sides compute the same elements).
// puppeteer-core (pinned in bench/puppeteer/package.json and its lock file) is loaded from $PUPPETEER_DIR/node_modules
// (default bench/puppeteer: npm ci --prefix bench/puppeteer).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(process.env.PUPPETEER_DIR || path.join(here, 'puppeteer'), 'node_modules', 'x.js'));
const puppeteer = require('puppeteer-core');

const [engine, port, pageURL, op, nArg] = process.argv.slice(2);
// At least minSamples timed runs whatever n is: go test asks for b.N, which stays small when starting node and
// connecting take most of the benchtime, and the median of one or two runs says little.
const minSamples = 20;
const n = Math.max(minSamples, parseInt(nArg, 10) || 1);
const browser = engine === 'firefox'
  ? await puppeteer.connect({ browserWSEndpoint: `ws://127.0.0.1:${port}/session`, protocol: 'webDriverBiDi' })
  : await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}` });
let page;
for (const p of await browser.pages()) if (p.url() === pageURL) page = p;
if (!page) { console.error('no tab shows ' + pageURL); process.exit(2); }

const ops = {
  snapshot: () => page.accessibility.snapshot(),
  pagescript: () => page.evaluate('(' + readFileSync(process.env.SNAPSHOT_SCRIPT, 'utf8') + ')({key: "", maxNodes: 5000, maxDepth: 0, boundsAll: false})'),
  click: () => page.click('#btn5'),
  fill: () => page.locator('#in5').fill('sixteen chars ok'),
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
// Leave the browser and its tabs as they were: drop only our connection (ending our BiDi session).
await browser.disconnect();
process.exit(0);
