// The viewer's speed on a large report (the README's viewer line): headless Chromium against
// `cubekit serve` over one report. Measures the first paint (page load until the call tree
// shows values: anchor open, one metric decoded) and later clicks (expand a call path, select
// another metric, open the flat profile tab, open the call graph tab — its first answer and the
// whole graph — select a metric with it shown, go back to a metric whose layout is kept, then
// every other tab once (sunburst, box plot, topology, POP, diff against the second report,
// source, iterations, scaling, the example plugin of web/examples) and every value mode of each
// pane), each until the page shows the answer, with the number of elements the view draws: the
// DOM elements inside the shown tab (or the pane) plus the boxes a canvas records
// (data-rects, data-arcs).
//
//   node bench/viewer_paint.js <cubekit binary> <report.cubex> [second report.cubex]
//
// The second report (diff, external percent) lies in the same folder; without it the report is
// compared with itself. PLUGINS=DIR: the example plugin from there (default web/examples).
//
// Runs from tests/browser (its node_modules has playwright-core): bench/viewer_paint.sh.
// DETAIL=1 adds under each click the API requests on their way during it (start..end after the
// click, bytes, when the answer's first byte came) and the page's long tasks (over 50 ms: parsing, layout, paint) after it.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'tests', 'browser', 'node_modules', 'playwright-core'));

const [cubekit, report, second = report] = process.argv.slice(2);
// The example plugin's folder (PLUGINS: another checkout's, to time another binary with the
// example plugin of its own version).
const plugins = process.env.PLUGINS || path.join(__dirname, '..', 'web', 'examples');

