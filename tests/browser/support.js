// What the browser tests share: a `cubekit serve` on a free port, headless Chromium, the API.
'use strict';
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');

function startServer(cubekit, root, extra = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(cubekit, ['serve', '--root', root, '--port', '0', ...extra]);
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ proc: p, url: m[0] });
    });
    p.on('exit', (code) => reject(new Error(`cubekit serve exited with ${code}`)));
    setTimeout(() => reject(new Error('cubekit serve did not print its URL')), 10000);
  });
}

// A fresh profile folder (--user-data-dir), which the caller removes at the end.
function launchBrowser(profile) {
  return chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    bypassCSP: true, // playwright evaluates its waits as strings; the page itself keeps the policy
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

async function api(url, endpoint, params = {}) {
  const res = await fetch(`${url}api/v1/${endpoint}?${new URLSearchParams(params)}`);
  const body = await res.json();
  if (!res.ok) throw new Error(`${endpoint}: ${body.error}`);
  return body;
}

async function apiValues(url, params) {
  return new Map((await api(url, 'values', params)).values);
}

// A new page of the viewer on `report` of the server at `url`, once the call tree shows values;
// the page's uncaught errors collect in page.errors (a test ends asserting it is empty).
async function openPage(ctx, url, report) {
  const page = await ctx.browser.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${url}?report=${encodeURIComponent(report)}`);
  await page.evaluate(() => window.cubekitViewer.ready);
  await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
  return page;
}

module.exports = { startServer, launchBrowser, api, apiValues, openPage };
