// Browser tests of the plugin interface (the example plugin loaded with --plugins), CubeGUI's
// value modes against numbers computed here from the API's, stale answers when the user
// switches quickly, and report strings that must stay text. Called from viewer_test.js.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const { startServer, api, apiValues, openPage } = require('./support');

const SUMMARY = 'cubelib/examples/summary.cubex';
const CALL_TREE = 'pycubexr/call_tree_test/call_tree_test.cubex';


// The visible rows of a pane: the id the row stands for, whether it is expanded, its text.
const rowsOf = (page, pane) => page.$$eval(`#${pane} li`, (lis) => lis.filter((li) => li.offsetParent).map((li) => {
  const n = li._node;
  return { id: n.c ? n.c.id : n.m ? n.m.uniq_name : n.loc ? n.loc.id : null, isLocation: !!n.loc, label: n.label,
    expanded: n.expanded, parent: n.c ? null : undefined, text: li.querySelector('.value').textContent,
    mark: li.querySelector('.mark').textContent };
}));

// The number a row's text stands for, with the pane's common exponent; the text's last digit
// is the precision.
async function checkPane(page, pane, expected, what, sixDigits = false) {
  const exponent = Number(await page.$eval(`#${pane}-unit`, (e) => e.dataset.exponent));
  const rows = (await rowsOf(page, pane)).filter((r) => expected(r) !== undefined);
  assert.ok(rows.length > 0, `${what}: rows to check`);
  for (const r of rows) {
    const want = expected(r);
    if (!Number.isFinite(want)) { assert.strictEqual(r.text, '–', `${what} ${r.label}`); continue; }
    const got = Number(r.text) * 10 ** exponent;
    // Six significant digits (the metric pane's own format, "1.23457e+9"), or half a unit of
    // the last decimal.
    const decimals = (r.text.split('.')[1] || '').length;
    const tolerance = sixDigits || /e/.test(r.text) ? 5e-6 * Math.abs(want)
      : 0.5000001 * 10 ** (exponent - decimals) + 1e-12 * Math.abs(want);
    assert.ok(Math.abs(got - want) <= tolerance, `${what} ${r.label}: shows ${r.text} ×10^${exponent}, expected ${want}`);
  }
  return rows;
}

async function selectMode(page, pane, mode) {
  await page.selectOption(`#${pane}-mode`, mode);
  await page.waitForTimeout(300);
}

// The example plugin of docs/viewer.md, loaded from the folder named with --plugins: its tab,
// its table (the ten largest exclusive values, computed here from /values) and its marks.
async function examplePlugin(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  const button = await page.waitForSelector('#tabs button[data-source="hotspots.js"]');
  assert.strictEqual(await button.textContent(), 'Hotspots');
  assert.match(await button.getAttribute('title'), /ten call paths/);
  await button.click();
  await page.waitForSelector('#hotspots tr');
  const excl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'excl' });
  const names = new Map((await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls.map((c) => [c.id, c.name]));
  const top = [...excl].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]).slice(0, 10);
  const shown = await page.$$eval('#hotspots tr', (trs) => trs.map((tr) => ({ id: Number(tr.dataset.cnode), cells: [...tr.cells].map((td) => td.textContent) })));
  assert.strictEqual(shown.length, 10);
  shown.forEach((row, i) => {
    assert.strictEqual(row.id, top[i][0]);
    assert.deepStrictEqual(row.cells.slice(0, 2), [`#${i + 1}`, names.get(top[i][0])]);
    assert.ok(Math.abs(Number(row.cells[2]) - top[i][1]) <= 5e-6 * top[i][1], row.cells.join(' '));
  });
  const rank = new Map(top.map(([id], i) => [id, `#${i + 1}`]));
  for (const r of await rowsOf(page, 'calls')) assert.strictEqual(r.mark, rank.get(r.id) || '', r.label);
  // A click on a row selects its call path in the call tree.
  await page.click('#hotspots tr:nth-child(3)');
  await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, top[2][0]);
  await page.screenshot({ path: path.join(ctx.shots, '11-example-plugin.png') });
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// Opens the system tree down to its first locations (double clicks, as a user does).
async function expandSystem(page) {
  for (let level = 0; level < 6; ++level) {
    const opened = await page.$$eval('#system li', (lis) => {
      const li = lis.find((x) => x.offsetParent && x._node.hasKids && !x._node.expanded);
      if (li) li.firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
      return !!li;
    });
    if (!opened) break;
    await page.waitForTimeout(150);
  }
}

