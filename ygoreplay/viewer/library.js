// The library: recent public duels and matches, a search kept in the address (/library?player=...:
// a search is a link), pages by cursor, and a card's or a player's page. The service answers only
// with what the public view shows (/search, /cards/{code}/stats, /players/{name}); every string it
// gives is first made visible (text.js) and only ever goes in through textContent.

import { visible } from "./text.js";

// The filters /search takes, as the form names them; the address carries them (and the cursor).
export const FILTERS = ["player", "title", "event", "round", "format", "banlist", "since", "until", "result",
  "source", "card", "action", "turn_max", "kind"];
const ID = /^[0-9a-f]{12}$/;
const PAGE = 25;
const REASONS = { lp: "LP 0", deck_out: "could not draw" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

const $ = (selector) => document.querySelector(selector);

// The search in this page's address: the filters given (not empty) and the cursor.
export function searchOf(query) {
  const given = new URLSearchParams(query);
  const out = new URLSearchParams();
  for (const name of [...FILTERS, "cursor"]) {
    const value = (given.get(name) || "").trim();
    if (value) out.set(name, value);
  }
  return out;
}

// Where a row opens: the viewer for a duel, the match page for a match (made from the id, never
// from an address the answer gives).
function opens(row) {
  if (!ID.test(row.id)) return null;
  return row.kind === "match" ? `/match/${row.id}` : `/view/${row.id}`;
}

function playerLink(name) {
  const a = el("a", "player", name || "?");
  a.href = `/library/player/${encodeURIComponent(name)}`;
  return a;
}

function resultText(row) {
  const r = row.result;
  if (!r) return "unfinished";
  const reason = r.reason ? ` (${REASONS[r.reason] || r.reason})` : "";
  if (r.winner === 0 || r.winner === 1) return `${row.players[r.winner] || `Player ${r.winner}`} won${reason}`;
  return `draw${reason}`;
}

export function rowOf(row) {
  const li = el("li", "row");
  li.dataset.kind = row.kind;
  li.dataset.id = row.id;
  const players = Array.isArray(row.players) ? row.players : [];
  const head = el("a", "open", row.title || players.join(" vs ") || row.id);
  const href = opens(row);
  if (href) head.href = href;
  head.setAttribute("aria-label", `${row.kind === "match" ? "Match" : "Duel"}: ${head.textContent}`);
  const who = el("div", "players");
  players.forEach((name, i) => { if (i) who.append(" vs "); who.append(playerLink(name)); });
  const meta = el("div", "meta");
  const add = (text, className) => { if (text) meta.append(el("span", className || "", text)); };
  add(row.kind === "match" ? "match" : "duel", "kind");
  add([row.event, row.round ? `round ${row.round}` : null].filter(Boolean).join(" \u00b7 "), "event");
  add([row.format, row.banlist].filter(Boolean).join(" \u00b7 "), "format");
  add(row.created ? String(row.created).slice(0, 10) : "", "date");
  add(resultText(row), "result");
  add(`${row.events ?? 0} events \u00b7 ${row.turns ?? 0} turns`, "length");
  const badges = el("div", "badges");
  for (const badge of row.badges || []) badges.append(el("span", `badge ${String(badge).replace(/[^a-z-]/g, "")}`, badge));
  li.append(head, who, meta);
  if (badges.children.length) li.append(badges);
  return li;
}

async function fetched(url) {
  const response = await fetch(url, { cache: "no-store" });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `the service answered ${response.status}`);
  return visible(data);
}

function figures(list, pairs) {
  list.replaceChildren();
  for (const [label, value] of pairs) list.append(el("dt", "", label), el("dd", "", value ?? 0));
}

function show(rows, emptyText) {
  const list = $("#results");
  list.replaceChildren(...rows.map(rowOf));
  if (!rows.length) list.append(el("li", "hint", emptyText));
}

// The form shows the address's search (and is open when there is one); sending it goes to its address.
function wireForm(search) {
  const form = $("#search");
  for (const name of FILTERS) {
    const field = form.elements.namedItem(name);
    if (field && search.has(name)) field.value = search.get(name);
  }
  const filtered = FILTERS.some((name) => search.has(name));
  $("#filters").open = filtered;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = searchOf(new FormData(form));
    chosen.delete("cursor");
    location.assign(`/library${chosen.toString() ? "?" + chosen : ""}`);
  });
  return filtered;
}

async function library() {
  const search = searchOf(location.search);
  const filtered = wireForm(search);
  $("#heading").textContent = filtered ? "Search results" : "Recent public duels and matches";
  const query = new URLSearchParams(search);
  query.set("limit", String(PAGE));
  const data = await fetched(`/search?${query}`);
  show(data.results || [], filtered ? "Nothing found: try fewer filters." : "No public duel yet.");
  const older = $("#older");
  if (data.next) {
    const next = new URLSearchParams(search);
    next.set("cursor", data.next);
    older.href = `/library?${next}`;
    older.hidden = false;
  }
  if (search.has("cursor")) {
    const first = new URLSearchParams(search);
    first.delete("cursor");
    $("#newest").href = `/library${first.toString() ? "?" + first : ""}`;
    $("#newest").hidden = false;
  }
}

async function cardPage(code) {
  wireForm(new URLSearchParams());
  const stats = await fetched(`/cards/${code}/stats`);
  $("#card-name").textContent = stats.name || `card ${code}`;
  document.title = `${stats.name || code} \u00b7 ygoreplay library`;
  figures($("#card-figures"), [["public duels with it", stats.duels], ["activated", stats.activated],
    ["summoned", stats.summoned], ["its player won", stats.won_by_user], ["its player lost", stats.lost_by_user]]);
  $("#card-stats").hidden = false;
  $("#heading").textContent = "Public duels where it was played";
  const query = new URLSearchParams({ card: code, limit: String(PAGE) });
  const data = await fetched(`/search?${query}`);
  show(data.results || [], "No public duel with it yet.");
  if (data.next) {
    $("#older").href = `/library?${new URLSearchParams({ card: code, cursor: data.next })}`;
    $("#older").hidden = false;
  }
}

async function playerPage(name) {
  wireForm(new URLSearchParams());
  const data = await fetched(`/players/${encodeURIComponent(name)}`);
  $("#player-name").textContent = data.name || name;
  document.title = `${data.name || name} \u00b7 ygoreplay library`;
  figures($("#player-figures"), [["won", data.won], ["lost", data.lost], ["drawn", data.drawn],
    ["public duels", (data.duels || []).length]]);
  $("#player-stats").hidden = false;
  $("#heading").textContent = "Public duels";
  show(data.duels || [], "No public duel yet.");
}

async function main() {
  const path = location.pathname;
  const card = /^\/library\/card\/(\d+)$/.exec(path);
  const player = /^\/library\/player\/([^/]+)$/.exec(path);
  $("#status").textContent = "loading\u2026";
  try {
    if (card) await cardPage(card[1]);
    else if (player) await playerPage(decodeURIComponent(player[1]));
    else await library();
    $("#status").textContent = "";
  } catch (error) {
    $("#status").textContent = "";
    $("#error").textContent = `The library cannot be shown: ${visible(error.message)}`;
    $("#error").hidden = false;
  }
  document.body.dataset.ready = "true";
}

main();
