// The viewer's speed on a large report (the README's viewer line): headless Chromium against
// `cubekit serve` over one report. Measures the first paint (page load until the call tree
// shows values: anchor open, one metric decoded) and later clicks (expand a call path, select
// another metric, open the flat profile tab), each until the page shows the answer.
//
//   node bench/viewer_paint.js <cubekit binary> <report.cubex>
//
// Runs from tests/browser (its node_modules has playwright-core): bench/viewer_paint.sh.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'tests', 'browser', 'node_modules', 'playwright-core'));

const [cubekit, report] = process.argv.slice(2);

function startServer(root) {
  return new Promise((resolve, reject) => {
    const p = spawn(cubekit, ['serve', '--root', root, '--port', '0']);
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ proc: p, url: m[0] });
    });
    p.on('exit', (code) => reject(new Error(`cubekit serve exited with ${code}`)));
  });
}

// A user looks before clicking: THINK_MS (default 0, clicks back to back) passes before each
// timed click, during which the viewer's idle-time work (other metrics' totals) may run.
const thinkMs = Number(process.env.THINK_MS || 0);

async function timed(label, fn) {
  if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
  const t0 = process.hrtime.bigint();
  await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`| ${label} | ${ms.toFixed(0)} ms |`);
  return ms;
}

async function main() {
  const server = await startServer(path.dirname(report));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-bench-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, bypassCSP: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const name = path.basename(report);
    console.log(`| ${name} (${(fs.statSync(report).size / 1e9).toFixed(2)} GB) | time |`);
    console.log('|---|---:|');
    // First paint: from the navigation's start (the first request) until the call tree shows
    // values, by the page's own clock (Chromium's start-up is not the viewer's).
    await page.goto(`${server.url}?report=${encodeURIComponent(name)}`);
    await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
    const paint = await page.evaluate(() => performance.now());
    console.log(`| first paint: first request until the call tree shows values | ${paint.toFixed(0)} ms |`);
    const rows = () => page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent).length);
    const before = await rows();
    await timed('click: expand the first call path with children', async () => {
      await page.evaluate(() => {
        const t = [...document.querySelectorAll('#calls li .toggle')].find((x) => x.offsetParent && x.textContent === '▸');
        t.click();
      });
      await page.waitForFunction((n) => [...document.querySelectorAll('#calls li')].filter((li) => li.offsetParent).length > n, before);
    });
    await timed('click: select another metric (visits)', async () => {
      await page.click('#metrics li >> text=Visits');
      await page.waitForFunction(() => window.cubekitViewer.state.metric === 'visits');
      await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
    });
    await timed('click: flat profile tab', async () => {
      await page.click('#tabs button[data-tab=flat]');
      await page.waitForSelector('#flat tr td');
    });
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
