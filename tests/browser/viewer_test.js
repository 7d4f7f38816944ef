// Headless Chromium against `cubekit serve` on a real profile: the numbers the viewer shows
// must be the API's. Usage: node viewer_test.js <cubekit binary> <shared dir> <screenshot dir>
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const support = require('./support');
const { launchBrowser } = support;
const { externalOnOpening, valueModes, staleAnswers, htmlNeverInterpreted, examplePlugin, topologies, sunburst, sourceView } = require('./plugins_test');
const { derivedMetrics } = require('./derived_test');
const { callGraph } = require('./callgraph_test');
const { iterations } = require('./iterations_test');
const { viewModes } = require('./view_modes_test');
const { scalingTab } = require('./scaling_test');

const [cubekit, shared, shots] = process.argv.slice(2);
const REPORT = 'pycubexr/call_tree_test/call_tree_test.cubex';

// The server over the real profiles, with the example plugin of docs/viewer.md.
const EXAMPLES = path.join(__dirname, '..', '..', 'web', 'examples');
const startServer = (root = path.join(shared, 'data', 'real')) =>
  support.startServer(cubekit, root, ['--plugins', EXAMPLES]);
const apiValues = support.apiValues;

// Spans of the whole call tree laid out here, as the viewer did before it asked the server
// for the drawn ones only (/flame): the roots share `extent` by their inclusive values
// (negative ones count 0), each call path's children share its span; a span narrower than
// `min` is left out with all below it but still takes its room; depths up to `maxDepth`.
function spansOfWholeTree(calls, incl, extent, min, maxDepth) {
  const kids = new Map();
  for (const c of calls) (kids.get(c.parent) || kids.set(c.parent, []).get(c.parent)).push(c);
  const roots = kids.get(null) || [];
  const total = roots.reduce((s, c) => s + Math.max(0, incl.get(c.id) || 0), 0) || 1;
  const out = [];
  const place = (list, start, depth) => {
    for (const c of list) {
      const span = (Math.max(0, incl.get(c.id) || 0) / total) * extent;
      if (span >= min) {
        out.push([c.id, depth, start, span, incl.get(c.id)]);
        if (depth < maxDepth) place(kids.get(c.id) || [], start, depth + 1);
      }
      start += span;
    }
  };
  place(roots, 0, 0);
  return out;
}

// The flame graph's boxes and the sunburst's arcs are those of the whole tree, to the bit.
async function sameSpansAsTheWholeTree(page, calls, incl) {
  const width = await page.$eval('#flame', (c) => c.width);
  const flame = await page.evaluate(async () => (await import('/plugins/flame.js')).drawn()
    .map((r) => [r.c.id, r.y / 17, r.x, r.w, r.v]));
  assert.deepStrictEqual(flame, spansOfWholeTree(calls, incl, width, 0.5, 60), 'flame graph boxes');
  const arcs = await page.evaluate(async () => (await import('/plugins/sunburst.js')).drawn()
    .map((r) => [r.c.id, r.depth, r.a0, r.a1, r.v]));
  const expected = spansOfWholeTree(calls, incl, 2 * Math.PI, Math.PI / 720, 12)
    .map(([id, depth, start, span, v]) => [id, depth, start, start + span, v]);
  assert.deepStrictEqual(arcs, expected, 'sunburst arcs');
}

