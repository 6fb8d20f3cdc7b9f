// The library: recent public duels and matches, a search kept in the address (/library?player=...:
// a search is a link), pages by cursor, and a card's or a player's page. The service answers only
// with what the public view shows (/search, /cards/{code}/stats, /players/{name}); every string it
// gives is first made visible (text.js) and only ever goes in through textContent. Its words are
// in the reader's language (i18n.js); the data (names, titles, events, formats) as recorded.

import { N_, ready, t } from "./i18n.js";
import { visible } from "./text.js";

// library.html's own words, translated in place by i18n.js (listed here for the catalogue)
N_("ygoreplay library"); N_("The card"); N_("The player"); N_("Search"); N_("Player"); N_("Title"); N_("Event name");
N_("Round"); N_("Format"); N_("Banlist"); N_("From"); N_("Until"); N_("Result"); N_("any"); N_("first player won");
N_("second player won"); N_("draw"); N_("unfinished"); N_("Source"); N_("imported from a simulator");
N_("recorded at a table"); N_("recorded by a client"); N_("Kind"); N_("duels and matches"); N_("duels"); N_("matches");
N_("What happened to a card"); N_("Card"); N_("name or passcode"); N_("was"); N_("activated"); N_("summoned");
N_("sent to the GY"); N_("banished"); N_("negated"); N_("by turn"); N_("Clear"); N_("Recent public duels and matches");
N_("Pages"); N_("newest"); N_("older");

// The filters /search takes, as the form names them; the address carries them (and the cursor).
export const FILTERS = ["player", "title", "event", "round", "format", "banlist", "since", "until", "result",
  "source", "card", "action", "turn_max", "kind"];
const ID = /^[0-9a-f]{12}$/;
const PAGE = 25;
// How a duel ended (events.END_REASONS) and how a record came to be (the search's badges), as the page says them.
const REASONS = { lp: N_("LP 0"), deck_out: N_("could not draw"), draw: N_("a draw"), surrender: N_("surrender"),
  effect: N_("a card's effect"), judge: N_("a judge's decision"), time: N_("time"), disconnect: N_("disconnection") };
const BADGES = { imported: N_("imported"), table: N_("table"), witnessed: N_("witnessed"), flagged: N_("flagged"),
  signed: N_("signed"), "verified-origin": N_("verified origin"), rollback: N_("rollback") };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

const $ = (selector) => document.querySelector(selector);

// Players' names side by side: "Yugi vs Kaiba" in the reader's language.
const versus = (players) => players.join(" " + t("vs") + " ");

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
  if (!r) return t("unfinished");
  const reason = r.reason ? (REASONS[r.reason] ? t(REASONS[r.reason]) : r.reason) : null;
  if (r.winner === 0 || r.winner === 1) {
    const player = row.players[r.winner] || t("Player {n}", { n: r.winner });
    return reason ? t("{player} won ({reason})", { player, reason }) : t("{player} won", { player });
  }
  return reason ? t("draw ({reason})", { reason }) : t("draw");
}

export function rowOf(row) {
  const li = el("li", "row");
  li.dataset.kind = row.kind;
  li.dataset.id = row.id;
  const players = Array.isArray(row.players) ? row.players : [];
  const head = el("a", "open", row.title || versus(players) || row.id);
  const href = opens(row);
  if (href) head.href = href;
  head.setAttribute("aria-label", row.kind === "match" ? t("Match: {title}", { title: head.textContent })
    : t("Duel: {title}", { title: head.textContent }));
  const who = el("div", "players");
  players.forEach((name, i) => { if (i) who.append(" " + t("vs") + " "); who.append(playerLink(name)); });
  const meta = el("div", "meta");
  const add = (text, className) => { if (text) meta.append(el("span", className || "", text)); };
  add(row.kind === "match" ? t("match") : t("duel"), "kind");
  add([row.event, row.round ? t("round {n}", { n: row.round }) : null].filter(Boolean).join(" \u00b7 "), "event");
  add([row.format, row.banlist].filter(Boolean).join(" \u00b7 "), "format");
  add(row.created ? String(row.created).slice(0, 10) : "", "date");
  add(resultText(row), "result");
  add(t("{events} events \u00b7 {turns} turns", { events: row.events ?? 0, turns: row.turns ?? 0 }), "length");
  const badges = el("div", "badges");
  for (const badge of row.badges || []) {
    badges.append(el("span", `badge ${String(badge).replace(/[^a-z-]/g, "")}`, BADGES[badge] ? t(BADGES[badge]) : badge));
  }
  li.append(head, who, meta);
  if (badges.children.length) li.append(badges);
  return li;
}

async function fetched(url) {
  const response = await fetch(url, { cache: "no-store" });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || t("the service answered {status}", { status: response.status }));
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
  $("#heading").textContent = filtered ? t("Search results") : t("Recent public duels and matches");
  const query = new URLSearchParams(search);
  query.set("limit", String(PAGE));
  const data = await fetched(`/search?${query}`);
  show(data.results || [], filtered ? t("Nothing found: try fewer filters.") : t("No public duel yet."));
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
  $("#card-name").textContent = stats.name || t("card {code}", { code });
  document.title = t("{name} \u00b7 ygoreplay library", { name: stats.name || code });
  figures($("#card-figures"), [[t("public duels with it"), stats.duels], [t("activated"), stats.activated],
    [t("summoned"), stats.summoned], [t("its player won"), stats.won_by_user], [t("its player lost"), stats.lost_by_user]]);
  $("#card-stats").hidden = false;
  $("#heading").textContent = t("Public duels where it was played");
  const query = new URLSearchParams({ card: code, limit: String(PAGE) });
  const data = await fetched(`/search?${query}`);
  show(data.results || [], t("No public duel with it yet."));
  if (data.next) {
    $("#older").href = `/library?${new URLSearchParams({ card: code, cursor: data.next })}`;
    $("#older").hidden = false;
  }
}

async function playerPage(name) {
  wireForm(new URLSearchParams());
  const data = await fetched(`/players/${encodeURIComponent(name)}`);
  $("#player-name").textContent = data.name || name;
  document.title = t("{name} \u00b7 ygoreplay library", { name: data.name || name });
  figures($("#player-figures"), [[t("won"), data.won], [t("lost"), data.lost], [t("drawn"), data.drawn],
    [t("public duels"), (data.duels || []).length]]);
  $("#player-stats").hidden = false;
  $("#heading").textContent = t("Public duels");
  show(data.duels || [], t("No public duel yet."));
}

async function main() {
  const path = location.pathname;
  const card = /^\/library\/card\/(\d+)$/.exec(path);
  const player = /^\/library\/player\/([^/]+)$/.exec(path);
  await ready;
  $("#status").textContent = t("loading\u2026");
  try {
    if (card) await cardPage(card[1]);
    else if (player) await playerPage(decodeURIComponent(player[1]));
    else await library();
    $("#status").textContent = "";
  } catch (error) {
    $("#status").textContent = "";
    $("#error").textContent = t("The library cannot be shown: {why}", { why: visible(error.message) });
    $("#error").hidden = false;
  }
  document.body.dataset.ready = "true";
}

main();
