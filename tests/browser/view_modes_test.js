// Browser test: the flame graph's and the sunburst's tooltips print a call path's value in the
// call pane's value mode (absolute, own root, metric selection and call tree selection
// percent), checked against numbers computed here from the API. Called from viewer_test.js.
'use strict';
const path = require('path');
const assert = require('assert');
const { api, apiValues, openPage } = require('./support');

const SUMMARY = 'cubelib/examples/summary.cubex';
const HOVER_X = 2;
const pct = (v, ref) => `${((100 * v) / ref).toFixed(2)} %`;

async function viewModes(ctx) {
  const page = await openPage(ctx, ctx.url, SUMMARY);
  const calls = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls;
  const incl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'incl' });
  const excl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'excl' });
  const root = calls.find((c) => c.parent === null);
  const total = calls.filter((c) => c.parent === null).reduce((s, c) => s + incl.get(c.id), 0);
  // The root's child under x = HOVER_X at depth 1 in the flame graph (boxes side by side in
  // the order of the call tree, as wide as their share of the total).
  const width = await page.$eval('#flame', (c) => c.width);
  let x = 0;
  const child = calls.filter((c) => c.parent === root.id).find((c) => { x += (Math.max(0, incl.get(c.id)) / total) * width; return x > HOVER_X; });
  // The root is selected and expanded at first: the call pane shows its exclusive value.
  const expected = {
    abs: [null, null],
    root: [pct(incl.get(root.id), incl.get(root.id)), pct(incl.get(child.id), incl.get(root.id))],
    metric: [pct(incl.get(root.id), total), pct(incl.get(child.id), total)],
    calls: [pct(incl.get(root.id), excl.get(root.id)), pct(incl.get(child.id), excl.get(root.id))],
  };
  const fmt = (v) => page.evaluate(async (x) => (await import('/core/util.js')).fmt(x), v);
  expected.abs = [await fmt(incl.get(root.id)), await fmt(incl.get(child.id))];

  const flameTip = async (y) => {
    const b = await page.$eval('#flame', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
    await page.mouse.move(b.x + 200, b.y + 400);
    await page.mouse.move(b.x + HOVER_X, b.y + y);
    return page.textContent('#flame-tip');
  };
  const sunTitle = async () => {
    const g = await page.$eval('#sunburst', (c) => { const r = c.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2, ring: Number(c.dataset.ring) * r.width / c.width }; });
    await page.mouse.move(g.x + 300, g.y + 300);
    await page.mouse.move(g.x, g.y - g.ring / 2);
    return page.$eval('#sunburst', (c) => c.title);
  };
  for (const mode of ['abs', 'root', 'metric', 'calls']) {
    await page.selectOption('#calls-mode', mode);
    await page.click('#tabs button[data-source=flame]');
    await page.waitForFunction(() => document.getElementById('flame').dataset.refs === 'ready');
    assert.strictEqual(await flameTip(5), `${root.name}: ${expected[mode][0]}`, `flame graph, ${mode}, root`);
    assert.strictEqual(await flameTip(17 + 5), `${child.name}: ${expected[mode][1]}`, `flame graph, ${mode}, ${child.name}`);
    await page.click('#tabs button[data-source=sunburst]');
    await page.waitForFunction(() => document.getElementById('sunburst').dataset.refs === 'ready');
    assert.strictEqual(await sunTitle(), `${root.name}: ${expected[mode][0]}`, `sunburst, ${mode}, root`);
  }
  // A selected call path too narrow to be drawn (MPI_Comm_size, 0.1 ms of 30,808 s): /flame
  // does not send it, so its value, call tree selection percent's reference, comes from /values.
  const narrow = calls.find((c) => c.name === 'MPI_Comm_size');
  assert.ok((incl.get(narrow.id) / total) * width < 0.5, 'MPI_Comm_size is narrower than half a pixel');
  await page.fill('#search', 'MPI_Comm_size');
  await page.click('#hits div');
  await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, narrow.id);
  await page.click('#tabs button[data-source=flame]');
  await page.waitForFunction(() => document.getElementById('flame').dataset.refs === 'ready');
  assert.strictEqual(await flameTip(5), `${root.name}: ${pct(incl.get(root.id), incl.get(narrow.id))}`, 'flame graph, calls, selection not drawn');
  await page.screenshot({ path: path.join(ctx.shots, '23-sunburst-modes.png') });
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

module.exports = { viewModes };
