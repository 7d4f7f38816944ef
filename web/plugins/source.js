// Source view: the selected call path's region, its file and line range as the report names
// them, and the file's text with the region's lines marked when the server finds the file
// below the served root or --source-root (/source).
import { el } from '../core/util.js';

let head, body;

function lineRange(s) {
  if (s.begin < 1) return '';
  return s.end >= s.begin ? `lines ${s.begin}–${s.end}` : `line ${s.begin}`;
}

export default {
  name: 'Source',
  help: "The selected call path's region in its source file (found below the served folder or --source-root).",
  mount(element) {
    head = el('p', { id: 'source-head' });
    body = el('div', { id: 'source' });
    element.append(head, body);
  },
  onReportOpened() { if (body) { head.textContent = ''; body.replaceChildren(); } },
  async onSelect(sel, api) {
    if (sel.cnode === null) return;
    const s = await api.get('source', { report: sel.report, cnode: sel.cnode });
    head.textContent = [s.region, s.mod || '(no file)', lineRange(s)].filter(Boolean).join(' — ') +
      (s.file ? '' : ` (${s.reason})`);
    if (!s.lines) { body.replaceChildren(); return; }
    const last = s.end >= s.begin ? s.end : s.begin;
    const rows = s.lines.map((text, i) => el('div', { className: i + 1 >= s.begin && i + 1 <= last ? 'line marked' : 'line' },
      el('span', { className: 'number' }, String(i + 1)), el('span', { className: 'text' }, text)));
    body.replaceChildren(...rows);
    const first = body.querySelector('.marked');
    if (first) first.scrollIntoView({ block: 'center' });
  },
};