// Opens the viewer on a generated report of 100,000 call paths and checks what it draws.
async function openGenerated(browser, root) {
  const server = await startServer(root);
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}?report=big.cubex`);
    await page.evaluate(() => window.cubekitViewer.ready);
    await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
    const tree = await (await fetch(`${server.url}api/v1/tree?report=big.cubex`)).json();
    assert.strictEqual(tree.cnode_count, 100000);
    const incl = await apiValues(server.url, { report: 'big.cubex', metric: 'time', calltree: 'incl' });
    const excl = await apiValues(server.url, { report: 'big.cubex', metric: 'time', calltree: 'excl' });
    const shown = async () => page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent)
      .map((li) => ({ id: li._node.c.id, expanded: li._node.expanded,
        value: Number(li.querySelector('.value').dataset.value) })));
    let rows = await shown();
    const drawn = await page.$$eval('#calls li', (lis) => lis.length);
    assert.ok(rows.length >= 2 && drawn < 2000, `lazy call tree: ${drawn} items drawn of 100,000`);
    for (const r of rows) assert.strictEqual(r.value, (r.expanded ? excl : incl).get(r.id));
    // Expand the first collapsed call path that has children.
    const parents = new Set(tree.calls.filter((c) => c.parent !== null).map((c) => c.parent));
    const target = rows.find((r) => !r.expanded && parents.has(r.id));
    assert.ok(target, 'a collapsed call path with children');
    const before = rows.length;
    await page.$$eval('#calls li', (lis, id) => {
      const li = lis.find((x) => x._node.c.id === id);
      li.firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    }, target.id);
    await page.waitForFunction((n) => [...document.querySelectorAll('#calls li')].filter((li) => li.offsetParent).length > n, before);
    rows = await shown();
    assert.strictEqual(rows.find((r) => r.id === target.id).value, excl.get(target.id));
    for (const r of rows) assert.strictEqual(r.value, (r.expanded ? excl : incl).get(r.id));
    await page.screenshot({ path: path.join(shots, '10-100k-call-paths.png') });
    // The flame graph, the sunburst and the call graph draw a few thousand elements at most.
    await page.click('#tabs button[data-source=flame]');
    await page.waitForFunction(() => Number(document.getElementById('flame').dataset.rects) > 0);
    await page.click('#tabs button[data-source=sunburst]');
    await page.waitForFunction(() => Number(document.getElementById('sunburst').dataset.arcs) > 0);
    await page.click('#tabs button[data-source=callgraph]');
    await page.waitForFunction(() => document.getElementById('callgraph') && Number(document.getElementById('callgraph').dataset.elements) > 0, null, { timeout: 60000 });
    const drawnBoxes = await page.evaluate(() => [Number(document.getElementById('flame').dataset.rects), Number(document.getElementById('sunburst').dataset.arcs),
      Number(document.getElementById('callgraph').dataset.elements)]);
    assert.ok(drawnBoxes.every((n) => n < 5000), `boxes drawn: ${drawnBoxes}`);
    await sameSpansAsTheWholeTree(page, tree.calls, incl);
    return { errors };
  } finally {
    server.proc.kill('SIGTERM');
  }
}

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-chromium-'));
  // The generated report of 100,000 call paths, in a folder of its own (removed at the end).
  const generated = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-100k-'));
  const gen = spawnSync(cubekit, ['generate', '--call-paths', '100000', '--size', '40MB', '-o',
    path.join(generated, 'big.cubex')]);
  assert.strictEqual(gen.status, 0, String(gen.stderr));
  const server = await startServer();
  const browser = await launchBrowser(profile);
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}?report=${encodeURIComponent(REPORT)}`);
    await page.evaluate(() => window.cubekitViewer.ready);
    await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, '1-opened.png') });

    // The metric selected first is `time`; the root is expanded (exclusive), main collapsed.
    const shown = async () => page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent)
      .map((li) => ({ name: li._node.c.name, id: li._node.c.id, expanded: li._node.expanded,
        value: Number(li.querySelector('.value').dataset.value), text: li.querySelector('.value').textContent })));
    const incl = await apiValues(server.url, { report: REPORT, metric: 'time', calltree: 'incl' });
    const excl = await apiValues(server.url, { report: REPORT, metric: 'time', calltree: 'excl' });
    let rows = await shown();
    assert.ok(rows.length >= 2, 'call tree shows the root and its children');
    for (const r of rows) assert.strictEqual(r.value, (r.expanded ? excl : incl).get(r.id), `${r.name}`);

    // Expand `main`: it now shows its exclusive value; its children their inclusive ones.
    const main = rows.find((r) => r.name === 'main');
    await page.click(`#calls li >> text=main`, { clickCount: 2 });
    await page.waitForFunction(() => [...document.querySelectorAll('#calls li')].filter((li) => li.offsetParent).length > 3);
    rows = await shown();
    assert.strictEqual(rows.find((r) => r.id === main.id).value, excl.get(main.id));
    for (const r of rows) assert.strictEqual(r.value, (r.expanded ? excl : incl).get(r.id), `${r.name} after expanding`);

    // Select a call path: the system pane shows its per-location values.
    const leaf = rows.find((r) => r.name === 'bool');
    await page.click('#calls li >> text=bool');
    await page.waitForTimeout(300);
    const perLoc = await apiValues(server.url, { report: REPORT, metric: 'time', calltree: 'incl', cnode: leaf.id });
    const sys = await page.$$eval('#system li', (lis) => lis.map((li) => Number(li.querySelector('.value').dataset.value)));
    const total = [...perLoc.values()].reduce((s, v) => s + v, 0);
    assert.ok(Math.abs(sys[0] - total) <= 1e-12 * Math.abs(total), `system root ${sys[0]} = ${total}`);

    // Another metric: visits.
    await page.click('#metrics li >> text=Visits');
    await page.waitForTimeout(400);
    const visits = await apiValues(server.url, { report: REPORT, metric: 'visits', calltree: 'incl' });
    rows = await shown();
    const bool = rows.find((r) => r.id === leaf.id);
    assert.strictEqual(bool.value, visits.get(leaf.id), 'bool visits');
    await page.screenshot({ path: path.join(shots, '2-visits.png') });

    // Own root percent: main's share of the root's inclusive value, to 2 decimals.
    await page.selectOption('#calls-mode', 'root');
    await page.click('#metrics li >> text=Time');
    await page.waitForTimeout(400);
    await page.click('#calls li >> text=main', { clickCount: 2 }); // collapse main again
    await page.waitForTimeout(300);
    rows = await shown();
    const rootId = rows[0].id;
    assert.strictEqual(rows.find((r) => r.id === main.id).text, (100 * incl.get(main.id) / incl.get(rootId)).toFixed(2));
    assert.strictEqual(await page.textContent('#calls-unit'), '%');

    // main is selected and collapsed: the system pane shows its inclusive value.
    await page.waitForTimeout(300);
    const mainIncl = await apiValues(server.url, { report: REPORT, metric: 'time', calltree: 'incl', cnode: main.id });
    const sysMain = await page.$$eval('#system li', (lis) => lis.map((li) => Number(li.querySelector('.value').dataset.value)));
    assert.strictEqual(sysMain[0], mainIncl.get(0), 'system pane follows the collapsed call path');

    // Flame graph: drawn, and a click selects a call path.
    await page.selectOption('#calls-mode', 'abs');
    await page.click('#tabs button[data-source=flame]');
    await page.waitForFunction(() => Number(document.getElementById('flame').dataset.rects) > 5);
    await page.screenshot({ path: path.join(shots, '3-flame.png') });
    await page.click('#tabs button[data-source=box]');
    await page.waitForFunction(() => document.getElementById('box').dataset.median !== undefined);
    await page.screenshot({ path: path.join(shots, '4-box.png') });

    // Keyboard: ↑ moves the selection in the focused call tree.
    await page.focus('#calls');
    const before = await page.evaluate(() => window.cubekitViewer.state.cnode);
    await page.keyboard.press('ArrowUp');
    await page.waitForTimeout(200);
    assert.notStrictEqual(await page.evaluate(() => window.cubekitViewer.state.cnode), before);

    // Diff (a plugin) against another report with the same call tree shape: the table and the
    // marks on the call tree rows say 0 everywhere.
    await page.click('#tabs button[data-source=diff]');
    await page.waitForSelector('#compare option:nth-child(2)', { state: 'attached' });
    await page.selectOption('#compare', REPORT);
    await page.waitForSelector('#diff tr td');
    const diffs = await page.$$eval('#diff td[data-diff]', (tds) => tds.map((td) => Number(td.dataset.diff)));
    assert.ok(diffs.length > 0 && diffs.every((d) => d === 0), 'a report minus itself is 0 everywhere');
    const marks = await page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent).map((li) => li.querySelector('.mark').textContent));
    assert.ok(marks.length > 0 && marks.every((m) => m.startsWith('Δ 0 (')), marks.join(' | '));
    await page.screenshot({ path: path.join(shots, '5-diff.png') });
    await page.selectOption('#compare', '');
    await page.waitForFunction(() => [...document.querySelectorAll('#calls .mark')].every((m) => m.textContent === ''));
    // The report the diff tab prepares before one is chosen: in the open report's folder, the
    // one of the nearest size (not another folder's of the same size); none without another.
    const partners = await page.evaluate(async () => {
      const { likelyPartner } = await import('./plugins/diff.js');
      const reports = [{ path: 'a/x.cubex', size: 100 }, { path: 'a/y.cubex', size: 130 },
        { path: 'a/z.cubex', size: 90 }, { path: 'b/w.cubex', size: 100 }, { path: 'top.cubex', size: 100 }];
      return [likelyPartner('a/x.cubex', reports), likelyPartner('b/w.cubex', reports), likelyPartner('top.cubex', reports)];
    });
    assert.deepStrictEqual(partners, ['a/z.cubex', null, null]);
    // Opening a report asks the server to prepare the comparison with its likely partner (in
    // its folder, the nearest size) with the diff tab hidden, after the panes' first paint; the
    // server answers at once.
    await page.click('#tabs button[role=tab]');  // the first tab: the diff tab hidden
    const single = 'extrap/single_parameter/mm.x100y1z1.r1.cubex';
    const prepared = page.waitForResponse((r) => r.url().includes('/api/v1/diff?') &&
      new URL(r.url()).searchParams.get('prepare') === '1' && new URL(r.url()).searchParams.get('a') === single);
    await page.selectOption('#report', single);
    const preparation = await prepared;
    const asked = new URL(preparation.url()).searchParams;
    assert.strictEqual(asked.get('a'), single);
    assert.ok(asked.get('b').startsWith('extrap/single_parameter/') && asked.get('b') !== single, asked.get('b'));
    assert.strictEqual(typeof (await preparation.json()).preparing, 'boolean');
    assert.ok(await page.evaluate(() => document.title.includes('mm.x100y1z1')), 'asked after the first paint');
    // A Scalasca summary of many processes: its topology and the box plot over them.
    await page.selectOption('#report', 'cubelib/examples/summary.cubex');
    await page.waitForFunction(() => document.title.includes('summary.cubex'));
    await page.click('#tabs button[data-source=topology]');
    await page.waitForSelector('#topology table, #topology:not(:empty)');
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, '6-summary-topology.png') });
    await page.click('#tabs button[data-source=box]');
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, '7-summary-box.png') });
    // Flat profile: the 50 regions of largest exclusive time first, as the API gives them, and
    // the other 15 of summary.cubex's 65 on request.
    await page.click('#tabs button[data-source=flat]');
    await page.waitForSelector('#flat tr td');
    const flatApi = await (await fetch(`${server.url}api/v1/flat?${new URLSearchParams({ report: 'cubelib/examples/summary.cubex', metric: 'time', metric_flavour: 'incl' })}`)).json();
    const byExcl = flatApi.regions.filter((x) => x.excl !== 0 || x.subroutines !== 0).sort((a, b) => b.excl - a.excl);
    let flatShown = await page.$$eval('#flat tr', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((td) => td.textContent)));
    assert.strictEqual(byExcl.length, 65);
    assert.strictEqual(flatShown.length, 51, '50 regions and the row that shows the rest');
    assert.strictEqual(flatShown[50][0], '15 more regions: show all');
    for (let i = 0; i < 50; ++i) {
      assert.strictEqual(flatShown[i][0], byExcl[i].name);
      assert.ok(Math.abs(Number(flatShown[i][1]) - byExcl[i].excl) <= 5e-6 * Math.abs(byExcl[i].excl) + 1e-12, byExcl[i].name);
    }
    await page.click('#flat-all');
    await page.waitForFunction(() => document.querySelectorAll('#flat tr').length === 66);
    flatShown = await page.$$eval('#flat tr', (trs) => trs.slice(1).map((tr) => tr.cells[0].textContent));
    assert.deepStrictEqual(flatShown, byExcl.map((x) => x.name));
    await page.screenshot({ path: path.join(shots, '8-summary-flat.png') });
    // POP efficiencies of the roots: the table shows the API's numbers, each to 6 digits.
    await page.click('#tabs button[data-source=pop]');
    await page.waitForSelector('#pop tr td');
    const popShown = await page.$$eval('#pop tr', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((td) => td.textContent)));
    const cnode = await page.evaluate(() => window.cubekitViewer.state.cnode);
    const popParams = { report: 'cubelib/examples/summary.cubex', model: 'mpi' };
    if (cnode !== null) popParams.focus = String(cnode);
    const pop = await (await fetch(`${server.url}api/v1/pop?${new URLSearchParams(popParams)}`)).json();
    const expected = pop.results[0].values;
    assert.strictEqual(popShown.length, expected.length, 'one row per POP metric');
    for (let i = 0; i < expected.length; ++i) {
      assert.strictEqual(popShown[i][0], expected[i].label);
      if (expected[i].value === null) assert.strictEqual(popShown[i][1], '–', expected[i].key);
      else assert.ok(Math.abs(Number(popShown[i][1]) - expected[i].value) <= 5e-6 * Math.abs(expected[i].value) + 1e-12, expected[i].key);
    }
    await page.screenshot({ path: path.join(shots, '9-summary-pop.png') });

    // A report of 100,000 call paths (generated): the call tree is drawn lazily — the root and
    // its children, not the whole tree — and shows the API's numbers, also after expanding.
    const big = await openGenerated(browser, generated);
    assert.deepStrictEqual(big.errors, []);

    // The plugin interface, value modes, stale answers and report strings (plugins_test.js).
    const context = { browser, cubekit, shared, shots, url: server.url, examples: EXAMPLES };
    await examplePlugin(context);
    await valueModes(context);
    await externalOnOpening(context);
    await staleAnswers(context);
    await htmlNeverInterpreted(context);
    await topologies(context);
    await sunburst(context);
    await sourceView(context);
    await derivedMetrics(context);
    await callGraph(context);
    await iterations(context);
    await viewModes(context);
    await scalingTab(context);
    assert.deepStrictEqual(errors, []);
    console.log('browser test passed; screenshots in', shots);
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    fs.rmSync(profile, { recursive: true, force: true });
    fs.rmSync(generated, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
