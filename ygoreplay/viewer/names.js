// The recorder's name box: which names a typed text offers, closest first (#25). Offered: the
// duel's own cards, then names starting with the text (a name typed whole first), then names
// holding it elsewhere or the passcode typed; in each, the shorter names first, then the list's
// order. The index is built once a card list, so a letter or two typed on a phone reads the few
// names starting with it, in order, and stops at the count shown, not at all 14,000 names.

// Text as typed compared with the English names: full-width letters as plain ones (ＡＢＣ, typed
// in a Chinese or Japanese input's full-width mode, is ABC), case ignored.
export const plain = (text) => text.normalize("NFKC").toLocaleLowerCase();

// One row a name, [code, name, english, own, name folded] (record.js), in closest-first order.
export function nameIndex(names) {
  const rows = names.map((row, order) => ({ row, english: row[2] ? plain(row[2]) : "", order }));
  rows.sort((a, b) => (a.row[3] ? 0 : 1) - (b.row[3] ? 0 : 1) || a.row[1].length - b.row[1].length || a.order - b.order);
  const index = { rows, own: 0, first: new Map(), named: new Map(), english: new Map(), codes: new Map() };
  rows.forEach((r, rank) => {
    r.rank = rank;
    if (r.row[3]) index.own = rank + 1;
    for (const key of new Set([r.row[4].charAt(0), r.english.charAt(0)])) if (key) add(index.first, key, r);
    add(index.named, r.row[4], r);
    if (r.english) add(index.english, r.english, r);
    index.codes.set(String(r.row[0]), r);
  });
  return index;
}

function add(map, key, value) {
  const list = map.get(key);
  if (list) list.push(value); else map.set(key, [value]);
}

// The first ``count`` rows for ``typed`` (trimmed) and ``query`` (it folded as the names are).
export function closest(index, typed, query, count) {
  const lower = plain(typed), coded = index.codes.get(lower);
  const starts = (r) => r.row[4].startsWith(query) || r.english.startsWith(lower);
  const holds = (r) => r.row[4].includes(query) || r.english.includes(lower) || r === coded;
  const whole = [...new Set([...(index.named.get(query) || []), ...(index.english.get(lower) || [])])]
    .sort((a, b) => a.rank - b.rank);
  const wholes = new Set(whole);
  const out = [];
  const take = (r) => { out.push(r.row); return out.length >= count; };
  const firsts = [...new Set([query.charAt(0), lower.charAt(0)])].map((key) => index.first.get(key) || []);
  const starting = firsts.length === 1 ? firsts[0] : [...new Set(firsts.flat())].sort((a, b) => a.rank - b.rank);
  const groups = [
    () => whole.filter((r) => r.row[3]),                                       // own, typed whole
    () => index.rows.slice(0, index.own).filter((r) => !wholes.has(r) && holds(r)),   // own
    () => whole.filter((r) => !r.row[3]),                                      // typed whole
    function* () { for (const r of starting) if (!r.row[3] && !wholes.has(r) && starts(r)) yield r; },
    function* () {                                                             // elsewhere in the name
      for (let i = index.own; i < index.rows.length; i++) {
        const r = index.rows[i];
        if (holds(r) && !starts(r) && !wholes.has(r)) yield r;
      }
    },
  ];
  for (const group of groups) for (const r of group()) if (take(r)) return out;
  return out;
}
