// Sunburst: the flame graph's data as rings. The roots fill the inner ring, each call path's
// children share its angle by their inclusive values of the selected metric; a click selects a
// call path. Arcs under a quarter degree are not drawn (a report of 100,000 call paths stays
// at a few thousand arcs). Angles start at 12 o'clock and go clockwise.
import { colour } from '../core/util.js';
import { paintWholeTree, callModeText } from '../core/modes.js';

const SIZE = 520, MIN_ANGLE = Math.PI / 720, MAX_DEPTH = 12;
let mode = 'abs', refs = null;
let canvas, arcs = [], api0 = null, RING = 20;

// The boxes of /flame (start and extent as angles) as arcs.
const layout = (boxes) => boxes.map((b) => ({ c: { id: b.id, name: b.name }, a0: b.start, a1: b.start + b.extent, depth: b.depth, v: b.incl }));

// What is drawn now (the browser test compares it with its own layout of the whole tree).
export const drawn = () => arcs;

function centre() { return [canvas.width / 2, canvas.height / 2]; }

function draw(selected) {
  const ctx = canvas.getContext('2d');
  const [x, y] = centre();
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  // The rings share the radius: as wide as the deepest drawn level allows.
  RING = Math.floor((SIZE / 2 - 2) / (arcs.reduce((d, r) => Math.max(d, r.depth), 0) + 1));
  for (const r of arcs) {
    ctx.beginPath();
    ctx.arc(x, y, (r.depth + 1) * RING, r.a0 - Math.PI / 2, r.a1 - Math.PI / 2);
    ctx.arc(x, y, r.depth * RING, r.a1 - Math.PI / 2, r.a0 - Math.PI / 2, true);
    ctx.closePath();
    ctx.fillStyle = r.c.id === selected ? '#6a9fd8' : colour(0.25 + 0.75 * ((r.a1 - r.a0) / (2 * Math.PI)));
    ctx.fill();
    ctx.strokeStyle = '#fff';
    ctx.stroke();
  }
  canvas.dataset.arcs = String(arcs.length);
  canvas.dataset.ring = String(RING);
}

function hit(e) {
  const b = canvas.getBoundingClientRect();
  const [x, y] = centre();
  const dx = (e.clientX - b.left) * (canvas.width / b.width) - x, dy = (e.clientY - b.top) * (canvas.height / b.height) - y;
  const depth = Math.floor(Math.hypot(dx, dy) / RING);
  let angle = Math.atan2(dx, -dy);  // 0 at 12 o'clock, clockwise
  if (angle < 0) angle += 2 * Math.PI;
  return arcs.find((r) => r.depth === depth && angle >= r.a0 && angle < r.a1);
}

export default {
  name: 'Sunburst',
  help: 'The call tree as rings: each call path takes its share of its parent\'s angle by inclusive value; click to select.',
  mount(element, api) {
    canvas = document.createElement('canvas');
    canvas.id = 'sunburst'; canvas.width = SIZE; canvas.height = SIZE;
    element.append(canvas);
    canvas.addEventListener('click', (e) => { const r = hit(e); if (r && api0) api0.selectCallPath(r.c.id); });
    canvas.addEventListener('mousemove', (e) => {
      const r = hit(e);
      canvas.title = r ? `${r.c.name}: ${callModeText(r.v, r.c.id, mode, refs, api.format)}` : '';
    });
  },
  onReportOpened() { arcs = []; if (canvas) { canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height); canvas.dataset.arcs = '0'; } },
  onValueMode(modes) { mode = modes.calls; },
  async onSelect(sel, api) {
    if (!sel.metric) return;
    await paintWholeTree(canvas, sel, api, { extent: 2 * Math.PI, minExtent: MIN_ANGLE, depth: MAX_DEPTH }, (boxes) => {
      api0 = api;
      mode = sel.modes.calls;
      arcs = layout(boxes);
      draw(sel.cnode);
    }, (r) => { refs = r; });
  },
};
