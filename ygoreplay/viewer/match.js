// The ygoreplay match page: one match as the token's view may see it, kept up to date live.
//
// Everything drawn comes from the service's /matches/{id}/state, which the server made for this
// view: a decklist or Side Deck this view may not see arrives as counts, never as cards. Text
// from the match (players' and judges' names, rulings, notes) only ever goes in through
// textContent, made visible first (text.js: no bidirectional or zero-width character acts); links
// are built with URLSearchParams, their paths from ids the server checked. Times are the stored
// record's (UTC), shown in the reader's locale and time zone; while the match is on, also how long
// ago ("3 minutes ago"), kept current.

import { N_, language, locale, ready, t } from "./i18n.js";
import { visible } from "./text.js";

// match.html's own words, translated in place by i18n.js (listed here for the catalogue)
N_("ygoreplay match"); N_("match file"); N_("Score"); N_("Decks"); N_("Duels"); N_("Time"); N_("Penalties");
N_("Judge calls and rulings"); N_("The match's log"); N_("Log");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// Each card once, with how many copies, in the order the list first names it: "3× Celtic Guardian".
function grouped(names) {
  const counts = new Map();
  for (const name of names) counts.set(name, (counts.get(name) || 0) + 1);
  return [...counts].map(([name, count]) => `${count}× ${name}`);
}

// How long before ``now`` (ms) a time was, in the reader's language: "2 minutes ago".
function ago(ms, now) {
  const words = new Intl.RelativeTimeFormat(locale(), { numeric: "auto" });
  const seconds = Math.min(0, Math.round((ms - now) / 1000));      // a clock a little ahead: "now"
  for (const [unit, size] of [["day", 86400], ["hour", 3600], ["minute", 60]]) {
    if (Math.abs(seconds) >= size) return words.format(Math.round(seconds / size), unit);
  }
  return words.format(seconds, "second");
}

const HOW = { lp: N_("LP"), deck_out: N_("deck out"), effect: N_("a card's effect"), surrender: N_("surrender"),
  draw: N_("a draw"), disconnect: N_("disconnection"), judge: N_("a judge's decision"), penalty: N_("penalty"), time: N_("time"),
  games: N_("games"), concession: N_("concession") };
const ROLES = { organiser: N_("organiser"), judge: N_("judge"), player: N_("player"), spectator: N_("spectator"),
  recorder: N_("recorder") };
const VIEWS = { judge: N_("judge"), p0: N_("p0"), p1: N_("p1"), spectator: N_("spectator") };
// The match's vocabularies (match/events.py: PENALTIES, INFRACTIONS, APPEAL_DECISIONS) as the page says them.
const PENALTIES = { caution: N_("caution"), warning: N_("warning"), game_loss: N_("game loss"), match_loss: N_("match loss"),
  disqualification: N_("disqualification") };
const INFRACTIONS = { lateness: N_("lateness"), unsporting_conduct: N_("unsporting conduct"), slow_play: N_("slow play"),
  long_interval: N_("long interval"), decklist_changed: N_("decklist changed"), peeking: N_("peeking"),
  misstated_card: N_("misstated card"), misstated_hand_or_lp: N_("misstated hand or LP"),
  draw_manipulation: N_("draw manipulation"), outside_assistance: N_("outside assistance"), marked_cards: N_("marked cards"),
  objects_in_sleeves: N_("objects in sleeves"), marking_cards: N_("marking cards"), banlist: N_("banlist"),
  deck_too_small: N_("deck too small"), unrelated_objects: N_("unrelated objects"), other: N_("other") };
const DECISIONS = { upheld: N_("upheld"), overturned: N_("overturned") };
const how = (code) => (HOW[code] ? t(HOW[code]) : code);
const worded = (words, key) => (words[key] ? t(words[key]) : key);

export class MatchPage {
  constructor(doc, id, token, view) {
    this.doc = doc;
    this.id = id;
    this.token = token;
    this.view = view;
    this.state = null;
    this.updates = 0;
  }

  q(selector) { return this.doc.querySelector(selector); }

  headers() { return this.token ? { Authorization: `Bearer ${this.token}` } : {}; }

  // the view asked for, and the page's language: the server writes the log's sentences in it
  params(extra) {
    const params = new URLSearchParams(extra || {});
    if (this.view) params.set("view", this.view);
    params.set("lang", language);
    return params;
  }

