// The ygoreplay web viewer: one duel, one view, every position a keystroke away.
//
// The page holds the view's frames (the service's /duels/{id}/frames, or the data embedded in an
// exported page) and makes the board after every event from them once: a frame is a whole board
// or a patch of the one before, so boards share every part that did not change. Showing a
// position draws only the parts that differ from the board on screen. Nothing here decides what
// the viewer may see: the server redacted the frames, and a hidden card has no passcode in them.
// Text from the duel (names, log lines) only ever goes in through textContent, and every string the
// page is given is first made visible (text.js): no bidirectional or zero-width character acts.
//
// A link names the position and how to look at it: #e57&view=spectator&hands=hidden (the view
// asked for, and the hands drawn face-down whatever the view may see); "share" copies one.
//
// Events are numbered from #0, as the log, the record, the permalinks (#e57) and the service's
// ?at= number them: "event #57 of 88" is the log's line #57 of a duel of 88 events (the last
// reads "event #87 of 88"). Every zone carries the tag the log names it by (sentences.zone_tag:
// M0..M4, M5/M6 the Extra Monster Zones as their controller numbers them, S0..S4, FZ, and the
// piles GY, banished, Extra Deck, Deck, hand), so "[M2]" in a line is found on the board.

import { visible } from "./text.js";
import { N_, language, ready, t } from "./i18n.js";

const FACE_DOWN = new Set(["set", "facedown_attack", "facedown"]);
// A card with no passcode in a face-up position is one the record itself does not know (a recorder
// saw it summoned and could not read it): a view never hides a face-up card, so it is no secret.
const FACE_UP = new Set(["attack", "defense", "faceup"]);
const LOST = { lp: N_("LP 0"), deck_out: N_("could not draw") };
export const TYPE = { MONSTER: 0x1, SPELL: 0x2, TRAP: 0x4, NORMAL: 0x10, EFFECT: 0x20, FUSION: 0x40, RITUAL: 0x80,
  SYNCHRO: 0x2000, TOKEN: 0x4000, FIELD: 0x80000, XYZ: 0x800000, PENDULUM: 0x1000000, LINK: 0x4000000 };
const POSITION_WORDS = { attack: N_("face-up Attack Position"), defense: N_("face-up Defense Position"),
  set: N_("Set"), facedown_attack: N_("face-down Attack Position"), faceup: N_("face-up"), facedown: N_("face-down") };
// The Battle Phase's steps (events.BATTLE_STEPS), the ways a duel ends (events.END_REASONS) and
// the views, as the page says them.
const STEPS = { start: N_("Start Step"), battle: N_("Battle Step"), damage: N_("Damage Step"), end: N_("End Step") };
const REASONS = { lp: N_("LP"), deck_out: N_("deck out"), draw: N_("a draw"), surrender: N_("surrender"),
  effect: N_("a card's effect"), judge: N_("a judge's decision"), time: N_("time"), disconnect: N_("disconnection") };
// "table": a witnessed duel's recorder's (access.TABLE), what is public at the table, undelayed.
const VIEWS = { judge: N_("judge"), p0: N_("p0"), p1: N_("p1"), spectator: N_("spectator"), table: N_("at the table") };
// index.html's own words, translated in place by i18n.js (listed here for the catalogue)
N_("view"); N_("replay file"); N_("Hover or focus a card for its facts."); N_("speed"); N_("link");
N_("View"); N_("The board"); N_("Card details"); N_("The duel's log"); N_("Search the log");
N_("Search the log: a card or a player"); N_("Branches"); N_("Timeline"); N_("Playback speed"); N_("Event");
N_("First event (Home)"); N_("First event"); N_("Previous turn (Shift+Left)"); N_("Previous turn");
N_("Previous event (Left)"); N_("Previous event"); N_("Play or pause (Space)"); N_("Play");
N_("Next event (Right)"); N_("Next event"); N_("Next turn (Shift+Right)"); N_("Next turn");
N_("Last event (End)"); N_("Last event"); N_("The rule"); N_("Close"); N_("The rule's own words");
N_("hide hands"); N_("open in ygoreplay"); N_("share"); N_("A link to this event and view, to hand on");
N_("Link to share"); N_("Open judge calls");

// What a judge decides of a call (events.DECISIONS), as the recorder's page words it.
const DECISIONS = { stands: N_("The duel stands"), warning: N_("Warning"), penalty: N_("Penalty"), reverted: N_("Reverted") };

// A word of the page's vocabulary (the record's own code when it has none).
function worded(words, key) { return words[key] ? t(words[key]) : key; }

// Whether a link's role gets the judge's tools (the open calls, a ruling, a rewind, a what-if):
// the judge's, and the organiser's, who holds every role (access.py); both pages ask this.
export function judging(role) { return role === "judge" || role === "organiser"; }

