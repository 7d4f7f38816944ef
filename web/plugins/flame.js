// Flame graph of the call tree: inclusive values of the selected metric; a click on a box
// selects its call path. At most the boxes at least half a pixel wide are drawn.
import { colour } from '../core/util.js';
import { paintWholeTree, callModeText } from '../core/modes.js';

const ROW = 17, MIN_WIDTH = 0.5, MAX_DEPTH = 60;
let mode = 'abs', refs = null;
let canvas, tip, rects = [], api0 = null;

function hit(e) {
  const b = canvas.getBoundingClientRect();
  const x = e.clientX - b.left, y = e.clientY - b.top;
  return rects.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + ROW);
}

// The boxes of /flame (x and width in pixels) as drawn: a row of ROW pixels per depth.
const layout = (boxes) => boxes.map((b) => ({ c: { id: b.id, name: b.name }, x: b.start, y: b.depth * ROW, w: b.extent, v: b.incl }));

// What is drawn now (the browser test compares it with its own layout of the whole tree).
export const drawn = () => rects;

function draw(selected) {
  const width = canvas.width;
  const ctx = canvas.getContext('2d');
  const depth = rects.reduce((d, r) => Math.max(d, r.y / ROW), 0);
  canvas.height = Math.max(60, (depth + 1) * ROW + 2);
  ctx.font = '11px system-ui, sans-serif';
  for (const r of rects) {
    ctx.fillStyle = r.c.id === selected ? '#6a9fd8' : colour(0.25 + 0.75 * (r.w / width));
    ctx.fillRect(r.x, r.y, Math.max(r.w - 1, 0.5), ROW - 1);
    if (r.w > 30) {
      ctx.fillStyle = '#000';
      ctx.save(); ctx.beginPath(); ctx.rect(r.x, r.y, r.w - 2, ROW); ctx.clip();
      ctx.fillText(r.c.name, r.x + 3, r.y + 12); ctx.restore();
    }
  }
  canvas.dataset.rects = String(rects.length);
}

export default {
  name: 'Flame graph',
  help: 'The call tree as boxes as wide as their inclusive value of the selected metric; click a box to select its call path.',
  mount(element, api) {
    canvas = document.createElement('canvas');
    canvas.id = 'flame'; canvas.height = 260;
    tip = document.createElement('div'); tip.id = 'flame-tip';
    element.append(canvas, tip);
    canvas.addEventListener('click', (e) => { const r = hit(e); if (r && api0) api0.selectCallPath(r.c.id); });
    canvas.addEventListener('mousemove', (e) => {
      const r = hit(e);
      if (!r) { tip.style.display = 'none'; return; }
      tip.style.display = 'block'; tip.style.left = `${e.offsetX + 12}px`; tip.style.top = `${e.offsetY + 12}px`;
      tip.textContent = `${r.c.name}: ${callModeText(r.v, r.c.id, mode, refs, api.format)}`;
    });
  },
  onReportOpened() { rects = []; if (canvas) { canvas.dataset.rects = '0'; canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height); } },
  onValueMode(modes) { mode = modes.calls; },
  async onSelect(sel, api) {
    if (!sel.metric) return;
    const width = canvas.clientWidth || 800;
    await paintWholeTree(canvas, sel, api, { extent: width, minExtent: MIN_WIDTH, depth: MAX_DEPTH }, (boxes) => {
      api0 = api;
      mode = sel.modes.calls;
      canvas.width = width;
      rects = layout(boxes);
      draw(sel.cnode);
    }, (r) => { refs = r; });
  },
};
