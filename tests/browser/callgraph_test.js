// Browser test of the call graph tab (plugins/callgraph.js): every drawn region's value is its
// exclusive time summed over its call paths, every drawn edge's the inclusive time of the call
// paths where the caller calls the callee, both computed here from the API's values; the first
// answer is the selected region with its callers and callees, the whole graph follows (laid out
// in a worker); back on a metric laid out before, the same positions with that metric's values;
// a click on a node selects the region's call path of largest inclusive time. Called from
// viewer_test.js.
'use strict';
const path = require('path');
const assert = require('assert');
const { api, apiValues, openPage } = require('./support');

const SUMMARY = 'cubelib/examples/summary.cubex';
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

async function callGraph(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  const errors = page.errors;
  const selected = await page.evaluate(() => window.cubekitViewer.state.cnode);
  // Every graph the tab draws, as drawn (the first answer is replaced by the whole graph).
  await page.evaluate(() => {
    window.graphsDrawn = [];
    new MutationObserver(() => {
      const svg = document.getElementById('callgraph');
      if (svg && svg !== window.graphsDrawn.at(-1)?.svg) {
        window.graphsDrawn.push({ svg, stage: svg.dataset.stage, regions: [...svg.querySelectorAll('g.node')].map((g) => [g.dataset.region, Number(g.dataset.value)]),
          calls: [...svg.querySelectorAll('path.edge')].map((p) => [p.dataset.from, p.dataset.to]) });
      }
    }).observe(document.body, { subtree: true, childList: true });
  });
  await page.click('#tabs button[data-source=callgraph]');
  await page.waitForSelector('#callgraph[data-stage=whole]');

  const calls = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls;
  const sums = async (metric) => {
    const incl = await apiValues(ctx.url, { report: SUMMARY, metric, calltree: 'incl' });
    const excl = await apiValues(ctx.url, { report: SUMMARY, metric, calltree: 'excl' });
    const byId = new Map(calls.map((c) => [c.id, c]));
    const regionExcl = new Map(), edgeIncl = new Map();
    for (const c of calls) {
      regionExcl.set(c.name, (regionExcl.get(c.name) || 0) + excl.get(c.id));
      if (c.parent === null) continue;
      const key = `${byId.get(c.parent).name} ${c.name}`;
      edgeIncl.set(key, (edgeIncl.get(key) || 0) + incl.get(c.id));
    }
    return { incl, regionExcl, edgeIncl };
  };
  const { incl, regionExcl, edgeIncl } = await sums('time');
  const drawnNodes = () => page.$$eval('#callgraph g.node', (gs) => gs.map((g) => ({ region: g.dataset.region, value: Number(g.dataset.value), at: g.getAttribute('transform') })));
  const nodes = await drawnNodes();
  assert.strictEqual(nodes.length, Math.min(50, regionExcl.size), 'regions drawn');
  for (const n of nodes) assert.ok(close(n.value, regionExcl.get(n.region)), `region ${n.region}: ${n.value} vs ${regionExcl.get(n.region)}`);
  const edges = await page.$$eval('#callgraph path.edge', (ps) => ps.map((p) => ({ from: p.dataset.from, to: p.dataset.to, value: Number(p.dataset.value) })));
  assert.ok(edges.length > 10, 'calls drawn');
  for (const e of edges) assert.ok(close(e.value, edgeIncl.get(`${e.from} ${e.to}`)), `call ${e.from} → ${e.to}`);
  // The caption counts what is drawn of the whole graph (regions by name, calls between them).
  const captionText = await page.$eval('.callgraph .caption', (p) => p.textContent);
  assert.ok(captionText.endsWith(`${nodes.length} of ${regionExcl.size} regions, ${edges.length} of ${edgeIncl.size} calls`), captionText);

  // The first answer: the selected call path's region, its callers and callees in the whole
  // graph, with the same values; then the whole graph, laid out anew.
  const drawnGraphs = await page.evaluate(() => window.graphsDrawn.map(({ svg, ...g }) => g));
  assert.deepStrictEqual(drawnGraphs.map((g) => g.stage), ['neighbourhood', 'whole']);
  const centre = calls.find((c) => c.id === selected).name;
  const first = drawnGraphs[0];
  const near = new Set([centre, ...edges.filter((e) => e.from === centre || e.to === centre).flatMap((e) => [e.from, e.to])]);
  assert.ok(first.regions.some(([r]) => r === centre), `${centre} drawn first`);
  assert.ok(first.regions.length > 1 && first.regions.length <= 13, `${first.regions.length} regions first`);
  for (const [r, v] of first.regions) {
    assert.ok(near.has(r), `${r} is ${centre}'s caller or callee`);
    assert.ok(close(v, regionExcl.get(r)), `first answer: region ${r}`);
  }
  for (const [from, to] of first.calls) assert.ok(edges.some((e) => e.from === from && e.to === to), `first answer: call ${from} → ${to}`);
  assert.strictEqual(await page.$eval('#callgraph', (s) => s.dataset.layout), 'new');

  // Another metric and back: time's layout is kept (the same positions), the values are time's.
  await page.click('#metrics li >> text=Visits');
  await page.waitForFunction(() => document.querySelector('.callgraph .caption').textContent.startsWith('visits') && document.querySelector('#callgraph[data-stage=whole]'));
  const visits = await sums('visits');
  for (const n of await drawnNodes()) assert.ok(close(n.value, visits.regionExcl.get(n.region)), `visits of ${n.region}`);
  await page.click('#metrics li >> text=Time');
  await page.waitForFunction(() => document.querySelector('.callgraph .caption').textContent.startsWith('time') && document.querySelector('#callgraph[data-stage=whole]'));
  assert.strictEqual(await page.$eval('#callgraph', (s) => s.dataset.layout), 'kept');
  assert.deepStrictEqual(await drawnNodes(), nodes);

  // The region of largest exclusive time: a click selects its call path of largest inclusive time.
  const hottest = [...regionExcl].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  const target = calls.filter((c) => c.name === hottest).reduce((a, b) => (incl.get(b.id) > incl.get(a.id) ? b : a));
  await page.$eval(`#callgraph g.node[data-region="${hottest}"]`, (g) => g.dispatchEvent(new MouseEvent('click', { bubbles: true })));
  await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, target.id, { timeout: 5000 });
  await page.waitForSelector(`#callgraph g.node.selected[data-region="${hottest}"]`);
  await page.screenshot({ path: path.join(ctx.shots, '21-callgraph.png') });
  assert.deepStrictEqual(errors, []);
  await page.close();
}

module.exports = { callGraph };