// What a link's fragment asks for: #e57&view=spectator&hands=hidden (each part optional).
export function linkParts(hash) {
  const parts = new URLSearchParams(hash.replace(/^#/, ""));
  const first = hash.replace(/^#/, "").split("&")[0];
  const match = /^e(\d+)$/.exec(first);
  return { at: match ? Number(match[1]) : null, view: parts.get("view"), handsHidden: parts.get("hands") === "hidden" };
}

// -- the duel: frames in, boards out ---------------------------------------------------------------

export class Duel {
  constructor(info) {
    this.info = visible(info);
    this.frames = [];
    this.boards = [];
    this.cards = new Map();        // passcode -> facts this view may know
    this.turnStarts = [];          // the first event of each turn
    this.rollbacks = [];           // events that are a judge's rollback
    this.calls = [];               // events that call a judge (a dispute at the table, MATCH-08)
    this.rulings = new Map();      // event -> the judge's notes ruling on it (a call closed)
    this.reverted = new Map();     // event -> the rollback (or correction) that undid it
    this.struck = new Set();       // events a correction of a mis-entry undid
    this.inEffect = [];
    this.listeners = [];
  }

  get length() { return this.frames.length; }

  // The judge calls in effect (no rollback undid them), open or ruled: the judge's two pages
  // (this viewer, record.js) ask these three, so a call is open, or ruled, on both alike.
  callsInEffect() { return this.calls.filter((c) => !this.reverted.has(c)); }

  // Whether entry ``c`` has a ruling in effect on it (a judge_note "on" it, not rolled back).
  ruled(c) { return (this.rulings.get(c) || []).some((r) => !this.reverted.has(r)); }

  // The judge calls still open: in effect, and no ruling in effect on them.
  openCalls() { return this.callsInEffect().filter((c) => !this.ruled(c)); }

  // A card as the reader names it: its facts' name, said in the view's language (live._named);
  // the board's is the record's English (a zh-Hant board showed Called by the Grave, its log 墓穴的指名者).
  nameOf(card) {
    const facts = this.cards.get(card.code);
    return (facts && facts.name) || card.name;
  }

  add(frames) {
    const taken = [];
    for (const frame of visible(frames)) {
      if (frame.i < this.frames.length) continue;        // a repeat after a reconnect
      if (frame.i > this.frames.length) {                // a gap: the frames between are fetched
        if (this.onGap) this.onGap(this.frames.length);
        break;
      }
      taken.push(frame);
      for (const facts of frame.cards || []) this.cards.set(facts.code, facts);
      const before = this.boards[this.boards.length - 1];
      const board = frame.board ? frame.board : applyPatch(before, frame.patch || {});
      this.frames.push(frame);
      this.boards.push(board);
      if (!before || board.turn !== before.turn) this.turnStarts.push(frame.i);
      if (frame.kind === "rolled_back" || frame.kind === "entry_corrected") {
        // a judge's rollback reverts; a correction of a mis-entry (a witnessed duel's) strikes
        if (frame.kind === "rolled_back") this.rollbacks.push(frame.i);
        while (this.inEffect.length && this.inEffect[this.inEffect.length - 1] >= frame.to) {
          const undone = this.inEffect.pop();
          this.reverted.set(undone, frame.i);
          if (frame.kind === "entry_corrected") this.struck.add(undone);
        }
      } else {
        this.inEffect.push(frame.i);
        if (frame.call) this.calls.push(frame.i);
        if (frame.on !== undefined && frame.on !== null) this.rulings.set(frame.on, [...(this.rulings.get(frame.on) || []), frame.i]);
      }
    }
    if (taken.length || !frames.length) for (const listener of this.listeners) listener(taken);
  }
}

export function applyPatch(board, patch) {
  const next = { ...board };
  let players = null;
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith("players.")) { next[key] = value; continue; }
    const [, index, part] = key.split(".");
    const p = Number(index);
    if (!players) { players = board.players.slice(); next.players = players; }
    if (players[p] === board.players[p]) players[p] = { ...board.players[p] };
    if (part.endsWith("+")) {
      const name = part.slice(0, -1);
      players[p][name] = board.players[p][name].concat(value);
    } else {
      players[p][part] = value;
    }
  }
  return next;
}

// -- small DOM helpers -----------------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// The tag a zone has in the log (sentences.zone_tag), shown in its corner; its aria-label says it in words.
function tagOf(text) {
  const tag = el("span", "ztag", text);
  tag.setAttribute("aria-hidden", "true");
  return tag;
}

// A zone's cards replaced by ``children``; its tag stays.
function refill(node, children) {
  const tag = node.querySelector(":scope > .ztag");
  node.replaceChildren(...(tag ? [tag] : []), ...children);
}

// An Extra Monster Zone as a player numbers it: slot 0 is the left one as player 0 sees it, which
// is player 0's M5 and player 1's M6 (state.emz_slot).
function emzTag(slot, player) {
  return (slot === 0) === (player === 0) ? "M5" : "M6";
}

function kindOf(facts) {
  if (!facts) return "unknown";
  const type = facts.type;
  if (type & TYPE.SPELL) return "spell";
  if (type & TYPE.TRAP) return "trap";
  if (type & TYPE.TOKEN) return "token";
  if (type & TYPE.LINK) return "link";
  if (type & TYPE.XYZ) return "xyz";
  if (type & TYPE.SYNCHRO) return "synchro";
  if (type & TYPE.FUSION) return "fusion";
  if (type & TYPE.RITUAL) return "ritual";
  if (type & TYPE.EFFECT) return "effect";
  return "normal";
}

// -- the viewer ------------------------------------------------------------------------------------

export class Viewer {
  constructor(root, duel, source) {
    this.root = root;
    this.duel = duel;
    this.source = source;
    this.position = -1;
    this.shown = null;             // the board on screen
    this.cardOf = new WeakMap();   // button -> the card it draws
    this.timer = null;
    this.hashTimer = null;
    this.following = false;        // at the last event of a live duel: stay there as more come
    this.handsHidden = linkParts(location.hash).handsHidden;   // both hands drawn face-down (a link's choice)
    this.linkView = linkParts(location.hash).view;              // the address names the view when its link did
    this.q = (selector) => root.querySelector(selector);
    this.bottom = duel.info.view === "p1" ? 1 : 0;
    this.build();
    duel.listeners.push((frames) => this.added(frames));
    const details = (event) => {
      const button = event.target.closest && event.target.closest(".card");
      if (button && this.cardOf.has(button)) this.details(this.cardOf.get(button));
    };
    this.q("#board").addEventListener("mouseover", details);
    this.q("#board").addEventListener("focusin", details);
  }

  // the board's cells, made once; render() fills them
  build() {
    const first = this.duel.boards[0];
    this.sides = [0, 1].map((p) => this.buildSide(p, p === this.bottom ? this.q("#side-bottom") : this.q("#side-top"),
      p !== this.bottom, first));
    const middle = this.q("#middle");
    middle.replaceChildren();
    this.emz = [el("div", "zone emz"), el("div", "zone emz")];
    this.info = el("div", "info");
    this.turnLine = el("p", "turnline");
    this.chainList = el("ol", "chain");
    this.chainList.setAttribute("aria-label", t("The chain"));
    this.attackLine = el("p", "attack");
    this.resultLine = el("p", "result");
    this.info.append(this.turnLine, this.attackLine, this.chainList, this.resultLine);
    const left = this.bottom === 0 ? this.emz[0] : this.emz[1];
    const right = this.bottom === 0 ? this.emz[1] : this.emz[0];
    left.setAttribute("aria-label", t("Extra Monster Zone (left)"));
    right.setAttribute("aria-label", t("Extra Monster Zone (right)"));
    this.emzTags = this.emz.map((zone) => {
      const tag = tagOf("");
      zone.append(tag);
      return tag;
    });
    middle.append(left, this.info, right);
    if (first && first.layout && !first.layout.emz) { left.hidden = true; right.hidden = true; }
  }

  buildSide(p, node, top, first) {
    node.replaceChildren();
    node.classList.toggle("top", top);
    node.dataset.player = String(p);
    const column = (c) => (top ? 9 - c : c);
    const row = (r) => (top ? 5 - r : r);
    const cell = (className, r, c, label, tag) => {
      const div = el("div", className);
      div.style.gridRow = String(row(r));
      div.style.gridColumn = String(column(c));
      if (label) div.setAttribute("aria-label", label);
      if (tag) div.append(tagOf(tag));
      if (className.includes("pile") && column(c) <= 4) div.classList.add("opens-right");   // its list opens onto the board
      node.append(div);
      return div;
    };
    const pend = (first && first.layout && first.layout.pendulum) || [0, 4];
    const stCount = first ? first.players[p].szone.length : 5;
    const side = {
      mzone: [0, 1, 2, 3, 4].map((z) => cell("zone m", 1, z + 2, t("Main Monster Zone {n}", { n: z + 1 }), `M${z}`)),
      szone: [0, 1, 2, 3, 4].map((z) => cell("zone s" + (pend.includes(z) ? " pend" : ""), 2, z + 2,
        pend.includes(z) ? t("Spell & Trap Zone {n} (Pendulum Zone)", { n: z + 1 }) : t("Spell & Trap Zone {n}", { n: z + 1 }),
        `S${z}`)),
      fzone: cell("zone f", 1, 1, t("Field Zone"), "FZ"),
      gy: cell("zone pile", 1, 7, t("Graveyard")),
      banished: cell("zone pile", 1, 8, t("Banished")),
      extra: cell("zone pile", 2, 1, t("Extra Deck")),
      deck: cell("zone deck", 2, 7, t("Deck")),
      hand: cell("hand", 3, 1, t("Hand")),
      who: cell("who", 4, 1),
    };
    if (stCount > 5) {                       // MR3: two separate Pendulum Zones (CONF-09)
      side.szone.push(cell("zone s pend", 2, 8, t("Pendulum Zone (left)"), "S5"));
      side.szone.push(cell("zone s pend", 3, 8, t("Pendulum Zone (right)"), "S6"));
    }
    side.hand.style.gridColumn = top ? "2 / 9" : "1 / 8";
    // the hand's tag sits on the hand's grid area, not inside the hand: the hand scrolls sideways,
    // which would clip a tag sat on its frame and carry it off with the cards
    const handTag = tagOf(t("hand"));
    handTag.style.gridRow = side.hand.style.gridRow;
    handTag.style.gridColumn = side.hand.style.gridColumn;
    node.append(handTag);
    side.who.style.gridColumn = "1 / 9";
    side.name = el("span", "name");
    side.lp = el("output", "lp");
    side.lp.setAttribute("aria-label", t("Life Points"));
    side.lost = el("span", "lost");
    side.lost.hidden = true;
    side.who.append(side.name, el("span", "lplabel", t("LP") + " "), side.lp, side.lost);
    // the piles' tags: the words the log names them by (sentences.zone_tag)
    for (const [key, label] of [["gy", t("GY")], ["banished", t("banished")], ["extra", t("Extra Deck")]]) {
      const details = el("details", "pilelist");
      const summary = el("summary", "", "");
      side[key + "Count"] = el("span", "count", "0");
      summary.append(el("span", "ztag", label), " ", side[key + "Count"]);   // the summary's name: not aria-hidden
      const list = el("ol");
      details.append(summary, list);
      side[key + "Top"] = el("span", "top-card");
      side[key].append(details, side[key + "Top"]);
      side[key + "List"] = list;
    }
    side.deckCount = el("span", "count");
    side.deckTop = el("span", "top-card");       // its top card, when it is known there (ZONE-11)
    side.deckPlaces = el("span", "deck-places");  // the cards known in between, by place (ZONE-11)
    side.deck.append(tagOf(t("Deck")), side.deckCount, side.deckTop, side.deckPlaces);
    return side;
  }

  cardButton(card, place) {
    if (place === "hand" && this.handsHidden && !card.hidden) {
      card = { id: card.id, hidden: true, owner: card.owner, controller: card.controller };
    }
    const button = el("button", "card");
    button.type = "button";
    button.dataset.card = card.id;             // the record's id of it (the frames carry it): a recorder taps it
    this.cardOf.set(button, card);
    if (card.hidden && FACE_UP.has(card.position)) {
      button.classList.add("k-unknown", "unknown");
      if (place === "mzone" && card.position === "defense") button.classList.add("sideways");
      button.append(el("span", "cname", t("unknown card")));
      button.setAttribute("aria-label", t("an unknown card, {position}", { position: t(POSITION_WORDS[card.position]) }));
      return button;
    }
    if (card.hidden) {
      button.classList.add("back");
      if (place === "mzone" && (card.position === "set" || card.position === "defense")) button.classList.add("sideways");
      button.setAttribute("aria-label", t("a face-down card"));
      return button;
    }
    const facts = this.duel.cards.get(card.code);
    button.classList.add("k-" + kindOf(facts));
    if (FACE_DOWN.has(card.position)) button.classList.add("down");
    if (place === "mzone" && (card.position === "defense" || card.position === "set")) button.classList.add("sideways");
    const name = this.duel.nameOf(card);
    button.append(el("span", "cname", name));
    let label = name;
    if (card.atk !== undefined) {
      const stats = `${card.atk ?? "?"}/${card.defense ?? "-"}`;
      button.append(el("span", "stats", stats));
      label += ", " + t("ATK {atk} DEF {def}", { atk: card.atk ?? "?", def: card.defense ?? "-" });
    }
    if (card.materials && card.materials.length) button.append(el("span", "mats", `+${card.materials.length}`));
    if (card.position && place !== "hand") label += `, ${worded(POSITION_WORDS, card.position)}`;
    button.setAttribute("aria-label", label);
    return button;
  }

  fill(node, card, place) {
    refill(node, card ? [this.cardButton(card, place)] : []);
  }

  pile(side, key, cards) {
    const count = cards.length;
    const top = count ? cards[count - 1] : null;
    side[key + "Count"].textContent = String(count);
    side[key + "Top"].textContent = top && !top.hidden ? this.duel.nameOf(top) : top && FACE_UP.has(top.position) ? t("unknown card") : "";
    const list = side[key + "List"];
    list.replaceChildren(...cards.map((card) => {
      const li = el("li");
      li.append(this.cardButton(card, key));
      return li;
    }));
  }

  renderSide(p, now, was, animate) {
    const side = this.sides[p];
    if (!was || now.name !== was.name) side.name.textContent = now.name || t("Player {n}", { n: p });
    if (!was || now.lp !== was.lp) this.lifePoints(side.lp, now.lp, animate && was);
    if (!was || now.lost !== was.lost) {
      side.who.classList.toggle("has-lost", !!now.lost);
      side.lost.hidden = !now.lost;
      side.lost.textContent = now.lost ? t("lost ({why})", { why: worded(LOST, now.lost) }) : "";
    }
    if (!was || now.deck !== was.deck) side.deckCount.textContent = String(now.deck);
    if (!was || JSON.stringify(now.deck_top) !== JSON.stringify(was.deck_top)) {
      refill(side.deckTop, now.deck_top ? [this.cardButton(now.deck_top, "deck")] : []);
    }
    if (!was || JSON.stringify(now.deck_places) !== JSON.stringify(was.deck_places)) {
      refill(side.deckPlaces, (now.deck_places || []).map(([place, c]) => {
        const at = el("span", "deck-place");
        at.append(el("span", "count", `#${place + 1}`), this.cardButton(c, "deck"));
        return at;
      }));
    }
    if (!was || now.mzone !== was.mzone) now.mzone.slice(0, 5).forEach((c, z) => this.fill(side.mzone[z], c, "mzone"));
    if (!was || now.szone !== was.szone) now.szone.forEach((c, z) => side.szone[z] && this.fill(side.szone[z], c, "szone"));
    if (!was || now.fzone !== was.fzone) this.fill(side.fzone, now.fzone, "fzone");
    if (!was || now.hand !== was.hand) refill(side.hand, now.hand.map((c) => this.cardButton(c, "hand")));
    for (const key of ["gy", "banished", "extra"]) if (!was || now[key] !== was[key]) this.pile(side, key, now[key]);
  }

  lifePoints(node, value, animate) {
    const old = Number(node.dataset.value);
    node.dataset.value = String(value);
    if (node.tween) cancelAnimationFrame(node.tween);
    node.tween = null;
    if (!animate || Number.isNaN(old) || old === value) { node.textContent = String(value); return; }
    const delta = value - old;
    const badge = el("span", delta < 0 ? "delta loss" : "delta gain", (delta < 0 ? "\u2212" : "+") + Math.abs(delta));
    badge.setAttribute("aria-hidden", "true");
    node.parentNode.append(badge);
    badge.addEventListener("animationend", () => badge.remove());
    const start = performance.now();
    const tick = (now) => {
      const k = Math.min(1, (now - start) / 450);
      node.textContent = String(k < 1 ? Math.round(old + delta * k) : value);
      node.tween = k < 1 ? requestAnimationFrame(tick) : null;
    };
    node.tween = requestAnimationFrame(tick);
  }

  renderMiddle(now, was) {
    const name = (p) => (now.players[p] && now.players[p].name) || t("Player {n}", { n: p });
    if (!was || now.emz !== was.emz) {
      now.emz.forEach((c, z) => {
        this.fill(this.emz[z], c, "mzone");
        this.emzTags[z].textContent = emzTag(z, c ? c.controller : this.bottom);
        this.emz[z].dataset.controller = c ? String(c.controller) : "";
        this.emz[z].title = c ? t("{player}'s monster", { player: name(c.controller) }) : "";
      });
    }
    if (!was || now.turn !== was.turn || now.phase !== was.phase || now.step !== was.step || now.players !== was.players) {
      // the step in the language's own brackets (sentences.aside): （ダメージステップ） in Japanese
      const phase = now.phase_name + (now.step ? t(" ({aside})", { aside: worded(STEPS, now.step) }) : "");
      this.turnLine.textContent = now.turn
        ? t("Turn {turn} \u00b7 {player} \u00b7 {phase}", { turn: now.turn, player: name(now.turn_player), phase })
        : now.phase_name;
    }
    if (!was || now.chain !== was.chain) {
      this.chainList.replaceChildren(...now.chain.slice().reverse().map((link) => {
        const li = el("li", "link", t("Chain Link {link} \u00b7 {player}: ", { link: link.link, player: name(link.player) }));
        if (link.card) li.append(this.cardButton(link.card, "chain"));
        return li;
      }));
    }
    if (!was || now.attack !== was.attack) {
      const a = now.attack;
      this.attackLine.replaceChildren();
      if (a && a.attacker) {
        const called = (c) => (!c.hidden ? this.duel.nameOf(c) : FACE_UP.has(c.position) ? t("an unknown card") : t("a face-down monster"));
        const attacker = called(a.attacker);
        this.attackLine.textContent = "\u2694 " + (a.target ? t("{attacker} attacks {target}", { attacker, target: called(a.target) })
          : t("{attacker} attacks directly", { attacker }));
      }
    }
    const losers = [0, 1].filter((p) => now.players[p].lost);
    const lostBefore = was ? [0, 1].filter((p) => was.players[p].lost).join() : null;
    if (!was || now.ended !== was.ended || losers.join() !== lostBefore) {
      // a duel the record has not ended yet, where the rules already say who lost (WIN-01/02/04)
      const pending = losers.length === 2 ? t("A draw: both players have lost")
        : losers.length ? t("{winner} wins: {loser} has lost ({why})",
          { winner: name(1 - losers[0]), loser: name(losers[0]), why: worded(LOST, now.players[losers[0]].lost) })
          : "";
      const reason = now.reason ? worded(REASONS, now.reason) : t("ended");
      this.resultLine.textContent = now.ended
        ? (now.winner === null || now.winner === undefined ? t("Draw ({reason})", { reason })
          : t("{winner} wins ({reason})", { winner: name(now.winner), reason }))
        : pending;
    }
  }

  render(board, animate) {
    const was = this.shown;
    for (const p of [0, 1]) {
      if (!was || board.players[p] !== was.players[p]) this.renderSide(p, board.players[p], was && was.players[p], animate);
    }
    this.renderMiddle(board, was);
    this.shown = board;
  }

  details(card) {
    const box = this.q("#details");
    box.replaceChildren();
    if (card.hidden && FACE_UP.has(card.position)) {
      box.append(el("h2", "", t("An unknown card")), el("p", "hint", t("The record does not say which card this is.")),
        el("p", "", t(POSITION_WORDS[card.position])));
      return;
    }
    if (card.hidden) {
      box.append(el("h2", "", t("A face-down card")), el("p", "hint", t("This view may not see it.")));
      return;
    }
    const facts = this.duel.cards.get(card.code) || {};
    box.append(el("h2", "", this.duel.nameOf(card)));
    if (facts.text) box.append(el("p", "facts", facts.text));
    if (card.atk !== undefined) {
      box.append(el("p", "", t("ATK {atk} / DEF {def}", { atk: card.atk ?? "?", def: card.defense ?? "-" })
        + (card.level ? ` \u00b7 ${card.level}\u2605` : "")));
    }
    if (card.position) box.append(el("p", "", worded(POSITION_WORDS, card.position)));
    const name = (p) => (this.shown && this.shown.players[p] && this.shown.players[p].name) || t("Player {n}", { n: p });
    box.append(el("p", "hint", t("controlled by {controller}, owned by {owner}", { controller: name(card.controller), owner: name(card.owner) })));
    if (card.counters) {
      box.append(el("p", "", t("counters: {list}", { list: Object.entries(card.counters).map(([k, v]) => `${k} ${v}`).join(", ") })));
    }
    if (card.materials && card.materials.length) {
      const hidden = t("a hidden card");
      const list = card.materials.map((m) => (m && !m.hidden ? this.duel.nameOf(m) : hidden)).join(", ");
      box.append(el("p", "", t("materials: {list}", { list })));
    }
  }

  // The rule a flag names, in the reader's language: its one-line summary and the original
  // Chinese text it was distilled from (the service's /rules/{id}; without it, the flag's message).
  async rule(id, message) {
    const box = this.q("#rule");
    if (!box) return;
    this.q("#rule-id").textContent = id;
    this.q("#rule-summary").textContent = message || "";
    const quotes = this.q("#rule-quotes");
    quotes.replaceChildren();
    this.q("#rule-seed").hidden = true;
    box.hidden = false;
    this.q("#rule-close").focus();
    const answer = this.source.rule ? await this.source.rule(id).catch(() => null) : null;
    if (!answer || this.q("#rule-id").textContent !== id) return;
    if (answer.summary) this.q("#rule-summary").textContent = answer.summary;
    for (const quote of answer.seed_quotes || []) {
      const figure = el("figure");
      const text = el("blockquote", "", quote.text);
      text.lang = "zh-Hans";                       // the seeds are Simplified Chinese rule documents
      figure.append(text, el("figcaption", "", quote.file));
      quotes.append(figure);
    }
    this.q("#rule-seed").hidden = !quotes.children.length;
  }

  // -- positions --------------------------------------------------------------------------------

  show(i, { animate = false, fromSlider = false } = {}) {
    const n = this.duel.length;
    if (!n) return;
    i = Number.isNaN(i) ? 0 : Math.max(0, Math.min(n - 1, Math.trunc(i)));   // #e9…9 is the last
    const step = Math.abs(i - this.position) === 1;
    this.render(this.duel.boards[i], animate || step);
    const before = this.q(`#l${this.position}`);
    if (before) before.classList.remove("current");
    this.position = i;
    this.following = i === n - 1 && !this.duel.info.ended;
    const line = this.q(`#l${i}`);
    if (line) {
      line.classList.add("current");
      this.reveal(line);
    }
    if (!fromSlider) this.q("#slider").value = String(i);
    this.where();
    this.q("#permalink").href = this.link(i);
    // The address bar and the log's aria-current follow once scrubbing pauses: a browser limits
    // how often history may change, and an ARIA change costs a frame's time in a long log.
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => this.settle(i), 150);
  }

  // The current line scrolled into the log's view. Lines out of sight are not laid out
  // (content-visibility) and count as one line's height until they have been: a line placed by
  // those guesses can land elsewhere once the lines above it are drawn, so it is placed again on
  // the next frames until it stays in view (what they measured is kept: it settles at once).
  reveal(line, tries = 4) {
    const pane = this.q("#log");
    if (line.hidden || !pane.clientHeight) return;
    const top = line.offsetTop;                     // the log is positioned: offsets are within it
    if (top < pane.scrollTop || top + line.offsetHeight > pane.scrollTop + pane.clientHeight) {
      pane.scrollTop = top - pane.clientHeight / 3;
    }
    if (tries > 0) {
      cancelAnimationFrame(this.revealing);
      this.revealing = requestAnimationFrame(() => {
        if (line.classList.contains("current")) this.reveal(line, tries - 1);
      });
    }
  }

  where() {
    const i = this.position, n = this.duel.length;
    const board = this.duel.boards[i];
    const frame = this.duel.frames[i];
    this.q("#where").textContent = t("event #{i} of {n}", { i, n }) + (board.turn ? " \u00b7 " + t("turn {turn}", { turn: board.turn }) : "")
      + (this.duel.reverted.has(i) ? " \u00b7 " + t("undone by the rollback at #{at}", { at: this.duel.reverted.get(i) }) : "")
      + (frame.time ? ` \u00b7 ${frame.time.slice(0, 19).replace("T", " ")} UTC` : "");
  }

  settle(i) {
    history.replaceState(null, "", this.link(i));
    if (document.body.dataset.embed) {             // the embed's way out: the whole viewer, here
      this.q("#open-full").href = location.pathname.replace(/^\/embed\//, "/view/") + location.search + this.link(i);
    }
    const marked = this.q("#log [aria-current]");
    if (marked) marked.removeAttribute("aria-current");
    const line = this.q(`#l${i}`);
    if (line) line.setAttribute("aria-current", "step");
  }

  turnStart(i, direction) {
    const starts = this.duel.turnStarts;
    if (direction > 0) {
      const next = starts.find((s) => s > i);
      return next === undefined ? this.duel.length - 1 : next;
    }
    let at = 0;
    for (const s of starts) if (s < i) at = s;
    return at;
  }

  play(on) {
    clearInterval(this.timer);
    this.timer = null;
    const button = this.q("#play");
    if (on) {
      if (this.position >= this.duel.length - 1 && this.duel.info.ended) this.show(0);
      const speed = Number(this.q("#speed").value) || 2;
      this.timer = setInterval(() => {
        if (this.position < this.duel.length - 1) this.show(this.position + 1, { animate: true });
        else if (this.duel.info.ended) this.play(false);
      }, 1000 / speed);
    }
    button.textContent = on ? "\u275A\u275A" : "\u25B6";
    button.setAttribute("aria-label", on ? t("Pause") : t("Play"));
  }

  // -- the log and the timeline ---------------------------------------------------------------------

  logLines(frames) {
    const fragment = document.createDocumentFragment();
    for (const frame of frames) {
      const i = frame.i;
      const li = el("li", frame.kind === "turn_started" ? "turn" : frame.kind === "phase_entered" ? "phase" : "line");
      li.id = `l${i}`;
      if (frame.call) li.classList.add("call");        // a judge call: marked as the timeline marks it
      const a = el("a");
      a.href = `#e${i}`;
      a.append(el("span", "n", `#${i}`), document.createTextNode(" " + frame.line));
      const now = this.duel.boards[i];
      const was = i > 0 ? this.duel.boards[i - 1] : null;
      if (was) {
        for (const p of [0, 1]) {
          if (now.players[p].lp !== was.players[p].lp) {
            const who = now.players[p].name || t("Player {n}", { n: p });
            a.append(el("span", "lpchange", ` ${who} LP ${was.players[p].lp} \u2192 ${now.players[p].lp}`));
          }
        }
      }
      const said = [];                    // a witnessed duel's marks: who entered it, what followed
      const flags = [];                   // each flag's rule opens the rule's pop-up
      for (const flag of frame.flags || []) {
        const button = el("button", "flag", `\u2691 ${flag.rule}`);
        button.type = "button";
        const message = flag.message_translated || flag.message;     // the English recorded, else
        button.title = t("flagged {rule}: {message}", { rule: flag.rule, message });
        button.addEventListener("click", () => this.rule(flag.rule, message));
        flags.push(" ", button);
        said.push(button.title);
        li.classList.add("flagged");
      }
      if (frame.ruled) {
        const at = frame.ruled.at;
        said.push((frame.ruled.how === "judge_note" ? t("ruled at #{at}", { at }) : t("undone at #{at}", { at }))
          + (frame.ruled.decision ? `: ${frame.ruled.decision}` : ""));
      }
      if (frame.disputed) {
        a.append(el("span", "disputed", " " + (frame.disputed.open ? t("disputed") : t("dispute ruled"))));
        said.push(t("disputed by {by} at #{at}: {reason}", frame.disputed));
      }
      if (frame.unconfirmed) a.append(el("span", "unconfirmed", " " + t("unconfirmed")));
      if (frame.by) said.push(t("entered by {by}", { by: frame.by }));
      if (frame.time || said.length) a.title = [frame.time || "", ...said].filter(Boolean).join("\n");
      li.append(a, ...flags);
      fragment.append(li);
    }
    const lines = [...fragment.children];
    this.q("#log").append(fragment);
    this.markReverted();
    this.filter(lines);
  }

  markReverted() {
    for (const [i, by] of this.duel.reverted) {
      const li = this.q(`#l${i}`);
      if (li && !li.classList.contains("reverted")) {
        const struck = this.duel.struck.has(i);
        li.classList.add("reverted");
        if (struck) li.classList.add("struck");
        li.title = struck ? t("a mis-entry, corrected at #{at}", { at: by }) : t("undone by the judge's rollback at #{at}", { at: by });
      }
    }
  }

  filter(lines = this.q("#log").children) {
    const query = this.q("#search").value.trim().toLowerCase();
    for (const li of lines) {
      li.hidden = query !== "" && !li.textContent.toLowerCase().includes(query);
    }
  }

  marks() {
    const n = this.duel.length;
    const box = this.q("#marks");
    box.replaceChildren();
    const at = (i) => `${n > 1 ? (i / (n - 1)) * 100 : 0}%`;
    for (const s of this.duel.turnStarts) {
      const tick = el("span", "tick turn");
      tick.style.left = at(s);
      tick.title = t("turn {turn}", { turn: this.duel.boards[s].turn });
      box.append(tick);
    }
    let from = null;
    for (let i = 0; i <= n; i++) {
      const undone = i < n && this.duel.reverted.has(i);
      if (undone && from === null) from = i;
      if (!undone && from !== null) {
        const span = el("span", "undone");
        span.style.left = at(from);
        span.style.width = `calc(${at(i - 1)} - ${at(from)} + 2px)`;
        box.append(span);
        from = null;
      }
    }
    for (const c of this.duel.calls) {     // where the table called the judge: found on the slider
      const tick = el("span", "tick call");
      tick.style.left = at(c);
      tick.title = t("judge call at #{at}", { at: c });
      box.append(tick);
    }
    for (const r of this.duel.rollbacks) {
      const tick = el("span", "tick rollback");
      tick.style.left = at(r);
      tick.title = t("rollback at #{at}", { at: r });
      box.append(tick);
    }
    this.q("#slider").max = String(Math.max(0, n - 1));
  }

  added(frames) {
    const following = this.following;
    if (!this.shown && this.duel.length) this.build();   // the first events of a duel that had none
    this.logLines(frames);
    this.marks();
    if (this.judging) this.openCalls();
    if (following || this.position < 0) this.show(this.duel.length - 1, { animate: true });
    else this.where();                              // the position stays (the log is not scrolled)
    this.status();
  }

  // The judge's link lists the calls still open, each with a ruling to close it (a judge_note
  // "on" the call, MATCH-08): drawn again only when the list changes (a ruling half typed stays).
  openCalls() {
    this.judging = true;
    const open = this.duel.openCalls();
    if (this.callsShown === open.join(",")) return;
    this.callsShown = open.join(",");
    const box = this.q("#calls");
    const list = el("ul");
    for (const c of open) {
      const li = el("li");
      const go = el("a", "", `#${c}`);
      go.href = `#e${c}`;
      li.append(go, document.createTextNode(" " + this.duel.frames[c].line), this.rulingForm(c));
      list.append(li);
    }
    box.replaceChildren(el("h2", "", t("Open judge calls")), open.length ? list : el("p", "hint", t("No judge call is open.")));
    box.hidden = false;
  }

  rulingForm(call) {
    const form = el("form", "ruling");
    const judge = el("input");
    judge.name = "judge";
    judge.required = true;
    judge.placeholder = t("judge's name");
    judge.setAttribute("aria-label", t("judge's name"));
    try { judge.value = localStorage.getItem("ygoreplay.judge") || ""; } catch (error) { judge.value = ""; }
    const text = el("input");
    text.name = "text";
    text.required = true;
    text.placeholder = t("the ruling");
    text.setAttribute("aria-label", t("the ruling"));
    const decision = el("select");
    decision.name = "decision";
    decision.setAttribute("aria-label", t("Decision"));
    decision.required = true;                  // picked by the judge, never a default (as record.js asks)
    decision.append(el("option", "", t("Decision")));
    decision.firstChild.value = "";
    for (const [value, label] of Object.entries(DECISIONS)) {
      const option = el("option", "", t(label));
      option.value = value;
      decision.append(option);
    }
    const button = el("button", "", t("rule on the call"));
    button.type = "submit";
    const said = el("span", "hint");
    said.setAttribute("role", "status");
    form.append(judge, text, decision, button, said);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      button.disabled = true;
      try { localStorage.setItem("ygoreplay.judge", judge.value); } catch (error) { /* private browsing */ }
      // the record the judge ruled on: its length, so a ruling sent again (its answer lost) or
      // after entries the page has not shown yet is a 409, never a second ruling (MATCH-08)
      const refused = await this.source.ruleOn(call, judge.value, text.value, decision.value, this.duel);
      button.disabled = false;
      // read again, the record holds a ruling on the call (this one, its answer lost, or another judge's)
      if (refused && !form.isConnected) this.warn(t("the call is closed: the record holds a ruling on it (see the log)"));
      said.textContent = refused ? t("the ruling was not stored: {why}", { why: refused }) : "";
    });
    return form;
  }

  warn(text) {
    this.warning = text;
    this.status();
  }

  status() {
    const info = this.duel.info;
    const board = this.duel.boards[this.duel.length - 1];
    let text = info.ended || (board && board.ended) ? t("recorded") : t("live");
    if (!info.ended && info.delay && (info.delay.events || info.delay.seconds)) {
      const { events, seconds } = info.delay;
      const behind = events && seconds ? t("spectators are {events} events and {seconds} s behind", { events, seconds })
        : events ? t("spectators are {events} events behind", { events }) : t("spectators are {seconds} s behind", { seconds });
      text += ` \u00b7 ${behind}`;
    }
    if (info.origin && info.origin.verified === false) text += " \u00b7 " + t("origin unverified: {why}", { why: info.origin.why });
    this.q("#status").textContent = text + " \u00b7 " + t("{view} view", { view: worded(VIEWS, info.view) })
      + (this.warning ? ` \u00b7 ${this.warning}` : "");
  }

  // -- wiring ----------------------------------------------------------------------------------------

  start() {
    const q = this.q;
    q("#title").textContent = this.duel.info.title || t("Untitled duel");
    document.title = (this.duel.info.title || t("Duel")) + " \u00b7 ygoreplay";
    for (const option of q("#speed").options) option.textContent = t("{n}/s", { n: option.value });
    const pick = q("#view");
    pick.replaceChildren(...this.duel.info.views.map((v) => {
      const option = el("option", "", worded(VIEWS, v));
      option.value = v;
      option.selected = v === this.duel.info.view;
      return option;
    }));
    pick.disabled = this.duel.info.views.length < 2;
    pick.addEventListener("change", () => this.source.switchView(pick.value, this.position));
    this.logLines(this.duel.frames);
    this.marks();
    this.status();
    const slider = q("#slider");
    slider.addEventListener("input", () => this.show(Number(slider.value), { fromSlider: true }));
    q("#first").addEventListener("click", () => this.show(0));
    q("#last").addEventListener("click", () => this.show(this.duel.length - 1));
    q("#prev").addEventListener("click", () => this.show(this.position - 1));
    q("#next").addEventListener("click", () => this.show(this.position + 1));
    q("#prev-turn").addEventListener("click", () => this.show(this.turnStart(this.position, -1)));
    q("#next-turn").addEventListener("click", () => this.show(this.turnStart(this.position, 1)));
    q("#play").addEventListener("click", () => this.play(this.timer === null));
    q("#speed").addEventListener("change", () => { if (this.timer !== null) this.play(true); });
    q("#search").addEventListener("input", () => this.filter());
    q("#rule-close").addEventListener("click", () => { q("#rule").hidden = true; });
    q("#share").addEventListener("click", () => this.share());
    q("#open-full").hidden = !document.body.dataset.embed;
    q("#hands").checked = this.handsHidden;
    q("#hands").addEventListener("change", () => { this.hideHands(q("#hands").checked); this.settle(this.position); });
    window.addEventListener("hashchange", () => this.fromHash());
    document.addEventListener("keydown", (event) => this.key(event));
    if (!this.fromHash()) this.show(this.duel.info.ended ? 0 : this.duel.length - 1);
  }

  fromHash() {
    const link = linkParts(location.hash);
    if (link.handsHidden !== this.handsHidden) this.hideHands(link.handsHidden);
    if (link.at === null) return false;
    this.show(link.at);
    return true;
  }

  // The fragment of the address at event #i: the view when the page's link named it, the hands if hidden.
  link(i) {
    const parts = [`e${i}`];
    if (this.linkView) parts.push(`view=${encodeURIComponent(this.duel.info.view)}`);
    if (this.handsHidden) parts.push("hands=hidden");
    return "#" + parts.join("&");
  }

  hideHands(on) {
    this.handsHidden = on;
    const box = this.q("#hands");
    if (box) box.checked = on;
    const board = this.shown;
    this.shown = null;                              // drawn again whole
    if (board) this.render(board, false);
    if (this.position >= 0) this.q("#permalink").href = this.link(this.position);
  }

  // A link to the current event and view to hand on: never with a token stronger than the one this
  // page was opened with. A public duel's link holds no token at all (anyone may open it; its
  // view is the spectator's unless this page holds no token either); any other keeps this page's.
  shareLink() {
    const info = this.duel.info;
    const token = new URLSearchParams(location.search).get("token");
    const open = document.querySelector('meta[name="ygoreplay-public"]') !== null;
    const params = new URLSearchParams();
    let view = info.view;
    if (token && !open) params.set("token", token);
    else if (token) view = "spectator";
    const parts = [`e${this.position}`, `view=${encodeURIComponent(view)}`];
    if (this.handsHidden) parts.push("hands=hidden");
    const query = params.toString();
    const path = location.pathname.replace(/^\/embed\//, "/view/");
    return { url: `${location.origin}${path}${query ? "?" + query : ""}#${parts.join("&")}`,
      carriesToken: params.has("token") && info.role !== "spectator" };
  }

  share() {
    const { url, carriesToken } = this.shareLink();
    const box = this.q("#share-link");
    box.value = url;
    box.hidden = false;
    box.select();
    const said = this.q("#share-said");
    said.textContent = carriesToken ? t("this link holds your own token: it opens what yours opens") : "";
    const done = () => { said.textContent = (carriesToken ? said.textContent + " \u00b7 " : "") + t("copied"); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(url).then(done, () => {});
  }

  key(event) {
    const target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape" && !this.q("#rule").hidden) { this.q("#rule").hidden = true; return; }
    if (target.matches && target.matches("input[type=search], select, textarea")) {
      if (event.key === "Escape") target.blur();
      return;
    }
    const actions = {
      ArrowLeft: () => this.show(event.shiftKey ? this.turnStart(this.position, -1) : this.position - 1),
      ArrowRight: () => this.show(event.shiftKey ? this.turnStart(this.position, 1) : this.position + 1),
      Home: () => this.show(0),
      End: () => this.show(this.duel.length - 1),
      " ": () => this.play(this.timer === null),
    };
    if (event.key === " " && target.matches && target.matches("summary, a, button")) return;
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }
}

// -- where the frames come from --------------------------------------------------------------------

class Service {
  constructor(id, token, view) {
    this.id = id;
    this.token = token;
    this.view = view;
  }

  headers() { return this.token ? { Authorization: `Bearer ${this.token}` } : {}; }

  // the view asked for, and the page's language: the server writes the log's sentences in it
  query(extra) {
    const params = new URLSearchParams(extra);
    if (this.view) params.set("view", this.view);
    params.set("lang", language);
    return params.toString();
  }

  async rule(id) {
    const response = await fetch(`/rules/${encodeURIComponent(id)}?lang=${encodeURIComponent(language)}`);
    return response.ok ? visible(await response.json()) : null;
  }

  async load() {
    const response = await fetch(`/duels/${this.id}/frames?${this.query({})}`, { headers: this.headers(), cache: "no-store" });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || t("the service answered {status}", { status: response.status }));
    return data;
  }

  follow(duel) {
    if (duel.info.ended) return;
    const params = { from: String(duel.length), format: "frames" };
    if (this.token) params.token = this.token;
    const stream = new EventSource(`/duels/${this.id}/follow?${this.query(params)}`);
    let batch = [];
    const flush = () => { const frames = batch; batch = []; duel.add(frames); };
    stream.addEventListener("event", (message) => {       // a burst is drawn once per frame
      if (!batch.length) requestAnimationFrame(flush);
      batch.push(JSON.parse(message.data));
    });
    stream.addEventListener("end", () => {
      flush(); duel.info.ended = true; stream.close(); duel.add([]);
      if (this.viewer) this.keepReceipt(this.viewer).catch(() => {});   // the record's end kept too
    });
    duel.onGap = () => this.reread(duel);
  }

  switchView(view, position) {
    const params = new URLSearchParams(location.search);
    params.set("view", view);
    location.assign(`${location.pathname}?${params}#e${position}`);
  }

  // A judge's viewer keeps the last signed receipt of the record it saw (localStorage, per duel)
  // and shows it to POST /verify on every later visit: a store cut back since (its end deleted
  // with the anchors after it) is caught here, where the store alone cannot tell.
  async keepReceipt(viewer) {
    const role = viewer.duel.info.role;
    if (!["judge", "recorder", "organiser"].includes(role)) return;
    const slot = `ygoreplay.receipt.${this.id}`;
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(slot) || "null"); } catch (error) { kept = null; }
    if (kept) {
      const response = await fetch(`/duels/${this.id}/verify`, {
        method: "POST", headers: { ...this.headers(), "Content-Type": "application/json" }, body: JSON.stringify(kept) });
      const answer = await response.json().catch(() => ({}));
      if (response.ok && answer.ok === false) {
        const problem = answer.problem || t("the record no longer holds what this browser saw");
        viewer.warn(t("NOT ok: {problem}", { problem }));
        return;                                   // the kept receipt stays: it is the proof
      }
    }
    const response = await fetch(`/duels/${this.id}/receipt`, { headers: this.headers(), cache: "no-store" });
    if (!response.ok) return;
    const fresh = await response.json();
    if (!kept || fresh.events >= kept.events) localStorage.setItem(slot, JSON.stringify(fresh));
  }

  // A judge's ruling on entry ``on`` (a call), by the judge's own endpoint, on ``duel`` as the page
  // holds it (``?expected=`` its length); what refused it, or null. A 409 (entries the page had not
  // read, or this very ruling stored before, its answer lost) reads the record again instead, as
  // a ruling stored does (an ended duel's page follows no stream that would bring it).
  async ruleOn(on, judge, text, decision, duel) {
    let response;
    try {
      response = await fetch(`/duels/${this.id}/notes?${new URLSearchParams({ expected: String(duel.length), lang: language })}`, {
        method: "POST", headers: { ...this.headers(), "Content-Type": "application/json" },
        body: JSON.stringify({ judge, text, category: "ruling", on, decision }) });
    } catch (error) {
      return t("no answer came ({why}): send it again, it is never stored twice", { why: visible(String(error.message || error)) });
    }
    if (response.ok || response.status === 409) await this.reread(duel);   // the ruling shown, or what it missed
    if (response.ok) return null;
    if (response.status === 409) return t("the record changed since this page read it: its new entries are shown; rule again if the call is still open");
    const answer = await response.json().catch(() => ({}));
    return answer.message_translated || answer.message || answer.error || String(response.status);
  }

  // The entries of ``duel`` past those the page holds, read again (a repeat is skipped: ``Duel.add``).
  async reread(duel) {
    const response = await fetch(`/duels/${this.id}/frames?${this.query({ from: String(duel.length) })}`,
      { headers: this.headers(), cache: "no-store" });
    if (response.ok) duel.add((await response.json()).frames || []);
  }

  async extras(viewer) {
    this.viewer = viewer;
    this.keepReceipt(viewer).catch(() => {});
    if (judging(viewer.duel.info.role)) viewer.openCalls();
    const download = document.querySelector("#download");
    const params = { view: viewer.duel.info.view };
    if (this.token) params.token = this.token;
    download.href = `/duels/${this.id}/replay.ygr?${new URLSearchParams(params)}`;
    download.hidden = false;
    const response = await fetch(`/duels/${this.id}/tree`, { headers: this.headers() });
    if (!response.ok) return;
    const tree = visible(await response.json());
    if (tree.length < 2) return;
    const nav = document.querySelector("#tree");
    nav.append(el("h2", "", t("Branches")));
    const list = el("ul");
    for (const entry of tree) {
      const li = el("li");
      li.style.paddingLeft = `${entry.depth}em`;
      const a = el("a", "", entry.title || entry.id);
      const link = new URLSearchParams();
      if (this.token) link.set("token", this.token);
      a.href = `/view/${entry.id}?${link}`;
      if (entry.id === this.id) a.setAttribute("aria-current", "page");
      li.append(a, el("span", "hint", " " + (entry.parent
        ? t("after #{at} of its parent, {events} events", { at: entry.branch_after, events: entry.events })
        : t("{events} events", { events: entry.events }))));
      list.append(li);
    }
    nav.append(list);
    nav.hidden = false;
  }
}

