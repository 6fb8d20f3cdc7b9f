// A round's page, live: the server drew the tables; this redraws them each time the round's
// stream (/rounds/{id}/follow, Server-Sent Events) says a table moved. Everything it shows is
// what /rounds/{id}.json gives anyone with the page's address: no token, no hidden card. Text
// goes in through textContent only. Its words are the page's language (i18n.js): the state a
// table is in comes as English (what scripts match on) and is translated here, as the server
// translated it in the page it drew.

import { N_, language, locale, ready, t } from "./i18n.js";

const ID = document.body.dataset.round;
const live = document.getElementById("live");
let shown = null;
const served = document.documentElement.lang || "en";      // the server's language, before i18n.js sets its own
// The states rounds.py gives a table, besides "playing duel {number}".
const STATES = new Set([N_("ended"), N_("between duels"), N_("not started"), N_("private")]);

function cell(text, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  td.textContent = text;
  return td;
}

function score(games) {
  if (!games || !games.length) return "\u2014";   // a private match's table: its number only
  const [won = 0, lost = 0, drawn = 0] = games;
  return `${won} \u2013 ${lost}` + (drawn ? t(" ({count} drawn)", { count: drawn }) : "");
}

function state(text) {
  const playing = /^playing duel (\d+)$/.exec(text || "");
  if (playing) return t("playing duel {number}", { number: playing[1] });
  return STATES.has(text) ? t(text) : text;
}

// What a table needs (rounds.ATTENTION: the JSON's codes), and who records it (rounds.RECORDERS),
// in the page's words.
const NEEDS = { judge_called: N_("judge called"), disputed: N_("entry disputed"),
  result_due: N_("result to record"), time_called: N_("time called") };
const WHO = { recorder: N_("scorekeeper"), p0: N_("player 0"), p1: N_("player 1"), judge: N_("judge") };
const COUNTS = [["playing", N_("{count} playing")], ["between_duels", N_("{count} between duels")],
  ["ended", N_("{count} ended")], ["not_started", N_("{count} not started")],
  ["attention", N_("{count} need attention")]];

function needs(table) {
  const turns = (table.time || {}).extra_turns;
  return (table.attention || []).filter((code) => code in NEEDS).map((code) => t(NEEDS[code])
    + (code === "time_called" && turns ? t(" (extra turn {n})", { n: turns }) : "")).join(" \u00b7 ") || "\u2014";
}

function who(recording) {
  return (recording.by || []).filter((role) => role in WHO).map((role) => t(WHO[role])).join(" + ") || "\u2014";
}

function counted(round) {
  const counts = round.counts || { tables: round.tables.length };
  return [t("{count} tables", { count: counts.tables }),
    ...COUNTS.filter(([key]) => counts[key]).map(([key, words]) => t(words, { count: counts[key] }))].join(" \u00b7 ");
}

function when(iso) {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleTimeString(locale());
}

function row(table) {
  const tr = document.createElement("tr");
  tr.id = `table-${table.table}`;
  if ((table.attention || []).length) tr.className = "attention";
  const recording = table.recording || {};
  const names = table.players.length ? table.players : ["\u2014", "\u2014"];
  const players = names.map((name, i) => cell(name, table.winner === i ? "won" : ""));
  const last = document.createElement("time");
  const at = recording.last_entry || table.last_event;
  if (at) last.dateTime = at;
  last.textContent = at ? when(at) : "\u2014";
  const lastCell = document.createElement("td");
  lastCell.append(last);
  tr.append(cell(String(table.table), "num"), ...players, cell(score(table.score), "num score"),
    cell(state(table.state), "state"), cell(needs(table), "needs"), cell(who(recording), "who"), lastCell);
  return tr;
}

// Who vouches for the round's record (its "signed": rounds.load_round), as the server words it
// (round_pages.seal_said): the line drawn again from each whole round the stream sends, so a
// round signed late (round sign, POST /rounds/{id}/sign) stops reading UNSIGNED without a reload.
function seal(round) {
  const line = document.getElementById("seal");
  const signed = round.signed;
  line.classList.toggle("unsigned", !signed);
  line.textContent = !signed
    ? t("UNSIGNED: this round was written before rounds were signed; nothing vouches for its tables (one renumbered or dropped in the database would not be seen). The organiser may sign it as it stands: ygoreplay round sign {id}", { id: round.id })
    : signed.late
      ? t("Signed by the organiser's key {key} at {time}, after it was written unsigned: the signature vouches for the round as it stood then", { key: signed.key, time: signed.time })
      : t("Signed by the organiser's key {key} at {time}", { key: signed.key, time: signed.time });
}

function draw(round) {
  const before = new Map([...document.querySelectorAll("#tables tbody tr")].map((tr) => [tr.id, tr.textContent]));
  const rows = round.tables.map(row);
  for (const tr of rows) if (shown && before.get(tr.id) !== tr.textContent) tr.classList.add("moved");
  document.querySelector("#tables tbody").replaceChildren(...rows);
  document.getElementById("counts").textContent = counted(round);
  seal(round);
  shown = round;
  document.body.dataset.updated = String(Number(document.body.dataset.updated || "0") + 1);
}

function follow() {
  const stream = new EventSource(`/rounds/${ID}/follow`);
  stream.addEventListener("open", () => { live.textContent = t("live"); live.dataset.live = "true"; });
  stream.addEventListener("error", () => { live.textContent = t("reconnecting\u2026"); live.dataset.live = "false"; });
  const updated = () => {
    live.textContent = t("live \u00b7 updated {time}", { time: new Date().toLocaleTimeString(locale()) });
    live.dataset.live = "true";
  };
  // the whole round on connecting (and reconnecting), then only the rows that changed
  stream.addEventListener("round", (message) => { draw(JSON.parse(message.data)); updated(); });
  stream.addEventListener("tables", (message) => {
    if (!shown) return;
    const moved = JSON.parse(message.data);
    const rows = new Map(moved.tables.map((table) => [table.table, table]));
    const round = { ...shown, counts: moved.counts, tables: shown.tables.map((table) => rows.get(table.table) || table) };
    // only the rows that changed are drawn again (a 500-table round's page redrew every row);
    // "moved" marks those of this change only, as a whole redraw did
    for (const tr of document.querySelectorAll("#tables tbody tr.moved")) tr.classList.remove("moved");
    for (const table of moved.tables) {
      const old = document.getElementById(`table-${table.table}`);
      if (!old) { draw(round); updated(); return; }
      const tr = row(table);
      if (old.textContent !== tr.textContent) tr.classList.add("moved");
      old.replaceWith(tr);
    }
    document.getElementById("counts").textContent = counted(round);
    shown = round;
    document.body.dataset.updated = String(Number(document.body.dataset.updated || "0") + 1);
    updated();
  });
}

ready.then(() => {
  // a language chosen on another page (i18n.js) that the server did not draw this one in: the
  // page again in it, so its headings and its rows say the same language
  if (language !== served && !new URLSearchParams(location.search).has("lang")) {
    const params = new URLSearchParams(location.search);
    params.set("lang", language);
    location.replace(`${location.pathname}?${params}${location.hash}`);
  } else if (/^[0-9a-f]{12}$/.test(ID || "")) follow();
});
