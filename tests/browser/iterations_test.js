// Browser test of the iterations tab (plugins/iterations.js) on a report written here: a loop
// whose 12 iterations are call paths of one region with the numeric parameter `instance`
// (as Score-P writes a dynamic region), PERI-XML imported with `cubekit import-peri`. The bars'
// minimum, mean and maximum over the 4 locations and the heat map's cells are checked against
// the values this test wrote. Called from viewer_test.js.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const { startServer } = require('./support');

const N = 12;
const THREADS = 4;
// Exclusive time of iteration k (1…N) and of the work it calls, at thread t (0…3).
const own = (k, t) => 0.5 * k * (t + 1);
const work = (k, t) => 0.1 * k + t;

function periXml() {
  const iterations = [], states = [], data = [];
  const cell = (c, t, v) => `<d code="c${c}"><d spc="t${t}">${v}</d></d>`;
  for (let t = 0; t < THREADS; t++) data.push(cell(0, t, 1), cell(1, t, 2));
  for (let k = 1; k <= N; k++) {
    const it = 2 * k, w = 2 * k + 1;
    iterations.push(`<cnode id="c${it}" ref="r2" state="s${it}"><cnode id="c${w}" ref="r3"/></cnode>`);
    states.push(`<state id="s${it}"><p nm="instance" type="numeric">${k}</p></state>`);
    for (let t = 0; t < THREADS; t++) data.push(cell(it, t, own(k, t)), cell(w, t, work(k, t)));
  }
  const threads = (p) => [0, 1].map((i) => `<thread id="t${2 * p + i}" tid="${i}" type="thread"><name>thread ${i}</name></thread>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<peri generator="test">
<metrics><metric id="time" units="sec" type="float" name="Time" cube_uniq_name="time" cube_dtype="DOUBLE"><desc>time</desc></metric></metrics>
<code><programs><program id="prg0"><regions>
<region id="r0" type="function"><name>main</name></region><region id="r1" type="loop"><name>loop</name></region>
<region id="r2" type="dynamic"><name>iteration</name></region><region id="r3" type="function"><name>work</name></region>
</regions><cnodes><cnode id="c0" ref="r0"><cnode id="c1" ref="r1">${iterations.join('')}</cnode></cnode></cnodes></program></programs></code>
<states>${states.join('')}</states>
<space><machines><machine id="n0"><name>machine</name><node id="n1"><name>node</name></node></machine></machines>
<applications><application id="app0">
<process id="p0" pid="0" type="process"><name>rank 0</name>${threads(0)}</process>
<process id="p1" pid="1" type="process"><name>rank 1</name>${threads(1)}</process>
</application></applications></space>
<data><d metric="time">${data.join('\n')}</d></data>
</peri>
`;
}

async function iterations(ctx) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-iterations-'));
  let server = null;
  try {
    fs.writeFileSync(path.join(root, 'loop.xml'), periXml());
    fs.mkdirSync(path.join(root, 'reports'));
    const imported = spawnSync(ctx.cubekit, ['import-peri', '-o', path.join(root, 'reports', 'loop.cubex'), path.join(root, 'loop.xml')]);
    assert.strictEqual(imported.status, 0, String(imported.stderr));
    server = await startServer(ctx.cubekit, path.join(root, 'reports'));
    const page = await ctx.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}?report=loop.cubex`);
    await page.evaluate(() => window.cubekitViewer.ready);
    await page.waitForSelector('#calls li .name >> text=loop');
    await page.click('#calls li .name >> text=loop');
    await page.click('#tabs button[data-source=iterations]');
    await page.waitForSelector('#iterations-bars .bar');

    // Inclusive time of iteration k at thread t: its own and its work's.
    const incl = (k, t) => own(k, t) + work(k, t);
    const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    const bars = await page.$$eval('#iterations-bars .bar', (rs) => rs.map((r) => ({ n: Number(r.dataset.iteration), min: Number(r.dataset.min), mean: Number(r.dataset.mean), max: Number(r.dataset.max) })));
    assert.deepStrictEqual(bars.map((b) => b.n), Array.from({ length: N }, (_, i) => i + 1));
    for (const b of bars) {
      const v = Array.from({ length: THREADS }, (_, t) => incl(b.n, t));
      assert.ok(close(b.min, Math.min(...v)) && close(b.max, Math.max(...v)) && close(b.mean, v.reduce((x, y) => x + y) / THREADS), `iteration ${b.n}: ${JSON.stringify(b)}`);
    }
    // Heat map: the cell of iteration k (across) and thread t (down) has the colour of its
    // share of the largest inclusive value.
    const max = incl(N, THREADS - 1);
    const cells = [];
    for (let k = 1; k <= N; k++) for (let t = 0; t < THREADS; t++) cells.push({ k, t, share: incl(k, t) / max });
    const wrong = await page.evaluate(async (list) => {
      const { colour } = await import('/core/util.js');
      const c = document.getElementById('iterations-heat');
      const cw = Number(c.dataset.cellWidth), ch = Number(c.dataset.cellHeight);
      const ctx = c.getContext('2d');
      return list.filter(({ k, t, share }) => {
        const [r, g, b] = ctx.getImageData((k - 1) * cw + Math.floor(cw / 2), t * ch + Math.floor(ch / 2), 1, 1).data;
        return `rgb(${r},${g},${b})` !== colour(share);
      });
    }, cells);
    assert.deepStrictEqual(wrong, [], 'heat map cells');
    await page.screenshot({ path: path.join(ctx.shots, '22-iterations.png') });

    // A click on a bar selects that iteration; its siblings are still the iterations shown.
    const calls = await (await fetch(`${server.url}api/v1/tree?report=loop.cubex&parts=calls`)).json();
    const fifth = calls.calls.find((c) => c.params && c.params[0][0] === 'instance' && c.params[0][1] === '5');
    assert.ok(fifth, 'the iteration call paths carry their parameter');
    await page.$eval('#iterations-bars .bar[data-iteration="5"]', (r) => r.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, fifth.id);
    await page.waitForFunction((n) => document.querySelectorAll('#iterations-bars .bar').length === n, N);
    assert.deepStrictEqual(errors, []);
    await page.close();
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

module.exports = { iterations };