  async load() {
    const response = await fetch(`/matches/${this.id}/state?${this.params()}`, { headers: this.headers(), cache: "no-store" });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || t("the service answered {status}", { status: response.status }));
    this.state = visible(data);
    this.draw();
    return data;
  }

  name(p) {
    const players = (this.state && this.state.players) || [];
    return players[p] || t("player {n}", { n: p });
  }

  cardName(code) {
    const facts = (this.state.cards || []).find((c) => c.code === code);
    return facts ? facts.name : `#${code}`;
  }

  draw() {
    const s = this.state;
    this.q("#title").textContent = s.title || t("{player0} vs {player1}", { player0: this.name(0), player1: this.name(1) });
    this.q("#status").textContent = [worded(ROLES, s.role), t("{view} view", { view: worded(VIEWS, s.view) }),
      t("{events} events", { events: s.events }), ...(s.ended ? [t("finished")] : [])].join(" \u00b7 ");
    this.q("#player0").textContent = this.name(0);
    this.q("#player1").textContent = this.name(1);
    const [w0, w1, draws] = s.score;
    this.q("#score").textContent = `${w0} \u2013 ${w1}` + (draws ? " (" + t("{n} drawn", { n: draws }) + ")" : "");
    const policy = s.policy;
    this.q("#policy").textContent = policy
      ? `${policy.name}: ${policy.title} \u00b7 ${policy.date}` + (s.banlist ? " \u00b7 " + t("banlist {name}", { name: s.banlist.name }) : "")
      : "";
    // what the organiser gave at creation: the event, its round, the format
    const event = [s.event_name, s.round !== null && s.round !== undefined ? t("Round {n}", { n: s.round }) : "", s.format];
    this.q("#event").textContent = event.filter(Boolean).join(" \u00b7 ");
    this.q("#event").hidden = !event.some(Boolean);
    const result = this.q("#result");
    for (const p of [0, 1]) this.q(`#player${p}`).classList.toggle("won", !!(s.result && s.result.winner === p));
    if (s.result) {
      const r = s.result;
      const who = r.how === "double_loss" ? t("a double loss") : r.winner === null ? t("a draw")
        : t("{player} wins", { player: this.name(r.winner) });
      const duels = `${r.games[0]}-${r.games[1]}` + (r.games[2] ? " (" + t("{n} drawn", { n: r.games[2] }) + ")" : "");
      result.textContent = t("Result: {who} by {how}, duels {duels}, points {points0} / {points1}",
        { who, how: how(r.how), duels, points0: r.points[0], points1: r.points[1] });
      result.classList.add("final");
    } else {
      result.textContent = t("Not finished: {why} ({rule})", s.standing);
      result.classList.remove("final");
    }
    this.drawDecks();
    this.drawGames();
    this.drawTime();
    this.drawList("#penalties", "#penalties-section", s.penalties, (p) =>
      t("{judge} gives {player} a {penalty} for {infraction}", { judge: p.judge, player: this.name(p.player),
        penalty: worded(PENALTIES, p.penalty), infraction: worded(INFRACTIONS, p.infraction) })
      + (p.note ? `: ${p.note}` : ""));
    this.drawList("#calls", "#calls-section", s.judge_calls, (c) => {
      if (c.kind === "judge_called") {
        return t("{player} calls judge {judge}", { player: this.name(c.player), judge: c.judge }) + (c.question ? `: ${c.question}` : "");
      }
      if (c.kind === "judge_ruled") return t("judge {judge} rules: {ruling}", c);
      return t("{player} appeals to {judge}: ruling {decision}", { player: this.name(c.player), judge: c.judge,
        decision: worded(DECISIONS, c.decision) })
        + (c.note ? ` (${c.note})` : "");
    });
    const log = this.q("#log");
    const had = log.children.length;
    s.lines.forEach((line, i) => {
      let li = log.children[i];
      if (!li) {
        li = el("li", had && this.updates ? "new" : "");
        li.append(el("time"), el("span", "line"));
        log.append(li);
      }
      li.lastChild.textContent = line;
      this.stamp(li.firstChild, (s.times || [])[i]);
    });
    while (log.children.length > s.lines.length) log.lastChild.remove();
    this.q("#match").hidden = false;
  }

  // a log line's time: the record's, in the reader's locale (and how long ago, while the match is on)
  stamp(node, iso) {
    if (!iso) { node.textContent = ""; return; }
    const when = new Date(iso);
    node.dateTime = when.toISOString();
    node.title = `${iso} (UTC)`;
    const sameDay = when.toDateString() === new Date().toDateString();
    node.textContent = (sameDay ? when.toLocaleTimeString(locale()) : when.toLocaleString(locale()))
      + (this.state.ended ? "" : ` (${ago(when.getTime(), Date.now())})`);
  }

  // the relative times stay true while the page is open on a match being played
  tick() {
    clearInterval(this.clock);
    this.clock = setInterval(() => {
      if (this.state.ended) { clearInterval(this.clock); return; }
      const log = this.q("#log");
      (this.state.times || []).forEach((iso, i) => log.children[i] && this.stamp(log.children[i].firstChild, iso));
    }, 30_000);
  }

  drawDecks() {
    const box = this.q("#decks");
    box.replaceChildren();
    this.state.decks.forEach((deck, p) => {
      const card = el("div", "deck");
      card.dataset.player = String(p);
      card.append(el("h3", "", this.name(p)));
      if (!deck) { card.append(el("p", "cards", t("no decklist registered"))); box.append(card); return; }
      const c = deck.counts;
      card.append(el("p", "", t("Main {main} \u00b7 Extra {extra} \u00b7 Side {side}", c)));
      if (deck.main) {
        for (const [part, label] of [["main", t("Main Deck")], ["extra", t("Extra Deck")], ["side", t("Side Deck")]]) {
          const list = el("ul", "cards");
          list.dataset.part = part;
          list.setAttribute("aria-label", label);
          list.append(...grouped(deck[part].map((code) => this.cardName(code))).map((line) => el("li", "", line)));
          card.append(el("h4", "", `${label} (${deck[part].length})`), list);
        }
      } else {
        card.append(el("p", "cards", t("the cards are hidden from this view")));
      }
      box.append(card);
    });
  }

  swapLine(swap) {
    const who = this.name(swap.player);
    const { main, extra } = swap.counts;
    if (!swap.main_out) return t("{player} sided {main} Main, {extra} Extra card(s)", { player: who, main, extra });
    const names = (codes) => codes.map((code) => this.cardName(code)).join(", ") || "\u2013";
    return t("{player} sided {main} Main, {extra} Extra: out {out}; in {in}", { player: who, main, extra,
      out: names([...swap.main_out, ...swap.extra_out]), in: names([...swap.main_in, ...swap.extra_in]) });
  }

  drawGames() {
    const list = this.q("#games");
    list.replaceChildren();
    for (const g of this.state.games) {
      const li = el("li");
      li.dataset.game = String(g.game);
      const head = el("div");
      const label = g.extra_duel ? t("Duel {n} (extra duel)", { n: g.game }) : t("Duel {n}", { n: g.game });
      if (g.duel && /^[0-9a-f]{12}$/.test(g.duel)) {
        const a = el("a", "", label);
        const link = new URLSearchParams();
        if (this.token) link.set("token", this.token);
        if (this.view) link.set("view", this.view);
        a.href = `/view/${g.duel}?${link}`;
        head.append(a);
      } else {
        head.append(el("span", "", label));
      }
      const result = !g.ended ? t("being played")
        : g.winner === null ? t("a draw ({how})", { how: how(g.how) }) : t("won by {player} ({how})", { player: this.name(g.winner), how: how(g.how) });
      head.append(el("span", "", `: ${result}`));
      li.append(head);
      const facts = [];
      if (g.first_player !== null) {
        facts.push(g.chosen_by !== null
          ? t("{player} went first, chosen by {chooser}", { player: this.name(g.first_player), chooser: this.name(g.chosen_by) })
          : t("{player} went first", { player: this.name(g.first_player) }));
      }
      if (g.extra_turns) facts.push(t("{n} extra turn(s)", { n: g.extra_turns }));
      if (g.lp) facts.push(t("decided at time on LP {lp0} / {lp1}", { lp0: g.lp[0], lp1: g.lp[1] }));
      if (facts.length) li.append(el("div", "facts", facts.join(" \u00b7 ")));
      for (const swap of g.swaps_before) li.append(el("div", "swap", t("before it: {swap}", { swap: this.swapLine(swap) })));
      list.append(li);
    }
    for (const swap of this.state.swaps_pending) {
      list.append(el("li", "swap", t("for the next duel: {swap}", { swap: this.swapLine(swap) })));
    }
  }

  drawTime() {
    const time = this.state.time;
    this.q("#time-section").hidden = !time;
    if (!time) return;
    const whose = time.turn_player !== null && time.turn_player !== undefined
      ? " (" + t("{player}'s turn", { player: this.name(time.turn_player) }) + ")" : "";
    this.q("#time").textContent = time.game
      ? t("Time called at {clock} in duel {game}, turn {turn}, {phase}", time) + whose
      : t("Time called at {clock} between duels", time);
  }

  drawList(listSel, sectionSel, items, line) {
    const list = this.q(listSel);
    list.replaceChildren(...items.map((item) => el("li", "", line(item))));
    this.q(sectionSel).hidden = !items.length;
  }

  follow() {
    if (this.state.ended) return;
    const params = this.params({ from: String(this.state.events) });
    if (this.token) params.set("token", this.token);
    const stream = new EventSource(`/matches/${this.id}/follow?${params}`);
    let due = false;
    const again = () => {
      if (due) return;
      due = true;
      requestAnimationFrame(async () => {
        due = false;
        this.updates += 1;
        try { await this.load(); } catch (error) { /* the next event tries again */ }
      });
    };
    stream.addEventListener("event", again);
    stream.addEventListener("end", () => { stream.close(); again(); });
  }

  extras() {
    const download = this.q("#download");
    const params = this.params();
    if (this.token) params.set("token", this.token);
    download.href = `/matches/${this.id}/replay.ygr?${params}`;
    download.hidden = false;
  }
}

async function main() {
  await ready;
  const params = new URLSearchParams(location.search);
  const id = location.pathname.split("/").filter(Boolean).pop();
  const page = new MatchPage(document, id, params.get("token"), params.get("view"));
  try {
    await page.load();
  } catch (error) {
    const box = document.getElementById("error");
    box.textContent = t("This match cannot be shown: {why}", { why: visible(error.message) });
    box.hidden = false;
    return;
  }
  window.ygoreplay = { match: page };
  page.extras();
  page.tick();
  page.follow();
  document.body.dataset.ready = "true";
}

main();