// Every mode of every pane on summary.cubex, against numbers computed here from the API.
async function valueModes(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  const P = { report: SUMMARY, metric: 'time' };
  const incl = await apiValues(ctx.url, { ...P, calltree: 'incl' });
  const excl = await apiValues(ctx.url, { ...P, calltree: 'excl' });
  const calls = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls;
  const parent = new Map(calls.map((c) => [c.id, c.parent]));
  const rootOf = (id) => { while (parent.get(id) !== null) id = parent.get(id); return id; };
  const total = calls.filter((c) => c.parent === null).reduce((s, c) => s + incl.get(c.id), 0);
  const abs = (r) => (r.expanded ? excl : incl).get(r.id);
  const pct = (v, ref) => (ref ? (100 * v) / ref : NaN);
  const selected = await page.evaluate(() => { const n = document.querySelector('#calls .row.selected').parentNode._node; return { id: n.c.id, expanded: n.expanded }; });
  const selectedValue = abs(selected);

  // Call tree: absolute (common exponent), own root, metric selection, call selection.
  const absRows = await checkPane(page, 'calls', abs, 'calls absolute');
  const max = Math.max(...absRows.map((r) => Math.abs(abs(r))));
  const e = Math.floor(Math.log10(max));
  assert.strictEqual(Number(await page.$eval('#calls-unit', (x) => x.dataset.exponent)), e >= 0 && e < 3 ? 0 : e);
  assert.match(await page.textContent('#calls-unit'), /sec$/);
  await selectMode(page, 'calls', 'root');
  await checkPane(page, 'calls', (r) => pct(abs(r), incl.get(rootOf(r.id))), 'calls own root %');
  await selectMode(page, 'calls', 'metric');
  await checkPane(page, 'calls', (r) => pct(abs(r), total), 'calls metric selection %');
  await selectMode(page, 'calls', 'calls');
  await checkPane(page, 'calls', (r) => pct(abs(r), selectedValue), 'calls call selection %');
  await page.screenshot({ path: path.join(ctx.shots, '12-modes-calls.png') });
  await selectMode(page, 'calls', 'abs');

  // System tree at the selected call path: per location from /values?cnode.
  await expandSystem(page);
  const perLoc = await apiValues(ctx.url, { ...P, calltree: selected.expanded ? 'excl' : 'incl', cnode: selected.id });
  const locs = [...perLoc.values()];
  const loc = (r) => (r.isLocation ? perLoc.get(r.id) : undefined);
  await checkPane(page, 'system', loc, 'system absolute');
  await selectMode(page, 'system', 'calls');
  await checkPane(page, 'system', (r) => (r.isLocation ? pct(perLoc.get(r.id), selectedValue) : undefined), 'system call selection %');
  await selectMode(page, 'system', 'metric');
  await checkPane(page, 'system', (r) => (r.isLocation ? pct(perLoc.get(r.id), total) : undefined), 'system metric selection %');
  await selectMode(page, 'system', 'peer');
  await checkPane(page, 'system', (r) => (r.isLocation ? pct(perLoc.get(r.id), Math.max(...locs)) : undefined), 'system peer %');
  await selectMode(page, 'system', 'peerdist');
  const lo = Math.min(...locs), hi = Math.max(...locs);
  await checkPane(page, 'system', (r) => (r.isLocation ? (hi > lo ? (100 * (perLoc.get(r.id) - lo)) / (hi - lo) : 0) : undefined), 'system peer distribution');
  // System selection: a location picked in the pane is 100 %, the others relative to it.
  const pick = (await rowsOf(page, 'system')).filter((r) => r.isLocation && perLoc.get(r.id) > 0).pop();
  await page.$$eval('#system li', (lis, id) => lis.find((li) => li._node.loc && li._node.loc.id === id).firstChild.click(), pick.id);
  await selectMode(page, 'system', 'system');
  await checkPane(page, 'system', (r) => (r.isLocation ? pct(perLoc.get(r.id), perLoc.get(pick.id)) : undefined), 'system selection %');
  await page.screenshot({ path: path.join(ctx.shots, '13-modes-system.png') });
  // Own root percent of a location: against the whole system tree's root (all locations).
  await selectMode(page, 'system', 'root');
  await checkPane(page, 'system', (r) => (r.isLocation ? pct(perLoc.get(r.id), locs.reduce((s, v) => s + v, 0)) : undefined), 'system own root %');

  // Metric tree: own root percent of each metric against its root's total (/children).
  const totalOf = async (metric, flavour) => (await api(ctx.url, 'children', { report: SUMMARY, metric, metric_flavour: flavour })).cnodes.reduce((s, c) => s + c.incl, 0);
  await page.$$eval('#metrics li', (lis) => lis.find((li) => li._node.m.uniq_name === 'time').firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true })));
  await selectMode(page, 'metrics', 'root');
  await page.waitForTimeout(1200); // the other metrics' totals come when the user pauses
  const rows = await rowsOf(page, 'metrics');
  const tree = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'metrics' })).metrics;
  const byId = new Map(tree.map((m) => [m.id, m]));
  const rootName = (name) => { let m = tree.find((x) => x.uniq_name === name); while (m.parent !== null) m = byId.get(m.parent); return m.uniq_name; };
  const expected = new Map();
  for (const r of rows) expected.set(r.id, pct(await totalOf(r.id, r.expanded ? 'excl' : 'incl'), await totalOf(rootName(r.id), 'incl')));
  await checkPane(page, 'metrics', (r) => expected.get(r.id), 'metrics own root %');
  const absolute = new Map();
  for (const r of rows) absolute.set(r.id, await totalOf(r.id, r.expanded ? 'excl' : 'incl'));
  // Metric selection percent: against the selected metric (time, expanded: exclusive).
  await selectMode(page, 'metrics', 'metric');
  const timeExcl = await totalOf('time', 'excl');
  await checkPane(page, 'metrics', (r) => pct(absolute.get(r.id), timeExcl), 'metrics metric selection %');
  await selectMode(page, 'metrics', 'abs');
  await checkPane(page, 'metrics', (r) => absolute.get(r.id), 'metrics absolute', true);
  const units = await page.$$eval('#metrics li', (lis) => lis.filter((li) => li.offsetParent).map((li) => [li._node.m.uniq_name, li.querySelector('.uom').textContent]));
  for (const [name, uom] of units) assert.strictEqual(uom, tree.find((m) => m.uniq_name === name).uom, `unit of ${name}`);
  assert.ok([...expected.keys()].some((k) => rootName(k) === 'time' && k !== 'time'), 'a child of time checked');
  await page.screenshot({ path: path.join(ctx.shots, '14-modes-metrics.png') });
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// Answers of a report the user has left arrive late (held back here): the viewer must show the
// report opened last, never the earlier one's numbers; the same for a metric clicked away.
async function staleAnswers(ctx) {
  const page = await openPage(ctx, ctx.url, CALL_TREE);
  await page.click('#tabs button[data-source=flat]');
  await page.waitForSelector('#flat tr td');
  const hold = (test, ms) => page.route('**/api/v1/**', async (route) => {
    if (test(new URL(route.request().url()).searchParams)) await new Promise((r) => setTimeout(r, ms));
    await route.continue().catch(() => {}); // an aborted request has no one to answer
  });
  await hold((q) => q.get('report') === SUMMARY || q.get('a') === SUMMARY, 1500);
  await page.selectOption('#report', SUMMARY);
  await page.waitForTimeout(50);
  await page.selectOption('#report', CALL_TREE);
  await page.waitForTimeout(2500);
  assert.match(await page.title(), /call_tree_test\.cubex$/);
  const incl = await apiValues(ctx.url, { report: CALL_TREE, metric: 'time', calltree: 'incl' });
  const excl = await apiValues(ctx.url, { report: CALL_TREE, metric: 'time', calltree: 'excl' });
  const rows = await page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent).map((li) => ({ id: li._node.c.id, name: li._node.c.name, expanded: li._node.expanded, value: Number(li.querySelector('.value').dataset.value) })));
  const names = new Set((await api(ctx.url, 'tree', { report: CALL_TREE, parts: 'calls' })).calls.map((c) => c.name));
  for (const r of rows) {
    assert.ok(names.has(r.name), `${r.name} is a call path of call_tree_test`);
    assert.strictEqual(r.value, (r.expanded ? excl : incl).get(r.id), r.name);
  }
  const system = (await api(ctx.url, 'tree', { report: CALL_TREE, parts: 'system' })).system;
  const rootNames = system.nodes.filter((n) => n.parent === null).map((n) => (n.class ? `${n.name} (${n.class})` : n.name));
  assert.deepStrictEqual(await page.$$eval('#system > li > .row .name', (e) => e.map((x) => x.textContent)), rootNames);
  const regions = new Set((await api(ctx.url, 'flat', { report: CALL_TREE, metric: 'time' })).regions.map((x) => x.name));
  const flat = await page.$$eval('#flat tr td:first-child', (tds) => tds.map((td) => td.textContent));
  assert.ok(flat.length > 0 && flat.every((n) => regions.has(n)), `flat profile of call_tree_test: ${flat}`);
  await page.unroute('**/api/v1/**');
  // Metrics clicked quickly: time's answers held back, visits' not; visits stays.
  await hold((q) => q.get('metric') === 'time', 1200);
  await page.click('#metrics li >> text=Visits');
  await page.click('#metrics li >> text=Time');
  await page.click('#metrics li >> text=Visits');
  await page.waitForTimeout(2000);
  const visits = await apiValues(ctx.url, { report: CALL_TREE, metric: 'visits', calltree: 'incl' });
  const vexcl = await apiValues(ctx.url, { report: CALL_TREE, metric: 'visits', calltree: 'excl' });
  assert.match(await page.textContent('#call-caption'), /^\(visits/);
  for (const r of await page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent).map((li) => ({ id: li._node.c.id, expanded: li._node.expanded, value: Number(li.querySelector('.value').dataset.value) }))))
    assert.strictEqual(r.value, (r.expanded ? vexcl : visits).get(r.id), `visits of ${r.id}`);
  await page.screenshot({ path: path.join(ctx.shots, '15-stale-answers.png') });
  // A hidden tab drops its pending answer: time's flat profile held back while the flame graph
  // tab is shown instead; the hidden table keeps visits' rows, and shows time's when shown again.
  await page.unroute('**/api/v1/**');
  const flatRows = () => page.$$eval('#flat tr:not(.more)', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((td) => td.textContent).join('|')));
  const visitsRows = await flatRows();
  await hold((q) => q.get('metric') === 'time' && q.has('top'), 1200);
  await page.click('#metrics li >> text=Time');
  await page.click('#tabs button[data-source=flame]');
  await page.waitForTimeout(2000);
  await page.unroute('**/api/v1/**');
  assert.deepStrictEqual(await flatRows(), visitsRows, 'the hidden flat tab kept its rows');
  const timeNames = (await api(ctx.url, 'flat', { report: CALL_TREE, metric: 'time', top: 50 })).regions.map((x) => x.name);
  await page.click('#tabs button[data-source=flat]');
  await page.waitForFunction((names) => JSON.stringify([...document.querySelectorAll('#flat tr:not(.more) td:first-child')].map((td) => td.textContent)) === JSON.stringify(names), timeNames);
  assert.notDeepStrictEqual(await flatRows(), visitsRows, 'time\'s rows are not visits\'');
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// Two TAU profiles (same calls, B's times twice A's) whose region names are HTML.
const EVIL = ['<img src=x onerror=window.__xss=1>', '<b>bold</b> & <i>co</i>'];
function writeTau(dir, factor) {
  const us = (s) => s * factor * 1e6;
  fs.mkdirSync(dir);
  const lines = (mainExcl, a, b) => [
    '4 templated_functions_MULTI_TIME', '# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>',
    `"main" 1 2 ${us(mainExcl)} ${us(mainExcl + a + b)} 0 GROUP="TAU_DEFAULT"`,
    `"main => ${EVIL[0]}" 1 0 ${us(a)} ${us(a)} 0 GROUP="TAU_CALLPATH"`,
    `"main => ${EVIL[1]}" 1 0 ${us(b)} ${us(b)} 0 GROUP="TAU_CALLPATH"`,
    `"${EVIL[0]}" 1 0 ${us(a)} ${us(a)} 0 GROUP="TAU_DEFAULT"`, '0 aggregates', '0 userevents', '# eventname numevents max min mean sumsqr', ''].join('\n');
  fs.writeFileSync(path.join(dir, 'profile.0.0.0'), lines(1, 3, 2).replace('4 templated', '5 templated').replace('0 aggregates', `"${EVIL[1]}" 1 0 ${us(2)} ${us(2)} 0 GROUP="TAU_DEFAULT"\n0 aggregates`));
  fs.writeFileSync(path.join(dir, 'profile.1.0.0'), lines(2, 1, 4).replace('4 templated', '5 templated').replace('0 aggregates', `"${EVIL[1]}" 1 0 ${us(4)} ${us(4)} 0 GROUP="TAU_DEFAULT"\n0 aggregates`));
}

