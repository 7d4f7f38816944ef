// Requests to /api/v1 that can go stale. Every pane and every plugin handler asks through a
// ticket of its own: a newer ticket of the same key, or a report opened since, aborts the older
// one's requests and makes their answers throw StaleAnswer instead of being painted. Switching
// reports quickly therefore never paints the previous report (docs/viewer.md).

export class StaleAnswer extends Error {
  constructor() { super('stale answer'); this.name = 'StaleAnswer'; }
}

export const isStale = (e) => e instanceof StaleAnswer || (e && e.name === 'AbortError');

let generation = 0;  // bumped whenever another report is opened
const open = new Map();  // key → the AbortController of its newest ticket

// A new ticket for `key`; the previous ticket of that key becomes stale at once.
export function ticket(key) {
  if (open.has(key)) open.get(key).abort();
  const controller = new AbortController();
  open.set(key, controller);
  const born = generation;
  return {
    signal: controller.signal,
    current: () => born === generation && open.get(key) === controller,
  };
}

// Everything asked so far is stale: called when another report is opened.
export function newGeneration() {
  ++generation;
  for (const c of open.values()) c.abort();
  open.clear();
  return generation;
}

export const currentGeneration = () => generation;

// GET /api/v1/<endpoint>?<params> as JSON; throws the server's {"error"} message, or
// StaleAnswer when the ticket went stale while the answer was on its way.
export async function get(endpoint, params = {}, t = null) {
  const q = new URLSearchParams(params).toString();
  const res = await fetch(`/api/v1/${endpoint}${q ? `${endpoint.includes('?') ? '&' : '?'}${q}` : ''}`,
    t ? { signal: t.signal } : {});
  const body = await res.json();
  if (t && !t.current()) throw new StaleAnswer();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}