class Embedded {
  constructor(data) { this.data = data; }
  async load() { return this.data; }
  follow() {}
  switchView() {}
  async extras() {
    document.querySelector("#share").hidden = true;      // a page from a file has no address to hand on
    if (!this.data.file) return;
    const bytes = Uint8Array.from(atob(this.data.file), (c) => c.charCodeAt(0));
    const download = document.querySelector("#download");
    download.href = URL.createObjectURL(new Blob([bytes], { type: "application/x-ygoreplay" }));
    download.download = this.data.file_name || "duel.ygr";
    download.title = t("the signed replay file this page was made from");
    download.hidden = false;
  }
}

async function main() {
  await ready;
  const embedded = document.getElementById("ygr-duel");
  let source;
  if (embedded) {
    source = new Embedded(JSON.parse(embedded.textContent));
  } else {
    const params = new URLSearchParams(location.search);
    const id = location.pathname.split("/").filter(Boolean).pop();
    source = new Service(id, params.get("token"), params.get("view") || linkParts(location.hash).view);
  }
  let data;
  try {
    data = await source.load().catch((error) => {
      if (!source.view || new URLSearchParams(location.search).get("view")) throw error;
      source.view = null;                         // a shared link's view this token may not see: its own
      return source.load();
    });
  } catch (error) {
    const box = document.getElementById("error");
    box.textContent = t("This duel cannot be shown: {why}", { why: visible(error.message) });
    box.hidden = false;
    return;
  }
  const duel = new Duel(data);
  duel.add(data.frames || []);
  const viewer = new Viewer(document, duel, source);
  viewer.start();
  window.ygoreplay = { duel, viewer };
  source.follow(duel);
  source.extras(viewer).catch(() => {});
  document.body.dataset.ready = "true";
}

// The recorder's page (record.js) imports the board from here and runs its own page.
if (document.body.dataset.page !== "record") main();