// Region names that are HTML stay text in every pane and tab; external percent against B is
// 50 % wherever A has a value (B's times are twice A's, by construction).
async function htmlNeverInterpreted(ctx) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-html-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-tau-'));
  let server = null;
  try {
    for (const [name, factor] of [['a', 1], ['b', 2]]) {
      writeTau(path.join(work, name), factor);
      const r = spawnSync(ctx.cubekit, ['tau2cube', path.join(work, name), '-o', path.join(root, `${name}.cubex`)]);
      assert.strictEqual(r.status, 0, String(r.stderr));
    }
    // The example plugin and a broken one (no mount): the broken one is named in the header,
    // the others work.
    const plugins = path.join(work, 'plugins');
    fs.mkdirSync(plugins);
    fs.copyFileSync(path.join(ctx.examples, 'hotspots.js'), path.join(plugins, 'hotspots.js'));
    fs.writeFileSync(path.join(plugins, 'broken.js'), "export default { name: 'Broken' };\n");
    server = await startServer(ctx.cubekit, root, ['--plugins', plugins]);
    const page = await openPage(ctx, server.url, 'a.cubex');
    assert.strictEqual(await page.$('#tabs button[data-source="broken.js"]'), null);
    assert.match(await page.textContent('#problems'), /broken\.js: plugin broken\.js: no `mount\(element, api\)`/);
    await page.$$eval('#calls li', (lis) => lis.filter((li) => li._node.hasKids && !li._node.expanded).forEach((li) => li.firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }))));
    await page.waitForTimeout(300);
    await expandSystem(page);
    const names = await page.$$eval('#calls li .name', (e) => e.map((x) => x.textContent));
    for (const evil of EVIL) assert.ok(names.includes(evil), `${evil} shown as text: ${names}`);
    await page.click(`#calls li .name >> text=${EVIL[1]}`);
    for (const tab of ['flame', 'box', 'topology', 'flat', 'pop', 'diff', 'hotspots.js']) {
      await page.click(`#tabs button[data-source="${tab}"]`);
      if (tab === 'diff') { await page.waitForSelector('#compare option:nth-child(3)', { state: 'attached' }); await page.selectOption('#compare', 'b.cubex'); }
      await page.waitForTimeout(400);
    }
    assert.ok((await page.$$eval('#hotspots td', (tds) => tds.map((t) => t.textContent))).includes(EVIL[0]));
    // Each plugin's marks stand side by side: the diff's (A's 2 + 4 s against B's 4 + 8 s) and
    // the hotspot rank (exclusive 6 s, the largest).
    const marks = await page.$$eval('#calls li', (lis, name) => [...lis.find((li) => li._node.c.name === name).querySelectorAll(':scope > .row > .mark > span')].map((m) => m.textContent), EVIL[1]);
    assert.deepStrictEqual(marks, ['Δ -6 (6 − 12)', '#1']);
    await page.click('#tabs button[data-source=flat]');
    await page.waitForTimeout(300);
    const flat = await page.$$eval('#flat td:first-child', (tds) => tds.map((t) => t.textContent));
    for (const evil of EVIL) assert.ok(flat.includes(evil), `flat profile shows ${evil} as text`);
    await page.fill('#search', '<');
    await page.waitForSelector('#hits:not([hidden])');
    // External percent against b.cubex: 50 % wherever a.cubex has a value.
    await page.selectOption('#external', 'b.cubex');
    for (const pane of ['metrics', 'calls', 'system']) await selectMode(page, pane, 'external');
    await page.waitForTimeout(800);
    for (const pane of ['metrics', 'calls', 'system']) {
      // CALLS (the call counts) are the same in both reports: 100 %.
      const rows = (await rowsOf(page, pane)).filter((r) => r.text !== '–');
      const want = (r) => (pane === 'metrics' && r.id === 'CALLS' ? '100.00' : '50.00');
      assert.ok(rows.length > 0 && rows.every((r) => r.text === want(r)), `${pane} external %: ${rows.map((r) => `${r.id} ${r.text}`)}`);
    }
    await page.screenshot({ path: path.join(ctx.shots, '16-html-names-external.png') });
    const injected = await page.evaluate(() => ({ xss: window.__xss, img: document.querySelectorAll('img').length, b: document.querySelectorAll('main b, #bottom b, #hits b').length }));
    assert.deepStrictEqual(injected, { xss: undefined, img: 0, b: 0 });
    assert.deepStrictEqual(page.errors, []);
    await page.close();
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// Every topology of a report, and a 3-D one as planes along each axis: a generated report of 8
// threads with a 2×2×2 topology added by topoassist; each cell sits where the API's coordinates
// say and shows the API's value of its location.
async function topologies(ctx) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-topo-'));
  let server = null;
  try {
    const input = path.join(root, 'in.cubex.tmp'), output = path.join(root, 'topo.cubex');
    const g = spawnSync(ctx.cubekit, ['generate', '--call-paths', '20', '--machines', '1', '--nodes', '2', '--processes', '2', '--threads', '2', '-o', input]);
    assert.strictEqual(g.status, 0, String(g.stderr));
    const answers = ['Cube <b>3</b>', '3', 'y', 'x', '2', 'n', 'y', '2', 'n', 'z', '2', 'n'];
    for (let l = 0; l < 8; ++l) answers.push(`${(l >> 2) & 1} ${(l >> 1) & 1} ${l & 1}`);
    const t = spawnSync(ctx.cubekit, ['topoassist', '-c', ...answers.flatMap((a) => ['-a', a]), '-o', output, input]);
    assert.strictEqual(t.status, 0, String(t.stderr) + String(t.stdout));
    fs.rmSync(input);
    server = await startServer(ctx.cubekit, root);
    const page = await openPage(ctx, server.url, 'topo.cubex');
    const tree = await api(server.url, 'tree', { report: 'topo.cubex' });
    assert.strictEqual(tree.topologies.length, 2);
    await page.click('#tabs button[data-source=topology]');
    await page.waitForSelector('#topology table');
    assert.deepStrictEqual(await page.$$eval('#topology-select option', (o) => o.map((x) => x.textContent)),
      tree.topologies.map((x) => `${x.name} (${x.dims.map((d) => d.size).join('×')})`));
    const cnode = await page.evaluate(() => window.cubekitViewer.state.cnode);
    const flavour = await page.evaluate(() => (document.querySelector('#calls .row.selected').parentNode._node.expanded ? 'excl' : 'incl'));
    const perLoc = await apiValues(server.url, { report: 'topo.cubex', metric: 'time', calltree: flavour, cnode });
    const cube = tree.topologies[1];
    const locAt = new Map(cube.coords.map((c) => [c.coords.join(','), c.id]));
    await page.selectOption('#topology-select', '1');
    for (const along of [0, 1, 2]) {
      await page.selectOption('#topology-axis', String(along));
      await page.waitForTimeout(300);
      const [cx, cy] = [0, 1, 2].filter((d) => d !== along);
      const cells = await page.$$eval('#topology td[data-coords]', (tds) => tds.map((td) => ({
        plane: Number(td.closest('table').dataset.plane), row: td.parentNode.rowIndex, col: td.cellIndex,
        coords: td.dataset.coords, value: Number(td.dataset.value), caption: td.closest('table').caption.textContent })));
      assert.strictEqual(cells.length, 8);
      assert.strictEqual(new Set(cells.map((c) => c.plane)).size, 2);
      for (const c of cells) {
        const xyz = c.coords.split(',').map(Number);
        assert.deepStrictEqual([xyz[along], xyz[cy], xyz[cx]], [c.plane, c.row, c.col], `cell ${c.coords} along ${along}`);
        assert.strictEqual(c.value, perLoc.get(locAt.get(c.coords)), `value at ${c.coords}`);
        assert.ok(c.caption.startsWith('Cube <b>3</b> ('), c.caption);
      }
    }
    await page.screenshot({ path: path.join(ctx.shots, '17-topology-3d.png') });
    assert.strictEqual(await page.evaluate(() => document.querySelectorAll('#topology b').length), 0);
    assert.deepStrictEqual(page.errors, []);
    await page.close();
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// The sunburst: a click at the middle of the largest child of the first root (its angle
// computed here from /values) selects that call path.
async function sunburst(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  await page.click('#tabs button[data-source=sunburst]');
  await page.waitForFunction(() => Number(document.getElementById('sunburst').dataset.arcs) > 5);
  const incl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'incl' });
  const calls = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls;
  const roots = calls.filter((c) => c.parent === null);
  const total = roots.reduce((s, c) => s + incl.get(c.id), 0);
  const kids = calls.filter((c) => c.parent === roots[0].id);
  const big = kids.reduce((a, b) => (incl.get(b.id) > incl.get(a.id) ? b : a));
  const before = kids.slice(0, kids.indexOf(big)).reduce((s, c) => s + Math.max(0, incl.get(c.id)), 0);
  const mid = ((before + incl.get(big.id) / 2) / total) * 2 * Math.PI;
  const geometry = await page.$eval('#sunburst', (c) => { const b = c.getBoundingClientRect(); return { x: b.left, y: b.top, scale: b.width / c.width, w: c.width, h: c.height, ring: Number(c.dataset.ring) }; });
  const r = 1.5 * geometry.ring;
  await page.mouse.click(geometry.x + (geometry.w / 2 + r * Math.sin(mid)) * geometry.scale, geometry.y + (geometry.h / 2 - r * Math.cos(mid)) * geometry.scale);
  await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, big.id, { timeout: 5000 });
  await page.screenshot({ path: path.join(ctx.shots, '18-sunburst.png') });
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// The source view: init_mat of an Extra-P profile (mod=/home/ss39mozo/bench/mm/mm.c, begins at
// line 35 as cube_dump -w prints) found below --source-root as bench/mm/mm.c, written here.
async function sourceView(ctx) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-source-'));
  let server = null;
  try {
    fs.mkdirSync(path.join(root, 'reports'));
    fs.mkdirSync(path.join(root, 'src', 'bench', 'mm'), { recursive: true });
    fs.copyFileSync(path.join(ctx.shared, 'data', 'real', 'extrap', 'single_parameter', 'mm.x10y1z1.r1.cubex'), path.join(root, 'reports', 'mm.cubex'));
    const lines = Array.from({ length: 80 }, (_, i) => `line ${i + 1} <b>not bold</b>`);
    fs.writeFileSync(path.join(root, 'src', 'bench', 'mm', 'mm.c'), `${lines.join('\n')}\n`);
    server = await startServer(ctx.cubekit, path.join(root, 'reports'), ['--source-root', path.join(root, 'src')]);
    const page = await openPage(ctx, server.url, 'mm.cubex');
    await page.$$eval('#calls li', (lis) => lis.filter((li) => li._node.hasKids && !li._node.expanded).forEach((li) => li.firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }))));
    await page.waitForSelector('#calls li .name >> text=init_mat');
    await page.click('#calls li .name >> text=init_mat');
    await page.click('#tabs button[data-source=source]');
    await page.waitForSelector('#source .line');
    const head = await page.textContent('#source-head');
    assert.strictEqual(head, 'init_mat — /home/ss39mozo/bench/mm/mm.c — line 35');
    const shown = await page.$$eval('#source .line', (ls) => ls.map((l) => ({ n: l.querySelector('.number').textContent, text: l.querySelector('.text').textContent, marked: l.classList.contains('marked') })));
    assert.deepStrictEqual(shown.map((l) => l.text), lines);
    assert.deepStrictEqual(shown.filter((l) => l.marked).map((l) => l.n), ['35']);
    assert.strictEqual(await page.evaluate(() => document.querySelectorAll('#source b').length), 0);
    await page.screenshot({ path: path.join(ctx.shots, '19-source.png') });
    assert.deepStrictEqual(page.errors, []);
    await page.close();
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// External percent chosen first, then call paths opened: their rows ask for the other report's
// values as they load (/diff's cnodes). Against the same report: 100 % wherever there is a value.
async function externalOnOpening(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  await page.selectOption('#external', SUMMARY);
  await selectMode(page, 'calls', 'external');
  const loaded = new Set(await page.$$eval('#calls li', (lis) => lis.map((li) => li._node.c.id)));
  for (let round = 0; round < 3; round++) {
    await page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent && li._node.hasKids && !li._node.expanded).forEach((li) => li.firstChild.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }))));
    await page.waitForTimeout(400);
  }
  const rows = (await rowsOf(page, 'calls')).filter((r) => r.text !== '–');
  assert.ok(rows.some((r) => !loaded.has(r.id)), `call paths opened: ${rows.map((r) => r.id)} (loaded before: ${[...loaded]})`);
  assert.ok(rows.every((r) => r.text === '100.00'), `calls external % after opening: ${rows.map((r) => `${r.id} ${r.text}`)}`);
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

module.exports = { externalOnOpening, examplePlugin, valueModes, staleAnswers, htmlNeverInterpreted, topologies, sunburst, sourceView };