function startServer(root) {
  return new Promise((resolve, reject) => {
    const p = spawn(cubekit, ['serve', '--root', root, '--port', '0', '--plugins', plugins]);
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

// A click timed by the page's own clock, as a user meets it: from the click event (dispatched
// in the page, as a user's click arrives, after its pointerdown) until the DOM shows the answer (`until` holds, checked
// on every DOM change) and the next frame is drawn. Playwright's page.click would add its
// actionability checks (two animation frames, hit tests: 60-90 ms here) that no user waits for.
// `click` and `until` are function bodies run in the page.
// With `later` ({label, until}), also the time from the same click until `later.until` holds
// (e.g. the call graph's first answer, then the whole graph), plus one frame.
// `count` (a function body run in the page after the answer) gives the drawn elements; by
// default those of the shown tab.
const SHOWN_TAB = "return __drawn(document.querySelector('#bottom .tab:not([hidden])'));";
async function timed(page, label, click, until, later = null, count = SHOWN_TAB) {
  if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
  const { times: ms, requests } = await page.evaluate(({ click, until, last }) => new Promise((resolve, reject) => {
    // The API requests on their way during the click (started before it, too), by the
    // browser's resource timing: [endpoint, start, end (ms after the click), bytes].
    // Then the page's long tasks (over 50 ms: JSON parsing, layout, painting) after the click.
    const requestsSince = (t0) => [...performance.getEntriesByType('resource')
      .filter((e) => e.name.includes('/api/v1/') && e.responseEnd > t0)
      .map((e) => [new URL(e.name).pathname.slice(8), e.startTime - t0, e.responseEnd - t0, e.encodedBodySize, e.responseStart - t0]),
    ...window.__longTasks.filter((e) => e.startTime + e.duration > t0)
      .map((e) => ['long task', e.startTime - t0, e.startTime + e.duration - t0, 0])];
    const conditions = [until, ...(last ? [last] : [])].map((body) => new Function(body));
    const times = [];
    const t0 = performance.now();
    const check = () => {
      while (times.length < conditions.length && conditions[times.length]()) {
        const i = times.length;
        times.push(null);
        requestAnimationFrame(() => {
          times[i] = performance.now() - t0;
          if (times.every((t) => t !== null) && times.length === conditions.length) resolve({ times, requests: requestsSince(t0) });
        });
      }
      if (times.length === conditions.length) { observer.disconnect(); clearTimeout(timeout); }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    const timeout = setTimeout(() => { observer.disconnect(); reject(new Error('no answer in 10 s')); }, 10000);
    // A user's click starts with a pointerdown, which tells the viewer the user is busy (its
    // idle-time work, other metrics' totals, then waits); element.click() alone fires none.
    document.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    new Function(click)();
    check();
  }), { click, until, last: later && later.until });
  const drawn = await page.evaluate((body) => new Function(body)(), count);
  console.log(`| ${label} | ${ms[0].toFixed(0)} ms | ${drawn} |`);
  // DETAIL=1: what the click waited for on the network; the rest of its time is parsing,
  // the viewer's own work and painting.
  if (process.env.DETAIL) for (const [name, start, end, bytes, firstByte] of requests)
    console.log(`|   ${name}: ${start.toFixed(0)}..${end.toFixed(0)} ms${bytes ? `, ${(bytes / 1e3).toFixed(0)} kB, first byte at ${firstByte.toFixed(0)} ms` : ''} | | |`);
  if (later) console.log(`| ${later.label} | ${ms[1].toFixed(0)} ms | |`);
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
    console.log(`| ${name} (${(fs.statSync(report).size / 1e9).toFixed(2)} GB) | time | drawn elements |`);
    console.log('|---|---:|---:|');
    // First paint: from the navigation's start (the first request) until the call tree shows
    // values, by the page's own clock (Chromium's start-up is not the viewer's).
    await page.goto(`${server.url}?report=${encodeURIComponent(name)}`);
    await page.evaluate(() => {
      performance.setResourceTimingBufferSize(100000);
      window.__longTasks = [];
      new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries())).observe({ type: 'longtask', buffered: true });
      // The elements a view draws: DOM elements below `root`, plus the boxes its canvases record.
      window.__drawn = (root) => (root ? root.querySelectorAll('*').length + [...root.querySelectorAll('canvas')]
        .reduce((n, c) => n + Number(c.dataset.rects || c.dataset.arcs || c.dataset.cells || 0), 0) : 0);
    });
    await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
    const paint = await page.evaluate(() => performance.now());
    console.log(`| first paint: first request until the call tree shows values | ${paint.toFixed(0)} ms | ${await page.evaluate(() => __drawn(document.getElementById('calls')))} in the call pane |`);
    await timed(page, 'click: expand the first call path with children', `
      const visible = () => [...document.querySelectorAll('#calls li')].filter((li) => li.offsetParent).length;
      window.__rowsBefore = visible();
      [...document.querySelectorAll('#calls li .toggle')].find((x) => x.offsetParent && x.textContent === '▸').click();`,
    `return [...document.querySelectorAll('#calls li')].filter((li) => li.offsetParent).length > window.__rowsBefore;`);
    // Another metric is answered when the call pane shows its values (its caption names it).
    await timed(page, 'click: select another metric (visits)', `
      [...document.querySelectorAll('#metrics li .row')].find((r) => r.querySelector('.name').textContent === 'Visits').click();`,
    `return document.getElementById('call-caption').textContent.startsWith('(visits');`);
    await timed(page, 'click: flat profile tab', `
      document.querySelector('#tabs button[data-source=flat]').click();`,
    `return document.querySelector('#flat tr td') !== null;`);
    // The call graph's first answer (the selected region's callers and callees while the worker
    // lays out a shape not seen before), then the whole graph.
    await timed(page, 'click: call graph tab, first answer', `
      document.querySelector('#tabs button[data-source=callgraph]').click();`,
    `return document.querySelector('#callgraph g.node') !== null;`,
    { label: 'the same click until the whole call graph is drawn (laid out by dagre)', until: `return document.querySelector('#callgraph[data-stage=whole]') !== null;` });
    await timed(page, 'click: select another metric with the call graph shown (time)', `
      [...document.querySelectorAll('#metrics li .row')].find((r) => r.querySelector('.name').textContent === 'Time').click();`,
    `return (document.querySelector('.callgraph .caption') || { textContent: '' }).textContent.startsWith('time');`,
    { label: 'the same click until the whole call graph of time is drawn', until: `return (document.querySelector('.callgraph .caption') || { textContent: '' }).textContent.startsWith('time') && document.querySelector('#callgraph[data-stage=whole]') !== null;` });
    // Back to visits: its layout is kept, so the graph is only drawn again.
    await timed(page, 'click: back to visits with the call graph shown (layout kept)', `
      [...document.querySelectorAll('#metrics li .row')].find((r) => r.querySelector('.name').textContent === 'Visits').click();`,
    `return (document.querySelector('.callgraph .caption') || { textContent: '' }).textContent.startsWith('visits') && document.querySelector('#callgraph[data-stage=whole]') !== null;`);
    await otherTabs(page, path.basename(second));
    await valueModes(page, path.basename(second));
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

// Every other tab, first shown (the selection: visits at the first call path), until its answer.
async function otherTabs(page, second) {
  const tab = (source, label, until) => timed(page, `click: ${label} tab`, `
    document.querySelector('#tabs button[data-source="${source}"]').click();`, until);
  await tab('sunburst', 'sunburst', `return Number((document.getElementById('sunburst') || { dataset: {} }).dataset.arcs) > 0;`);
  await tab('box', 'box plot', `return document.querySelector('#box rect') !== null;`);
  await tab('topology', 'topology', `return document.querySelector('#topology table, #topology') !== null && document.getElementById('topology').childNodes.length > 0;`);
  await tab('pop', 'POP', `return document.querySelector('#pop tr td') !== null;`);
  // The diff tab is ready when the reports to compare with are listed.
  await tab('diff', 'diff', `return document.querySelector('#compare option[value="${second}"]') !== null;`);
  await timed(page, `click: diff, compare with ${second}`, `
    const s = document.getElementById('compare');
    s.value = ${JSON.stringify(second)};
    s.dispatchEvent(new Event('change'));`,
  `return document.querySelector('#diff tr td') !== null;`);
  await tab('source', 'source', `return document.getElementById('source-head') && document.getElementById('source-head').textContent !== '';`);
  await tab('iterations', 'iterations', `return document.querySelector('.iterations p') !== null;`);
  await tab('scaling', 'scaling', `return document.getElementById('scaling-message') && document.getElementById('scaling-message').textContent !== '';`);
  await tab('hotspots.js', 'example plugin (hotspots)', `return document.querySelector('#hotspots tr') !== null;`);
  await tab('flame', 'flame graph', `return Number(document.getElementById('flame').dataset.rects) > 0;`);
}

// Every value mode of each pane (the flame graph shown), until the pane shows it; external
// percent compares with the second report.
async function valueModes(page, second) {
  const modes = { metrics: ['root', 'metric', 'external', 'abs'], calls: ['root', 'metric', 'calls', 'external', 'abs'],
    system: ['root', 'metric', 'calls', 'system', 'peer', 'peerdist', 'external', 'abs'] };
  await timed(page, `click: external report ${second}`, `
    const s = document.getElementById('external');
    s.value = ${JSON.stringify(second)};
    s.dispatchEvent(new Event('change'));`, 'return true;', null, "return 0;");
  for (const [pane, list] of Object.entries(modes)) {
    for (const mode of list) {
      // Shown: the pane's caption says % (or not, for absolute) and, for external percent,
      // the other report's values have come.
      const shown = mode === 'abs' ? `document.getElementById('${pane}-unit').textContent !== '%'`
        : `document.getElementById('${pane}-unit').textContent === '%'`;
      const external = mode !== 'external' ? 'true'
        : pane === 'metrics' ? '[...cubekitViewer.state.ext.metricTotals.values()].length > 0'
          : 'cubekitViewer.state.ext.calls !== null';
      // External percent of the call or system pane waits for this click's /diff answer, not
      // for one an earlier click left.
      const forget = mode === 'external' && pane !== 'metrics' ? 'cubekitViewer.state.ext.calls = null;' : '';
      await timed(page, `click: ${pane} pane, ${mode}`, `
        ${forget}
        const s = document.getElementById('${pane}-mode');
        s.value = '${mode}';
        s.dispatchEvent(new Event('change'));`,
      `return ${shown} && ${external};`, null, `return __drawn(document.getElementById('${pane}'));`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
