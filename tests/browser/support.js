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

module.exports = { startServer, launchBrowser, api, apiValues };
