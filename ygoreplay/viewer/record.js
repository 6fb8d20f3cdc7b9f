// The recorder's page: a paper duel entered at the speed it is played, on a phone at the table.
//
// It uses the service's public API only: the board is the viewer's (viewer.js, from /frames and
// the live stream), what may be entered comes from GET /duels/{id}/actions (the rules' own list,
// with verdicts only when the organiser turned the duel's warnings on), names from /cards.json
// (downloaded once, kept) and the duel's own cards, any other event from /schemas/event.json.
//
// Record, don't referee: nothing here stops an entry. Every entry goes into a numbered queue kept
// in localStorage before it is sent, and is sent in order with ?expected=N (the position it was
// entered at). A 409 re-reads the duel: an entry already stored there (its answer lost to the
// network or a reload) is recognised and dropped, never sent twice; one that another device got
// ahead of is moved after it (two devices merge in order); one the service refuses stays in the
// queue, shown, until the recorder sends it again, edits it (the form for any event filled with
// it) or drops it; a turn change the service takes for one entered twice (428, made_on: the head
// the entry was made at) is sent again only when the recorder confirms it. Text from the duel goes in through
// textContent only, made visible first (text.js).
//
// A player's link (a duel each player records their own side of) may seal its own hidden cards:
// the page keeps each card's passcode and a fresh nonce in localStorage (Seals) and enters only
// their seal (cards_sealed), until the player opens them (cards_opened). Nothing else sees them.

import { N_, language, ready, t } from "./i18n.js";
import { visible } from "./text.js";
import { closest, nameIndex, plain } from "./names.js";
import { Duel, TYPE, Viewer, judging } from "./viewer.js";

// record.html's own words, translated in place by i18n.js (listed here for the catalogue)
N_("Judge calls"); N_("Recording"); N_("connecting"); N_("Keyboard shortcuts (?)"); N_("Keyboard shortcuts"); N_("Keys:");
N_("Draw Phase"); N_("Standby"); N_("Main 1"); N_("Battle"); N_("Main 2"); N_("End"); N_("next turn");
N_("draw a card"); N_("pass"); N_("resolve"); N_("undo the last entry"); N_("LP keypad"); N_("name a card"); N_("close");
N_("Start the duel"); N_("Player 0"); N_("Player 1"); N_("Goes first"); N_("Main Deck"); N_("Extra Deck"); N_("Opening hand");
N_("The decks are recorded as unknown cards: name a card when it is shown."); N_("Start");
N_("The board: tap a card or a zone"); N_("Phases and steps"); N_("What the rules offer now"); N_("The chain");
N_("No chain"); N_("Pass"); N_("Resolve"); N_("Chain over"); N_("Actions for the card"); N_("Close"); N_("Name this card");
N_("Cards"); N_("Life Points keypad"); N_("Amount"); N_("cause: none"); N_("Coin, dice, tokens, anything else");
N_("Token…"); N_("Something else…"); N_("Any event"); N_("Event"); N_("Event kind"); N_("Enter"); N_("Entries");
N_("Undo last entry"); N_("Card details"); N_("The duel is over");
N_("The match takes its result from the record; the table's link then starts the next duel.");
N_("Record the result in the match, next duel"); N_("Open my sealed cards");
N_("This is the table's code: whatever is entered with it shows on every phone that scanned it. Players enter their own hidden cards (a Set, a card added to the hand) with their own seat's link, from the organiser, not with this one.");
N_("Keys count hundreds: 2 9 is 2,900. After · they count tens and units: 1 8 · 5 is 1,850.");
N_("in the LP keypad:"); N_("digits count hundreds"); N_("tens and units"); N_("the player");
N_("Damage, Battle, Pay, Gain, Halve"); N_("Call the judge"); N_("What is disputed (the judge finds it here)"); N_("Call");

const params = new URLSearchParams(location.search);
const ID = location.pathname.split("/").filter(Boolean).pop();
const TOKEN = params.get("token");
const MATCH = /^[0-9a-f]{12}$/.test(params.get("match") || "") ? params.get("match") : null;   // a round table's duel
const HEADERS = TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
const $ = (selector) => document.querySelector(selector);
// What a judge's ruling on an entry asks for before Enter: the judge's name and the ruling
// (MATCH-08), and its decision (LOG-05), which the general note form leaves optional.
const RULING_NEEDS = ["judge", "note", "decision"];

// A key for a request that may be sent again as the same one (a what-if, POST /duels/{id}/branch):
// 32 hex digits from crypto.getRandomValues, which, unlike randomUUID, needs no secure context
// (a judge's page over plain http on the venue's network).
function requestKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
const PHASES = [["draw", N_("DP"), "d", N_("Draw Phase")], ["standby", N_("SP"), "s", N_("Standby Phase")],
  ["main1", N_("M1"), "1", N_("Main Phase 1")], ["battle", N_("BP"), "b", N_("Battle Phase")],
  ["main2", N_("M2"), "2", N_("Main Phase 2")], ["end", N_("EP"), "e", N_("End Phase")]];
// The keypad's operations, each player's own, with their keys when the keypad has the focus.
const LP_OPS = [["effect_damage", N_("Damage"), "d"], ["battle_damage", N_("Battle"), "b"], ["cost", N_("Pay"), "p"],
  ["gain", N_("Gain"), "g"], ["halve", N_("Halve"), "h"]];
const STEPS = [["battle", N_("Battle step")], ["damage", N_("Damage step")], ["end", N_("End step")]];
// ZONE-11: the sheet's action putting a card in between the top and the bottom of its Deck (its place typed)
const PLACE_IN_DECK = N_("Place in the Deck, from the top");
N_("More… ({n})"); N_("Against the rules now ({n})");
// A card's sheet shows this many of its likeliest actions, the rest under *More…* (360 × 740: the
// first screen holds the sheet's header, its names and these).
const FIRST_ROWS = 5;
const TO_GY = ["Send to the GY", "Send to the Extra Deck face-up"];
// Each sheet's actions in the order a table plays them (``likely``); an action in none comes last.
const LIKELY = {
  handMain: ["Normal Summon", "Activate", "Activate (Field Spell)", "Set (Spell/Trap)", "Set (monster)", "Special Summon",
    "Send it to the GY to activate (cost)", "Activate an effect (Quick)", ...TO_GY],
  hand: ["Send it to the GY to activate (cost)", "Activate an effect (Quick)", "Activate", ...TO_GY, "Special Summon", "Banish"],
  attacker: ["Stop this attack", "Change ATK/DEF", ...TO_GY, "Activate an effect (Quick)", "Banish"],
  resolving: [...TO_GY, "Change ATK/DEF", "Banish", "Return to the hand", "Return to the Extra Deck", "Activate an effect (Quick)"],
  attacking: ["Attack", "Attack directly", "Activate an effect (Quick)", "Change ATK/DEF", ...TO_GY],
  monsterMain: ["Activate an effect", "Change to defense", "Change to attack", "Flip Summon", "Change ATK/DEF", ...TO_GY,
    "Activate an effect (Quick)"],
  monster: ["Activate an effect (Quick)", "Change ATK/DEF", ...TO_GY, "Banish", "Return to the hand", "Flip Summon"],
  spell: ["Activate", "Send to the GY (resolved)", ...TO_GY, "Banish", "Return to the hand"],
  pile: ["Xyz Summon", "Synchro Summon", "Link Summon", "Special Summon", "Activate an effect", "Return to the hand",
    "Send to the GY", "Banish", "Return to the Extra Deck", "Shuffle into the Deck"],
};
// What the static bar and chain box enter: the server's moves of these kinds are not listed twice.
const BAR_KINDS = new Set(["phase_entered", "step_entered", "turn_started", "cards_drawn", "priority_passed",
  "chain_link_resolved", "chain_ended"]);
// Fields that name a card: the last one entered is the default cause of an LP change.
const CARD_FIELDS = ["card", "attacker", "cause"];

// The form's field labels (JSON keys of the event schema) as a scorekeeper reads them.
const FIELD_LABELS = {
  amount: N_("Amount"), atk: N_("ATK"), attacker: N_("Attacking monster"), banlist: N_("Banlist"),
  battle_phase_entered: N_("Battle Phase entered"), by: N_("By player"), card: N_("Card"), cards: N_("Cards"),
  category: N_("Category"), cause: N_("Caused by"), chosen_by: N_("Chosen by"), cite: N_("Card text cited"),
  code: N_("Passcode"), controller: N_("Controller"), costs: N_("Costs"), count: N_("Number of cards"),
  counter: N_("Counter"), damage: N_("Damage to each player"), damage_step: N_("In the Damage Step"),
  decision: N_("Decision"), defense: N_("DEF"), description: N_("Description"), destroyed: N_("Destroyed cards"),
  draw_count: N_("Cards drawn each turn"), effect_type: N_("Effect type"), extra: N_("Extra Deck"),
  field_zone: N_("Field Zone"), first_player: N_("Goes first"), hand_size: N_("Hand size limit"), judge: N_("Judge"),
  level: N_("Level"), link: N_("Chain Link"), lp: N_("LP after"), main: N_("Main Deck"), mandatory: N_("Mandatory"),
  materials: N_("Materials"), method: N_("How it is summoned"), negates: N_("Negates"),
  normal_summon_used: N_("Normal Summon used"), note: N_("Note"), on: N_("On"), options: N_("Options"),
  order: N_("Order"), other: N_("Other player"), pendulum_summon_used: N_("Pendulum Summon used"),
  phase: N_("Phase"), player: N_("Player"), players: N_("Players"), position: N_("Battle position"),
  reason: N_("Why"), results: N_("Results"), ruleset: N_("Rules"), seals: N_("Seals"), seed: N_("Seed"),
  shows: N_("Cards shown"), side: N_("Side"), sides: N_("Sides"), simultaneous: N_("At the same time"),
  source: N_("Source"), speed: N_("Spell Speed"), starting_lp: N_("Starting LP"), step: N_("Step"),
  target: N_("Target"), targets: N_("Targets"), time: N_("Time"), timing: N_("Timing"), to: N_("To"),
  to_player: N_("To player"), together: N_("Together"), tributes: N_("Tributes"), turn: N_("Turn"),
  turn_player: N_("Turn player"), unordered: N_("In no order"), winner: N_("Winner"),
  with_next: N_("Moves with the next card"), witnessed: N_("Witnessed"), zone: N_("Zone"), zones: N_("Zones"),
};
// Each kind of event as a scorekeeper names it: the "Something else…" form's choices and the
// queue's entries show these, never the record's JSON kind (which stays in the tooltip).
const KIND_LABELS = {
  duel_started: N_("Duel started"), deck_registered: N_("Deck registered"), deck_shuffled: N_("Deck shuffled"),
  position_set_up: N_("Card placed before the duel"), cards_drawn: N_("Cards drawn"), turn_started: N_("Turn started"),
  phase_entered: N_("Phase entered"), step_entered: N_("Step entered"), priority_passed: N_("Priority passed"),
  normal_summoned: N_("Normal Summon"), monster_set: N_("Monster Set"), flip_summoned: N_("Flip Summon"),
  special_summoned: N_("Special Summon"), summon_negated: N_("Summon negated"),
  position_changed: N_("Battle position changed"), spell_trap_set: N_("Spell/Trap Set"), activated: N_("Activation"),
  chain_link_resolved: N_("Chain Link resolved"), chain_link_negated: N_("Chain Link negated"),
  chain_ended: N_("Chain over"), attack_declared: N_("Attack declared"), attack_retargeted: N_("Attack target changed"),
  attack_cancelled: N_("Attack stopped"), damage_calculated: N_("Damage calculation"), card_moved: N_("Card moved"),
  card_revealed: N_("Card revealed"), control_changed: N_("Control changed"), zone_changed: N_("Zone changed"),
  cards_swapped: N_("Cards swapped"), set_cards_shuffled: N_("Set cards shuffled"),
  stats_changed: N_("ATK/DEF or Level changed"), counters_changed: N_("Counters changed"),
  token_created: N_("Token created"), life_points_changed: N_("LP changed"), coin_tossed: N_("Coin toss"),
  die_rolled: N_("Die roll"), hand_size_discard: N_("Discard for the hand size limit"), duel_ended: N_("Duel over"),
  cards_sealed: N_("Cards sealed"), cards_opened: N_("Seals opened"), rolled_back: N_("Rolled back by the judge"),
  judge_note: N_("Judge's note"), entry_confirmed: N_("Entry confirmed"), entry_disputed: N_("Entry disputed"),
  entry_corrected: N_("Entry corrected"),
};
// A kind of event in the page's language (a kind this page does not know yet: its JSON name).
function kindName(kind) { return KIND_LABELS[kind] ? t(KIND_LABELS[kind]) : kind; }
// The choices of the form's lists in the page's language, by field and value (the same word is
// another thing in another field: a card moved for ``battle``, the Battle Phase).
const CHOICE_LABELS = {
  "method=rps": N_("Rock-paper-scissors"), "method=coin": N_("Coin toss"), "method=die": N_("Die roll"),
  "method=loser": N_("Loser of the last duel"), "method=agreement": N_("Agreement"), "method=random": N_("At random"),
  "method=inherent": N_("Inherent (by its own procedure)"), "method=effect": N_("By an effect"),
  "method=ritual": N_("Ritual Summon"), "method=fusion": N_("Fusion Summon"), "method=synchro": N_("Synchro Summon"),
  "method=xyz": N_("Xyz Summon"), "method=pendulum": N_("Pendulum Summon"), "method=link": N_("Link Summon"),
  "phase=draw": N_("Draw Phase"), "phase=standby": N_("Standby Phase"), "phase=main1": N_("Main Phase 1"),
  "phase=battle": N_("Battle Phase"), "phase=main2": N_("Main Phase 2"), "phase=end": N_("End Phase"),
  "step=start": N_("Start Step"), "step=battle": N_("Battle step"), "step=damage": N_("Damage step"),
  "step=end": N_("End step"),
  "position=attack": N_("Attack Position"), "position=defense": N_("Defense Position"),
  "position=set": N_("Set (face-down Defense)"), "position=facedown_attack": N_("Face-down Attack Position"),
  "position=faceup": N_("Face-up"), "position=facedown": N_("Face-down"),
  "effect_type=ignition": N_("Ignition Effect"), "effect_type=trigger": N_("Trigger Effect"),
  "effect_type=quick": N_("Quick Effect"), "effect_type=flip": N_("Flip Effect"),
  "effect_type=continuous": N_("Continuous Effect"), "effect_type=pendulum": N_("Pendulum Effect"),
  "timing=when": N_("When (can miss the timing)"), "timing=if": N_("If (cannot miss the timing)"),
  "reason=destroyed": N_("Destroyed"), "reason=battle": N_("Destroyed by battle"), "reason=sent": N_("Sent"),
  "reason=tributed": N_("Tributed"), "reason=material": N_("Used as material"), "reason=discarded": N_("Discarded"),
  "reason=banished": N_("Banished"), "reason=returned": N_("Returned"), "reason=shuffled": N_("Shuffled into the Deck"),
  "reason=added": N_("Added to the hand"), "reason=resolved": N_("Resolved"), "reason=cost": N_("Cost"),
  "reason=rule": N_("By the rules"), "reason=detached": N_("Detached"), "reason=attached": N_("Attached as material"),
  "reason=negated": N_("Negated"), "reason=battle_damage": N_("Battle damage"), "reason=effect_damage": N_("Effect damage"),
  "reason=gain": N_("Gain"), "reason=set": N_("Set to an amount"), "reason=lp": N_("LP reached 0"),
  "reason=deck_out": N_("Could not draw"), "reason=draw": N_("A draw"), "reason=surrender": N_("Surrender"),
  "reason=effect": N_("A card's effect"), "reason=judge": N_("Judge's decision"), "reason=time": N_("Time"),
  "reason=disconnect": N_("Disconnected"),
  "category=call": N_("Judge call"), "category=ruling": N_("Ruling"), "category=penalty": N_("Penalty"),
  "category=warning": N_("Warning"), "category=note": N_("Note"), "category=time": N_("Time"),
  "decision=stands": N_("The duel stands"), "decision=warning": N_("Warning"), "decision=penalty": N_("Penalty"),
  "decision=reverted": N_("Reverted"),
  "ruleset=mr2020": N_("Master Rule, April 2020 revision"), "ruleset=nmr2017": N_("New Master Rule (2017)"),
  "ruleset=mr3": N_("Master Rule 3 (2014)"),
};
// Fields any event may carry that the table never needs: the form keeps them under "More fields".
// the kinds whose ``zone`` is a Spell & Trap Zone (the others' a Monster Zone)
const SPELL_KINDS = new Set(["spell_trap_set", "activated"]);
const FOLDED_FIELDS = new Set(["cite", "time", "shows"]);
// Fields whose value is a player (0 or 1): a choice of the players by name.
const PLAYER_FIELDS = new Set(["player", "to_player", "winner", "controller", "turn_player", "first_player", "chosen_by",
  "by", "other"]);
// Fields that name one card (a record id): typed or picked from the cards the board shows.
const ONE_CARD_FIELDS = new Set(["card", "cause", "attacker", "target"]);
// Where a card goes (``Loc``: [player, place]): the places, as the form offers them.
const PLACES = [["hand", N_("Hand")], ["deck", N_("Deck")], ["gy", N_("GY")], ["banished", N_("Banished")],
  ["extra", N_("Extra Deck")], ["mzone", N_("Monster Zone")], ["szone", N_("Spell & Trap Zone")],
  ["fzone", N_("Field Zone")], ["overlay", N_("Xyz Material")]];

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function button(text, onClick, className) {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// Whether ``stored`` is the event ``sent``: every field sent has that value, a field the service
// left out having its default (the wire form omits defaults: a draw's ``count: 1`` is stored as
// no count), in any key order; the service may add fields of its own, such as entered_by.
function same(sent, stored, schema) {
  if (!stored) return false;
  const fields = (schema && schema.$defs && schema.$defs[sent.kind] && schema.$defs[sent.kind].properties) || {};
  return Object.entries(sent).every(([key, value]) => {
    const kept = key in stored ? stored[key] : fields[key] && "default" in fields[key] ? fields[key].default : undefined;
    return canonical(value) === canonical(kept);
  });
}

function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

// -- the queue: entries kept in the browser until the service has them ---------------------------

class Queue {
  constructor(id) {
    this.slot = `ygoreplay.queue.${id}`;
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(this.slot) || "null"); } catch (error) { kept = null; }
    this.entries = (kept && kept.entries) || [];
    this.next = (kept && kept.next) || 1;
  }

  save() { localStorage.setItem(this.slot, JSON.stringify({ entries: this.entries, next: this.next })); }

  // ``made``: the head the entry was entered at, kept when another device's entries move it on
  // (``at``): the service tells a turn change seen late from the table's own by it (made_on).
  add(events, at, label) {
    const entry = { n: this.next++, events, at, made: at, label, state: "waiting" };
    this.entries.push(entry);
    this.save();
    return entry;
  }

  drop(entry) {
    this.entries = this.entries.filter((e) => e !== entry);
    this.save();
  }

  // events waiting to be sent (not those refused and shown)
  get waiting() { return this.entries.filter((e) => e.state === "waiting"); }
}

// A rule's refusal in the page's language: the service says it in the ``lang`` asked for beside the
// English it records (``message_translated``, i18n.message_dict), which scripts match on.
function said(answer) { return answer.message_translated || answer.message; }

function namesText(shows) { return Object.entries(shows).map(([id, code]) => `${id}:${code}`).join(","); }

// Whether an entry about a card puts it where everyone sees it (not a Set, not back to a hidden pile).
function showsFaceUp(event) {
  if (event.kind === "monster_set" || event.kind === "spell_trap_set") return false;
  return !(event.kind === "card_moved" && ["hand", "deck", "extra"].includes((event.to || [])[1]));
}

// -- drafts: a form half-filled ---------------------------------------------------------------------

// A short tag of the token, for the draft's slot: a draft is its link's (two links of one duel on
// one phone keep their own), and the token itself, a secret, is written nowhere else. FNV-1a.
function tokenTag(token) {
  let hash = 0x811c9dc5;
  for (const ch of token || "") hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return hash.toString(16);
}

// What this device keeps in the browser under one slot (never a token: its tag).
class Kept {
  constructor(slot) { this.slot = slot; }

  get() { try { return JSON.parse(localStorage.getItem(this.slot) || "null"); } catch (error) { return null; } }

  keep(draft) { try { localStorage.setItem(this.slot, JSON.stringify(draft)); } catch (error) { /* full: not kept */ } }

  drop() { try { localStorage.removeItem(this.slot); } catch (error) { /* private mode */ } }
}

// A form half-filled (``form``: "else", any event; "setup", the duel's start; "call", a judge
// call's reason), kept in the browser
// per duel and token: a phone that locks reloads the tab, and what was typed was lost. Restored
// when the page opens; dropped once entered or discarded.
class Draft extends Kept {
  constructor(form, id, token) { super(`ygoreplay.draft.${form}.${id}.${tokenTag(token)}`); }
}

// The judge's name, kept per link (its token's tag) on this device: it was typed on every ruling,
// call ruling and note; a what-if opened with the same link keeps it too.
const judgeName = (token) => new Kept(`ygoreplay.judge.${tokenTag(token)}`);

// -- seals: a player's own hidden cards, known to this device only ----------------------------------

const SEAL_LABEL = new TextEncoder().encode("ygoreplay/seal/1\0");

const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

// The seal of a passcode under a nonce, as seals.digest_of makes it: SHA-256 over the label,
// the passcode as 4 big-endian bytes and the nonce. (SubtleCrypto: served over HTTPS or localhost.)
async function sealOf(code, nonce) {
  const message = new Uint8Array(SEAL_LABEL.length + 4 + nonce.length);
  message.set(SEAL_LABEL);
  new DataView(message.buffer).setUint32(SEAL_LABEL.length, code, false);
  message.set(nonce, SEAL_LABEL.length + 4);
  return `sha256:${hex(new Uint8Array(await crypto.subtle.digest("SHA-256", message)))}`;
}

class Seals {
  constructor(id, role) {
    this.slot = `ygoreplay.seals.${id}.${role}`;
    try { this.cards = JSON.parse(localStorage.getItem(this.slot) || "{}") || {}; } catch (error) { this.cards = {}; }
  }

  save() { localStorage.setItem(this.slot, JSON.stringify(this.cards)); }

  // A card's seal: its passcode and nonce kept here (before anything is sent) and its digest.
  async seal(card, code) {
    const nonce = crypto.getRandomValues(new Uint8Array(16));
    const digest = await sealOf(code, nonce);
    this.cards[card] = { code, nonce: hex(nonce), opened: false };
    this.save();
    return digest;
  }

  get unopened() { return Object.entries(this.cards).filter(([, kept]) => !kept.opened).map(([card]) => card); }

  // The cards_opened openings of ``cards``, each marked opened here.
  open(cards) {
    const out = {};
    for (const card of cards) {
      const kept = this.cards[card];
      out[card] = { code: kept.code, nonce: kept.nonce };
      kept.opened = true;
    }
    this.save();
    return out;
  }
}

// -- the page ---------------------------------------------------------------------------------------

class Recorder {
  constructor(data) {
    this.duel = new Duel(data);
    this.duel.add(data.frames || []);
    this.viewer = new Viewer(document, this.duel, null);
    this.duel.listeners.length = 0;          // the viewer's log and timeline are not on this page
    this.duel.listeners.push(() => this.changed());
    this.queue = new Queue(ID);
    this.online = true;
    this.trips = [];                         // each sent entry's round trip, ms
    this.stored = [];                        // entries stored whose events the stream has not brought yet
    this.flags = new Map();                  // position -> rules broken and kept
    // card id -> passcode named, for the next entry: kept in the browser (a reload lost the names
    // picked for an entry not made yet; on a player's device its own, as its seals are)
    this.namesSlot = `ygoreplay.named.${ID}.${data.role || ""}`;
    try { this.shows = JSON.parse(localStorage.getItem(this.namesSlot) || "{}") || {}; } catch (error) { this.shows = {}; }
    this.selected = null;                    // the card whose sheet is open
    this.entered = [];                       // the events this page entered (their cards: causes)
    this.actionsOf = new Map();              // "card|shows|position" -> actions answered
    this.amount = "";
    this.lpPlayer = 1;
    this.causeOn = true;
    this.names = [];                         // [code, name, english, own, name folded] rows: the duel's first, then the database
    this.ranked = nameIndex(this.names);     // the name box's order of them (names.js)
    this.fold = new Map();                   // Chinese: a character → its Simplified form (``folded``)
    this.types = new Map();                  // passcode -> its card type bits (an offline Spell's activation)
    this.levels = new Map();                 // passcode -> its Level (an offline Normal Summon needs no Tribute)
    this.info = { warnings: false, mode: "machine", role: data.role };
    this.writes = new Set(data.writes || []);    // the kinds this link may write (access.may_write)
    this.calls = !!data.calls;                   // and whether it may call a judge (access.CALL)
    this.side = /^p[01]$/.test(data.role || "") ? Number(data.role[1]) : null;   // a player's own device
    this.seals = this.side === null ? null : new Seals(ID, data.role);
    this.draft = new Draft("else", ID, TOKEN);
    this.setupDraft = new Draft("setup", ID, TOKEN);
    this.callDraft = new Draft("call", ID, TOKEN);
    this.judgeName = judgeName(TOKEN);
    this.around = null;                          // the judge call whose entries are shown (null: the last)
    this.parent = data.parent || null;           // a judge's what-if: the duel it branched from
    this.branchKeys = new Map();                 // event -> the Idempotency-Key of the what-if asked before it
  }

  // -- where the duel stands ------------------------------------------------------------------------

  get board() { return this.duel.boards[this.duel.length - 1] || null; }

  // The position the next entry is entered at: the events stored (as the service's answers say,
  // which may come before the stream brings them) and those waiting before it.
  get position() {
    const stored = Math.max(this.duel.length, ...this.unseen().map((e) => e.at + e.events.length));
    return stored + this.queue.waiting.reduce((n, e) => n + e.events.length, 0);
  }

  // Entries the service stored that are not on the board yet (their answer came before the stream).
  unseen() {
    this.stored = this.stored.filter((e) => e.at + e.events.length > this.duel.length);
    return this.stored;
  }

  // The events entered that the board does not show yet: stored ones on their way, then the queue's.
  ahead() {
    const stored = this.unseen().flatMap((e) => e.events.slice(Math.max(0, this.duel.length - e.at)));
    return [...stored, ...this.queue.waiting.flatMap((e) => e.events)];
  }

  // The turn as the recorder has entered it, entries not on the board yet included.
  get turn() {
    const board = this.board;
    let turn = board ? board.turn : 0;
    let player = board ? board.turn_player : 0;
    for (const ev of this.ahead()) {
      if (ev.kind === "turn_started") { turn = ev.turn; player = ev.player; }
      if (ev.kind === "duel_started") player = ev.first_player;
    }
    return { turn, player };
  }

  // The Battle Phase's step as the recorder has entered it ("start" once the phase is entered).
  get step() {
    const board = this.board;
    let step = board ? board.step : null;
    for (const ev of this.ahead()) {
      if (ev.kind === "phase_entered") step = ev.phase === "battle" ? "start" : null;
      if (ev.kind === "step_entered") step = ev.step;
      if (ev.kind === "turn_started") step = null;
    }
    return step;
  }

  // The phase as the recorder has entered it (an offline summon's Main Phase).
  get phase() {
    const board = this.board;
    let phase = board ? board.phase : null;
    for (const ev of this.ahead()) {
      if (ev.kind === "phase_entered") phase = ev.phase;
      if (ev.kind === "turn_started") phase = null;
    }
    return phase;
  }

  // The card of the chain link resolved last while its chain is still resolving (no *Chain over*
  // since), as the rules' ``resolved`` holds it: read off the stored boards (a resolution takes
  // the last link of the board before it), then the entries waiting (an activation adds a link).
  // Offline, an effect's ATK/DEF and a stopped attack name it as their cause, as online; they
  // named none. Past a judge's rollback or correction the page cannot tell: none.
  get lastResolved() {
    const frames = this.duel.frames, boards = this.duel.boards;
    let last = null;
    for (let i = frames.length - 1; i > 0; i--) {
      const kind = frames[i].kind;
      if (kind === "chain_link_resolved") {
        const links = boards[i - 1].chain || [], link = links[links.length - 1];
        last = link && link.card ? link.card.id : null;
        break;
      }
      if (["chain_ended", "turn_started", "rolled_back", "entry_corrected"].includes(kind)) break;
    }
    let chain = ((this.board && this.board.chain) || []).map((link) => (link.card ? link.card.id : null));
    for (const ev of this.ahead()) {
      if (ev.kind === "activated") chain.push(ev.card);
      else if (ev.kind === "chain_link_resolved") last = chain.pop() || null;
      else if (ev.kind === "chain_ended" || ev.kind === "turn_started") { last = null; chain = []; }
    }
    return last;
  }

  // The card the last entry named: an LP change's default cause.
  get lastCard() {
    const events = [...this.entered.slice(-6)];
    for (const ev of events.reverse()) for (const key of CARD_FIELDS) if (typeof ev[key] === "string") return ev[key];
    return this.recentCard || null;
  }

  name(p) {
    const board = this.board;
    return (board && board.players[p] && board.players[p].name) || t("Player {n}", { n: p });
  }

  cardName(id) {
    const board = this.board;
    if (!board) return id;
    const all = [];
    for (const side of board.players) all.push(...side.hand, ...side.mzone, ...side.szone, side.fzone, ...side.gy, ...side.banished, ...side.extra);
    all.push(...board.emz);
    const card = all.find((c) => c && c.id === id);
    if (!card) return id;
    const where = this.zoneTag(card.id);
    return ((card.hidden ? "" : this.duel.nameOf(card)) || (card.hidden ? t("face-down card") : id)) + (where ? ` [${where}]` : "");
  }

  zoneTag(id) {
    const board = this.board;
    for (const [p, side] of board.players.entries()) {
      const z = side.mzone.findIndex((c) => c && c.id === id);
      if (z >= 0) return `${p ? "P1 " : "P0 "}M${z}`;
      const s = side.szone.findIndex((c) => c && c.id === id);
      if (s >= 0) return `${p ? "P1 " : "P0 "}S${s}`;
    }
    return "";
  }

  // -- entering ------------------------------------------------------------------------------------

  enter(events, label) {
    // An activated card is shown to all, so its entry names it (LOG-05): a Set card this page was
    // told (the table named it as it was Set) is named on its activation with no second tap.
    const activated = events[0].kind === "activated" ? this.cardOnBoard(events[0].card) : null;
    if (activated && activated.code && activated.position === "set" && !(events[0].shows || {})[activated.id]) {
      events = [{ ...events[0], shows: { ...(events[0].shows || {}), [activated.id]: activated.code } }, ...events.slice(1)];
    }
    if (Object.keys(this.shows).length) {         // the names go on the entry that shows the cards
      const first = events[0];
      const named = this.sendable(first);
      if (Object.keys(named).length) events = [{ ...first, shows: { ...named, ...(first.shows || {}) } }, ...events.slice(1)];
      this.shows = {};
      this.keepNames();
      this.drawNamed();                            // said "named for the next entry" after it was made
    }
    // At the table nobody says "Battle Step": the first attack of the Battle Phase is declared in
    // it (BATTLE-02), so the step goes in with the attack, in the same tap; entered alone from the
    // Start Step it broke BATTLE-02 (refused; in a witnessed duel stored and flagged)
    if (events[0].kind === "attack_declared" && this.step === "start") events = [{ kind: "step_entered", step: "battle" }, ...events];
    this.queue.add(events, this.position, label);
    this.entered.push(...events);
    this.closeSheet();
    // a pile's list opened to pick a card (the Extra Deck's, the GY's) is done with: open, it
    // lay over the phase bar and the chain box on a phone until closed by hand
    for (const pile of document.querySelectorAll("#board details.pilelist[open]")) pile.open = false;
    this.drawEntries();
    this.status();
    this.flush();
  }

  async flush() {
    if (this.sending) return;
    this.sending = true;
    try {
      for (;;) {
        const entry = this.queue.entries.find((e) => e.state === "waiting");
        if (!entry) break;
        const outcome = await this.send(entry);
        if (outcome === "offline") break;
      }
    } finally {
      this.sending = false;
      this.drawEntries();
      this.status();
      // the board may have come (live) before the answer: what fits now is asked once the queue is empty
      if (!this.queue.waiting.length) this.moves().catch(() => {});
    }
  }

  async send(entry) {
    const started = performance.now();
    let response;
    try {
      const made = entry.made ?? entry.at;
      const confirmed = entry.confirmed ? "&confirm=true" : "";
      response = await fetch(`/duels/${ID}/events?expected=${entry.at}&made_on=${made}${confirmed}&lang=${encodeURIComponent(language)}`, {
        method: "POST", headers: { ...HEADERS, "Content-Type": "application/json" }, body: JSON.stringify(entry.events) });
    } catch (error) {
      this.connected(false);
      return "offline";
    }
    this.connected(true);
    const answer = visible(await response.json().catch(() => ({})));
    if (response.ok) {
      this.trips.push(performance.now() - started);
      const first = answer.position - entry.events.length;
      this.stored.push({ at: first, events: entry.events });
      for (const flag of answer.flags || []) {
        const at = flag.index ?? first;
        this.flags.set(at, [...(this.flags.get(at) || []), flag.rule]);
      }
      this.queue.drop(entry);
      // the stream ends with the duel: what is entered after (a judge's ruling, a rollback) is read here
      if (this.stream && this.stream.readyState === EventSource.CLOSED) this.duel.onGap(this.duel.length);
      return "sent";
    }
    if (response.status === 409) return this.reconcile(entry);
    entry.state = "refused";
    entry.confirm = response.status === 428 ? answer.confirm : null;     // a turn change entered twice?
    entry.problem = said(answer) || answer.error || t("the service answered {status}", { status: response.status });
    if (answer.rule) entry.problem = `${answer.rule}: ${entry.problem}`;
    this.queue.save();
    return "refused";
  }

  // The duel moved on without this entry's answer: is the entry stored already (sent, its answer
  // lost), or did another device enter first (then it goes after theirs)?
  async reconcile(entry) {
    let count, stored = [];
    try {
      const state = await fetch(`/duels/${ID}/state`, { headers: HEADERS, cache: "no-store" });
      count = (await state.json()).events;
      if (entry.at < count) {
        const lines = await fetch(`/duels/${ID}/events?from=${entry.at}`, { headers: HEADERS, cache: "no-store" });
        stored = (await lines.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line).event);
      }
    } catch (error) {
      this.connected(false);
      return "offline";
    }
    if (entry.events.every((ev, k) => same(ev, stored[k], this.schema))) {
      this.stored.push({ at: entry.at, events: entry.events });
      this.queue.drop(entry);                  // already stored: not sent twice
      return "sent";
    }
    entry.moved = (entry.moved || 0) + 1;
    if (entry.moved > 8) {
      entry.state = "refused";
      entry.problem = t("the duel keeps moving on before this entry: send it again when the table is quiet");
    } else {
      const shift = count - entry.at;          // after the other device's entries, in order
      // back (an entry of its own before it refused): it was made on no head past the one it now
      // meets, which the service refuses as one no device saw (409, made_on past the head)
      for (const e of this.queue.entries) {
        if (e.state !== "waiting") continue;
        e.at += shift;
        if ((e.made ?? e.at) > e.at) e.made = e.at;
      }
    }
    this.queue.save();
    return "moved";
  }

  connected(on) {
    if (this.online === on) return;
    this.online = on;
    this.status();
  }

  status() {
    const waiting = this.queue.waiting.length;
    const refused = this.queue.entries.length - waiting;
    const conn = $("#conn");
    conn.textContent = this.online ? t("online") : t("OFFLINE");
    conn.classList.toggle("offline", !this.online);
    document.body.dataset.online = String(this.online);
    document.body.dataset.events = String(this.duel.length);
    document.body.dataset.queued = String(this.queue.entries.length);
    $("#queue-state").textContent = (waiting === 1 ? t("1 entry waiting to be sent")
      : waiting ? t("{n} entries waiting to be sent", { n: waiting }) : t("all sent"))
      + (refused ? " · " + t("{n} not stored: see below", { n: refused }) : "");
    // A player's device (a witnessed duel) records that player's own side: the service keeps
    // the rest to the other device (access.off_side), and the actions it offers say so.
    const side = /^p[01]$/.test(this.info.role || "") ? " · " + t("your side: player {n}", { n: this.info.role[1] }) : "";
    $("#status").textContent = [t("{events} events", { events: this.duel.length }),
      this.info.warnings ? t("warnings on") : t("warnings off")].join(" · ") + side;
    document.body.dataset.role = this.info.role || "";
    // A paper table's code (a witnessed duel's recorder token) is read by every phone that scanned
    // it: a player names his own hidden cards with his seat's link (access.recorders_of), not with it.
    $("#table-code").hidden = !(this.info.mode === "witnessed" && this.info.role === "recorder");
    this.drawSeals();
  }

  // -- the board -----------------------------------------------------------------------------------

  changed() {
    if (!this.viewer.shown && this.duel.length) this.viewer.build();
    if (this.board) this.viewer.render(this.board, true);
    this.collectFlags();
    $("#setup").hidden = this.duel.length > 0 || this.queue.entries.length > 0;
    this.drawBar();
    this.drawChain();
    this.drawLP();
    this.drawEntries();
    this.status();
    this.moves().catch(() => {});
    if (this.selected && this.board) this.openSheet(this.selected, false);
    $("#match-end").hidden = !(MATCH && this.board && this.board.ended);
    if (this.board && this.board.ended && !this.over) this.duelOver();
  }

  // The duel has ended: the names picked for a next entry have none to go on. Kept, a shared
  // phone showed one table's guesses at a hand at the next (they are dropped from the browser;
  // one picked after the end is kept in memory only).
  duelOver() {
    this.over = true;
    this.shows = {};
    this.keepNames();
    this.drawNamed();
  }

  // A round table's duel that has ended: the match takes its result as the record says it
  // (POST /matches/{id}/games/{n}/end) and the table's link starts the next duel.
  async endGame() {
    try {
      const response = await fetch(`/matches/${MATCH}/state`, { headers: HEADERS, cache: "no-store" });
      const game = ((await response.json()).games || []).find((g) => g.duel === ID);
      if (game && !game.ended) {
        const ended = await fetch(`/matches/${MATCH}/games/${game.game}/end?lang=${encodeURIComponent(language)}`, {
          method: "POST", headers: { ...HEADERS, "Content-Type": "application/json" }, body: "{}" });
        const answer = visible(await ended.json().catch(() => ({})));
        if (!ended.ok) { this.error(answer.rule ? `${answer.rule}: ${said(answer)}` : answer.error || t("the service answered {status}", { status: ended.status })); return; }
      }
    } catch (error) {
      this.error(t("The match cannot be reached: try again when the network is back."));
      return;
    }
    location.assign(`/record/match/${MATCH}?${new URLSearchParams({ token: TOKEN || "" })}`);
  }

  collectFlags() {
    for (const frame of this.duel.frames) {
      if (frame.flags && frame.flags.length && !this.flags.has(frame.i)) this.flags.set(frame.i, frame.flags.map((f) => f.rule || f));
    }
  }

  tapped(event) {
    const card = event.target.closest(".card");
    if (card && this.viewer.cardOf.has(card)) {
      event.preventDefault();
      this.openSheet(this.viewer.cardOf.get(card).id, true);
      return;
    }
    if (event.target.closest(".zone:not(.pile)") || event.target.closest(".deck")) {
      this.moves().catch(() => {});
      $("#bar").scrollIntoView({ block: "nearest" });
    }
  }

  // -- actions from the rules -------------------------------------------------------------------------

  async actions(card) {
    const query = new URLSearchParams({ lang: language });
    if (card) query.set("card", card);
    const named = namesText(this.sendable(null));
    if (named) query.set("shows", named);
    const key = `${card}|${named}|${this.duel.length}`;
    if (this.actionsOf.has(key)) return this.actionsOf.get(key);
    const response = await fetch(`/duels/${ID}/actions?${query}`, { headers: HEADERS, cache: "no-store" });
    const answer = visible(await response.json());
    if (!response.ok) throw new Error(answer.error || t("the service answered {status}", { status: response.status }));
    this.info.warnings = !!answer.warnings;
    this.info.mode = answer.mode || this.info.mode;
    if (this.actionsOf.size > 200) this.actionsOf.clear();
    this.actionsOf.set(key, answer.actions);
    return answer.actions;
  }

  // The rules' moves for the turn; those of an older position (or other names) are taken off
  // at once, so a tap never enters a move that no longer fits.
  async moves() {
    const box = $("#moves");
    box.replaceChildren();
    delete box.dataset.at;
    if (!this.duel.length || this.queue.waiting.length) return;
    const at = this.duel.length, named = this.namedText();
    let found;
    try { found = await this.actions(null); } catch (error) { this.connected(false); return; }
    if (at !== this.duel.length || named !== this.namedText()) return;
    box.replaceChildren(...found.filter((a) => !BAR_KINDS.has(a.event.kind)).map((a) => this.actionRow(a, "move")),
      ...this.battleResults(found));
    box.dataset.at = String(at);
    box.dataset.shows = named;
    this.status();
  }

  namedText() { return namesText(this.shows); }

  // What a damage calculation left to enter, as the rules' list offers it: the battle damage
  // (each player's LP) and each monster it destroyed to the GY (BATTLE-14), in one tap: at the
  // table the result is said at once ("1000 to you, Vorse goes"). Each is still an entry of its
  // own, LP first, in the list's order; each also has its own row above.
  battleResults(found) {
    const legal = (a) => !a.verdict || a.verdict === "legal";
    const results = [...found.filter((a) => a.event.kind === "life_points_changed" && a.event.reason === "battle_damage"),
      ...found.filter((a) => a.event.kind === "card_moved" && a.event.reason === "battle")].filter(legal);
    if (results.length < 2) return [];
    const row = el("div", "action");
    const label = t("All results of the damage calculation ({n})", { n: results.length });
    row.dataset.label = "All results of the damage calculation";
    const main = button(label, () => this.enter(results.map((a) => a.event), label), "big");
    main.dataset.move = "battle-results";
    row.append(main);
    return [row];
  }

  // The names this device may send with ``event`` (null: with a question, /actions). A player's
  // device names its own hidden cards for itself (to seal them: the service must not learn
  // them): such a name leaves it only with an entry that puts that very card face-up, never with
  // a question, another card's entry or one that keeps it hidden (a Set, back to the hand or Deck).
  sendable(event) {
    const out = {};
    for (const [id, code] of Object.entries(this.shows)) {
      const card = this.seals ? this.cardOnBoard(id) : null;
      const own = !!card && card.controller === this.side && !!card.hidden;
      if (!own || (event && event.card === id && showsFaceUp(event))) out[id] = code;
    }
    return out;
  }

  actionRow(action, role) {
    const row = el("div", "action");
    row.dataset.label = action.label;             // the English, as scripts match it; shown in the page's language
    const shown = action.label_translated || action.label;
    const stats = action.event.kind === "stats_changed" ? this.statFields(action.event)
      : action.label === PLACE_IN_DECK ? this.placeField(action.event) : null;
    const main = button(shown, () => this.enter([stats ? stats.event() : action.event], shown), "big");
    main.dataset.action = action.label;
    main.dataset.kind = action.event.kind;
    if (role === "move") main.dataset.move = action.event.kind;
    row.append(main);
    if (stats) row.append(...stats.inputs);
    for (const [field, values] of Object.entries(action.choices || {})) {
      for (const value of values) {
        if (JSON.stringify(value) === JSON.stringify(action.event[field])) { main.textContent = `${shown} · ${this.choiceText(action.event, field, value)}`; continue; }
        const chip = button(this.choiceText(action.event, field, value), () => this.enter([{ ...action.event, [field]: value }],
          `${shown} · ${this.choiceText(action.event, field, value)}`), "chip");
        chip.dataset.choice = `${field}=${typeof value === "string" ? value : JSON.stringify(value)}`;
        row.append(chip);
      }
    }
    if (this.info.warnings && action.verdict && action.verdict !== "legal") {
      const mark = el("span", `verdict ${action.verdict}`, `${action.verdict}${action.rules ? " " + action.rules.join(" ") : ""}`);
      row.append(mark);
    } else if (action.breaks) {
      row.append(el("span", "breaks", action.breaks.join(" ")));      // the judge's page, warnings off
    }
    return row;
  }

  // A monster's ATK/DEF as an effect sets them: its fields, filled with what it has now (the
  // scorekeeper types the new figure), and the event they make. The sheet's one tap; it was
  // typed whole in *Something else…* (six taps).
  statFields(event) {
    const inputs = [["atk", t("ATK")], ["defense", t("DEF")]].filter(([field]) => event[field] !== undefined && event[field] !== null)
      .map(([field, label]) => {
        const input = el("input", "stat");
        Object.assign(input, { type: "number", min: "0", step: "50", inputMode: "numeric", value: String(event[field]) });
        input.setAttribute("aria-label", label);
        input.placeholder = label;
        input.dataset.stat = field;
        return input;
      });
    const typed = () => Object.fromEntries(inputs.filter((i) => i.value !== "" && Number.isFinite(Number(i.value)))
      .map((i) => [i.dataset.stat, Math.max(0, Math.round(Number(i.value)))]));
    return { inputs, event: () => ({ ...event, ...typed() }) };
  }

  // ZONE-11: a card put at a place in the Deck an effect names ("the 3rd from the top"): the
  // place typed, counted from 1 at the top as the players say it; stored from 0, as the record
  // counts. Only the top and the bottom were a tap; in between was typed whole.
  placeField(event) {
    const input = el("input", "stat");
    Object.assign(input, { type: "number", min: "1", step: "1", inputMode: "numeric", value: String(event.to[2] + 1) });
    input.setAttribute("aria-label", t("Place from the top"));
    input.dataset.stat = "place";
    const place = () => Math.max(0, Math.round(Number(input.value) || 1) - 1);
    return { inputs: [input], event: () => ({ ...event, to: [event.to[0], event.to[1], place()] }) };
  }

  choiceText(event, field, value) {
    if (field === "zone") {
      const spell = event.kind === "spell_trap_set" || event.kind === "activated";
      return `${spell ? "S" : "M"}${value}`;
    }
    if (typeof value === "string") return this.cardName(value);
    if (Array.isArray(value)) return value.map((id) => this.cardName(id)).join(" + ");   // materials
    return String(value);
  }

  // -- the card's sheet -----------------------------------------------------------------------------

  async openSheet(id, fresh) {
    this.selected = id;
    this.recentCard = id;
    const sheet = $("#sheet");
    sheet.hidden = false;
    sheet.dataset.card = id;
    $("#sheet-title").textContent = this.cardName(id);
    const card = this.cardOnBoard(id);
    const unnamed = !card || !card.code;
    $("#namer").hidden = !unnamed && !this.shows[id];
    if (fresh) { $("#name-input").value = ""; this.suggest(); }
    this.drawNamed();
    const box = $("#sheet-actions");
    box.replaceChildren();
    delete box.dataset.at;
    const at = this.duel.length, named = this.namedText();
    let found;
    try {
      found = this.queue.waiting.length ? null : await this.actions(id);
    } catch (error) {
      found = null;
    }
    if (this.selected !== id || at !== this.duel.length || named !== this.namedText()) return;
    const rows = found ? this.sheetRows(found, card) : this.offlineActions(card);
    box.replaceChildren(...this.sealRows(card), ...rows);
    box.dataset.at = String(at);
    box.dataset.shows = named;
    // at 360 × 740 the sheet opened below the board, its title alone in sight: its rows were a
    // scroll away (sticky does not hold it there), so it is brought into sight whole
    sheet.scrollIntoView({ block: "nearest" });
    if (fresh && unnamed && window.matchMedia("(pointer: fine)").matches) $("#name-input").focus();
  }

  // What a card may do when the rules cannot be asked (offline, or entries still waiting): moves
  // any card can make, and a Spell or Trap's activation (a Spell played as the network drops
  // was typed whole in *Something else…*). The sheet says why.
  offlineActions(card) {
    if (!card) return [el("p", "hint", t("This card is not on the board now."))];
    const hint = el("p", "hint", t("The rules' list comes back with the network; these moves are always possible."));
    const activation = this.offlineActivation(card);
    const found = [...(activation ? [{ label: N_("Activate"), event: activation }] : []),
      ...this.offlineSummons(card), ...this.offlineAttacks(card), ...this.offlineBattleAndStats(card)];
    // a Fusion, Synchro, Xyz or Link monster goes back to the Extra Deck, not the hand or Deck (ZONE-12)
    const type = this.types.get(this.shows[card.id] || card.code) || 0;
    // ZONE-11: to the Deck it is shuffled in, or placed on its top or bottom as the effect says
    const deck = (this.board.players[card.owner] || { deck: 0 }).deck;
    const back = type & (TYPE.FUSION | TYPE.SYNCHRO | TYPE.XYZ | TYPE.LINK)
      ? [["extra", N_("Return to the Extra Deck")]]
      : [["hand", N_("Return to the hand")], ["deck", N_("Shuffle into the Deck"), undefined, "shuffled"],
        ["deck", N_("Return to the top of the Deck"), 0], ["deck", N_("Return to the bottom of the Deck"), deck],
        ...(deck >= 2 ? [["deck", PLACE_IN_DECK, 2]] : [])];
    for (const [zone, label, index, why] of [["gy", N_("Send to the GY")], ["banished", N_("Banish")], ...back]) {
      const owner = zone === "hand" ? card.controller : card.owner;
      const to = index === undefined ? [owner, zone] : [owner, zone, index];
      // offline the page cannot ask why a card moves: to the GY it is "sent" (it was stored as returned)
      found.push({ label, event: { kind: "card_moved", card: card.id, to, reason: why || { gy: "sent", banished: "banished" }[zone] || "returned" } });
    }
    return [hint, ...this.sheetRows(found.map((a) => ({ ...a, label_translated: t(a.label) })), card)];
  }

  // The sheet at the speed of play: what the card most likely does now first (``likely``), the
  // rest folded under *More…*, and what the rules refuse now (``breaks``) apart, each flagged with
  // its rule IDs: a judge's record may still need what physically happened. A field monster had
  // 12 to 14 rows at 360 px, its common one often below the fold, and a hand card of the player
  // whose turn it isn't offered *Normal Summon* first (SUM-01), flagged only once stored.
  sheetRows(found, card) {
    // an attack in the Start Step is entered with the Battle Step (``enter``): BATTLE-02 is no bar
    const started = (a) => a.event.kind === "attack_declared" && this.step === "start"
      && (a.breaks || a.rules || []).every((rule) => rule === "BATTLE-02");
    const refused = found.filter((a) => (a.breaks || a.verdict === "illegal") && !started(a));
    const rank = this.likely(card);
    const allowed = found.filter((a) => !refused.includes(a)).map((a, i) => [rank(a.label), i, a])
      .sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, , a]) => a);
    const first = allowed.length > FIRST_ROWS + 1 ? FIRST_ROWS : allowed.length;
    const rows = allowed.slice(0, first).map((a) => this.actionRow(a, "card"));
    if (allowed.length > first) rows.push(this.foldedRows("more", t("More… ({n})", { n: allowed.length - first }), allowed.slice(first)));
    if (refused.length) rows.push(this.foldedRows("against", t("Against the rules now ({n})", { n: refused.length }), refused));
    return rows;
  }

  foldedRows(group, summary, found) {
    const box = el("details", `more ${group}`);
    box.dataset.group = group;
    const head = el("summary", "", summary);
    head.dataset.group = group;
    box.append(head, ...found.map((a) => this.actionRow(a, "card")));
    box.addEventListener("toggle", () => { if (box.open) box.scrollIntoView({ block: "nearest" }); });
    return box;
  }

  // How likely each of a card's actions is now, by the label's place in the list for where the
  // card is, whose turn it is, the phase, the Battle Phase's step and the chain (lower first).
  likely(card) {
    const board = this.board, place = card ? this.placeOf(card.id) : null;
    const mine = !!card && card.controller === this.turn.player, phase = this.phase, step = this.step;
    const attacker = board && board.attack && board.attack.attacker && card && board.attack.attacker.id === card.id;
    const chain = !!(board && board.chain && board.chain.length) || this.lastResolved !== null;
    const main = ["main1", "main2"].includes(phase);
    const order = place === "hand"
      ? (mine && main ? LIKELY.handMain : LIKELY.hand)
      : place === "mzone"
        ? (attacker ? LIKELY.attacker : chain ? LIKELY.resolving : mine && phase === "battle" && [null, "start", "battle"].includes(step)
          ? LIKELY.attacking : mine && main ? LIKELY.monsterMain : LIKELY.monster)
        : place === "szone" ? LIKELY.spell : LIKELY.pile;
    return (label) => { const i = order.indexOf(label); return i < 0 ? order.length : i; };
  }

  placeOf(id) {
    const board = this.board;
    if (!board) return null;
    if (board.emz.some((c) => c && c.id === id)) return "mzone";
    for (const side of board.players) {
      if (side.hand.some((c) => c && c.id === id)) return "hand";
      if (side.mzone.some((c) => c && c.id === id)) return "mzone";
      if ([...side.szone, side.fzone].some((c) => c && c.id === id)) return "szone";
    }
    return "pile";
  }

  // A Spell or Trap's activation as the rules' list offers it first: a Spell from the hand to the
  // first free Spell & Trap Zone (a Field Spell to the Field Zone), a Set card where it is. Known
  // by its face or the name picked for it; none for a card the page cannot tell is one.
  offlineActivation(card) {
    const side = this.board.players[card.controller];
    if (!side) return null;
    const event = { kind: "activated", player: card.controller, card: card.id };
    if (card.position === "set" && side.szone.some((c) => c && c.id === card.id)) return event;
    const type = this.types.get(this.shows[card.id] || card.code) || 0;
    if (!(type & TYPE.SPELL) || !side.hand.some((c) => c && c.id === card.id)) return null;
    if (type & TYPE.FIELD) return { ...event, field_zone: true };
    const zone = side.szone.slice(0, 5).findIndex((c) => !c);
    return zone < 0 ? null : { ...event, zone };
  }

  // SUM-01: the turn player's own card in the hand, in a Main Phase, as the rules' list offers it:
  // a monster of Level 4 or lower Normal Summoned or Set (no Tribute to choose), a Spell or Trap
  // Set, each in the first free zone (the others its choices). Offline the sheet had none: the
  // commonest play of a turn, made as the network dropped, was typed in *Something else…*.
  offlineSummons(card) {
    const me = card.controller, side = this.board && this.board.players[me];
    if (!side || me !== this.turn.player || !["main1", "main2"].includes(this.phase)) return [];
    if (!side.hand.some((c) => c && c.id === card.id)) return [];
    const code = this.shows[card.id] || card.code, type = this.types.get(code) || 0;
    const taken = new Set(this.ahead().filter((e) => e.player === me && e.zone !== undefined && !e.field_zone)
      .map((e) => `${SPELL_KINDS.has(e.kind) ? "s" : "m"}${e.zone}`));
    const free = (zones, prefix) => zones.slice(0, 5).map((c, i) => (c || taken.has(`${prefix}${i}`) ? -1 : i)).filter((i) => i >= 0);
    const placed = (label, event, zones) => (zones.length ? [{ label, event: { ...event, zone: zones[0] },
      choices: zones.length > 1 ? { zone: zones } : {} }] : []);
    const extra = TYPE.FUSION | TYPE.SYNCHRO | TYPE.XYZ | TYPE.LINK;
    if (type & TYPE.MONSTER && !(type & extra) && (this.levels.get(code) || 0) <= 4) {
      const event = { kind: "normal_summoned", player: me, card: card.id, tributes: [] }, zones = free(side.mzone, "m");
      return [...placed(N_("Normal Summon"), event, zones), ...placed(N_("Set (monster)"), { ...event, kind: "monster_set" }, zones)];
    }
    if (type & (TYPE.SPELL | TYPE.TRAP) && !(type & TYPE.FIELD)) {
      return placed(N_("Set (Spell/Trap)"), { kind: "spell_trap_set", player: me, card: card.id }, free(side.szone, "s"));
    }
    return [];
  }

  // BATTLE-02: a face-up Attack Position monster of the turn player's in the Battle Step (or
  // the Start Step, as the Battle Phase was entered) attacks, as the rules' list offers it: the
  // opponent's first monster (the others its choices), or directly. Offline the sheet had no
  // attack: a Battle Phase played as the network dropped was typed in *Something else…*.
  offlineAttacks(card) {
    const board = this.board, me = card.controller;
    if (!board || me !== this.turn.player || !["start", "battle"].includes(this.step) || card.position !== "attack") return [];
    const mine = (c) => c && c.id === card.id;
    if (!board.players[me].mzone.some(mine) && !board.emz.some((c) => mine(c) && c.controller === me)) return [];
    const targets = [...board.players[1 - me].mzone, ...board.emz.filter((c) => c && c.controller === 1 - me)]
      .filter(Boolean).map((c) => c.id);
    const attack = { kind: "attack_declared", player: me, attacker: card.id };
    return [...(targets.length ? [{ label: N_("Attack"), event: { ...attack, target: targets[0] },
      choices: targets.length > 1 ? { target: targets } : {} }] : []),
      { label: N_("Attack directly"), event: attack }];
  }

  // BATTLE-06, an effect's ATK/DEF: the attacker's attack stopped, a face-up monster's figures
  // set, as the rules' list offers them, by the card of the link just resolved (``lastResolved``;
  // the stopped attack by its player); the figures' fields are the sheet's as online.
  offlineBattleAndStats(card) {
    const board = this.board, out = [], by = this.lastResolved, causer = by ? this.cardOnBoard(by) : null;
    const cause = by ? { cause: by } : {};
    const onField = board.players.some((side) => side.mzone.some((c) => c && c.id === card.id))
      || board.emz.some((c) => c && c.id === card.id);
    if (!onField) return out;
    if (board.attack && board.attack.attacker && board.attack.attacker.id === card.id) {
      out.push({ label: N_("Stop this attack"), event: { kind: "attack_cancelled", ...cause,
        ...(causer ? { player: causer.controller } : {}) } });
    }
    if (!card.hidden && card.position !== "set" && card.atk !== undefined && card.atk !== null) {
      const link = (this.types.get(this.shows[card.id] || card.code) || 0) & TYPE.LINK;
      out.push({ label: N_("Change ATK/DEF"), event: { kind: "stats_changed", card: card.id, atk: card.atk,
        ...(link ? {} : { defense: card.defense }), ...cause } });
    }
    return out;
  }

  cardOnBoard(id) {
    const board = this.board;
    if (!board) return null;
    for (const side of board.players) {
      for (const c of [...side.hand, ...side.mzone, ...side.szone, side.fzone, ...side.gy, ...side.banished, ...side.extra]) {
        if (c && c.id === id) return c;
      }
    }
    return board.emz.find((c) => c && c.id === id) || null;
  }

  // A player's own hidden card: seal it as the name picked (the name stays on this device), or
  // open its seal. Nothing for any other card or device.
  sealRows(card) {
    if (!this.seals || !card || card.controller !== this.side) return [];
    const kept = this.seals.cards[card.id];
    if (kept && !kept.opened) {
      const row = el("div", "action seal");
      row.append(el("span", "hint", t("Sealed as {name}: only this device knows it", { name: this.nameOf(kept.code) })),
        button(t("Open: show it is {name}", { name: this.nameOf(kept.code) }), () => this.openSeals([card.id]), "chip"));
      row.lastChild.dataset.seal = "open";
      return [row];
    }
    if (!card.hidden || kept) return [];
    const code = this.shows[card.id];
    if (!code) return [el("p", "hint seal", t("Your own hidden card: name it above to seal it (the record keeps a seal, only you know the card)."))];
    if (!(window.crypto && crypto.subtle)) return [el("p", "hint seal", t("Sealing needs the page served over HTTPS."))];
    const b = button(t("Seal as {name} (only you know it)", { name: this.nameOf(code) }), () => this.sealCard(card.id, code), "big");
    b.dataset.seal = "seal";
    const row = el("div", "action seal");
    row.append(b);
    return [row];
  }

  async sealCard(card, code) {
    delete this.shows[card];                       // the name is this device's, not the next entry's
    this.keepNames();
    this.drawNamed();
    const digest = await this.seals.seal(card, code);
    this.enter([{ kind: "cards_sealed", player: this.side, seals: { [card]: digest } }], t("Seal {card}", { card: this.cardWords(card) }));
  }

  openSeals(cards) {
    if (!cards.length) return;
    this.enter([{ kind: "cards_opened", player: this.side, cards: this.seals.open(cards) }], t("Open {n} sealed", { n: cards.length }));
  }

  drawSeals() {
    const b = $("#open-seals");
    const unopened = this.seals ? this.seals.unopened : [];
    b.hidden = !unopened.length;
    b.textContent = unopened.length === 1 ? t("Open my 1 sealed card") : t("Open my {n} sealed cards", { n: unopened.length });
    document.body.dataset.sealed = String(unopened.length);
  }

  closeSheet() {
    this.selected = null;
    $("#sheet").hidden = true;
  }

  keepNames() {
    try {
      if (this.over || !Object.keys(this.shows).length) localStorage.removeItem(this.namesSlot);
      else localStorage.setItem(this.namesSlot, JSON.stringify(this.shows));
    } catch (error) { /* full: kept in memory */ }
  }

  // A hidden card as the players at the table say it, whose and where ("Yamada's card in the Extra
  // Deck"): never the record's id (p0.x0), which means nothing to them.
  cardWords(id) {
    const board = this.board;
    for (const [p, side] of (board ? board.players : []).entries()) {
      const places = [[side.hand, t("Hand")], [side.extra, t("Extra Deck")], [side.gy, t("Graveyard")],
        [side.banished, t("Banished")], [[side.fzone], t("Field Zone")]];
      side.mzone.slice(0, 5).forEach((c, z) => places.push([[c], t("Main Monster Zone {n}", { n: z + 1 })]));
      side.szone.forEach((c, z) => places.push([[c], t("Spell & Trap Zone {n}", { n: z + 1 })]));
      const place = places.find(([cards]) => cards.some((c) => c && c.id === id));
      if (place) return t("{player}'s card in {place}", { player: this.name(p), place: place[1] });
    }
    const card = board ? board.emz.find((c) => c && c.id === id) : null;
    if (card) return t("{player}'s monster", { player: this.name(card.controller) });
    const owner = /^p([01])\./.exec(id);            // in the Deck: the board lists no deck's cards
    return owner ? t("{player}'s card", { player: this.name(Number(owner[1])) }) : t("a face-down card");
  }

  drawNamed() {
    const names = Object.entries(this.shows).map(([id, code]) => t("{card} is {name}", { card: this.cardWords(id), name: this.nameOf(code) }));
    $("#named").textContent = names.length ? t("Named for the next entry: {names}", { names: names.join(", ") }) : "";
  }

  // -- names ----------------------------------------------------------------------------------------

  // Names in the page's language where the service has them installed (``/cards.json?lang=``:
  // ``name`` that name, ``english`` the English one), kept per language: a scorekeeper in Taipei
  // types 灰流 and finds the card an English reader finds as Ash.
  async loadNames() {
    const slot = `ygoreplay.cards.${language}`;
    const kept = (() => { try { return JSON.parse(localStorage.getItem(slot) || "null"); } catch (e) { return null; } })();
    let data = kept || { columns: [], cards: [] };
    try {
      const response = await fetch(`/cards.json?lang=${encodeURIComponent(language)}`, { headers: kept && kept.etag ? { "If-None-Match": kept.etag } : {} });
      if (response.status === 200) {
        data = await response.json();
        try { localStorage.setItem(slot, JSON.stringify({ etag: response.headers.get("ETag"), columns: data.columns, cards: data.cards, fold: data.fold })); } catch (e) { /* full: kept in memory */ }
      }
    } catch (error) { /* offline: what was kept */ }
    const english = (data.columns || []).indexOf("english");
    this.localNames = english >= 0;                // names in the page's language installed on the service
    const rows = data.cards.map((r) => [r[0], r[1], english >= 0 ? r[english] : null]);   // [code, name, english]
    this.types = new Map(data.cards.map((r) => [r[0], r[2]]));
    this.levels = new Map(data.cards.map((r) => [r[0], r[3]]));
    const local = new Map(rows.map((r) => [r[0], r]));
    let own = [];
    try {
      const response = await fetch(`/duels/${ID}/cards`, { headers: HEADERS });
      if (response.ok) {
        const facts = await response.json();
        for (const f of facts) { this.types.set(f.code, f.type); this.levels.set(f.code, f.level); }
        own = facts.map((f) => local.get(f.code) || [f.code, f.name, null]);
      }
    } catch (error) { /* offline */ }
    const decks = await this.matchDecks();       // a match's duel: the decklists this token may see
    const seen = new Set(own.map((r) => r[0]));
    own.push(...rows.filter((r) => decks.has(r[0]) && !seen.has(r[0])));
    for (const r of own) seen.add(r[0]).add(r[1]);   // an artwork of the duel's own: the database's not suggested again
    this.fold = new Map(Object.entries(data.fold || {}));     // Chinese: a character → its Simplified form
    const names = visible([...own.map((r) => [...r, true]), ...rows.filter((r) => !seen.has(r[0]) && !seen.has(r[1]))]);
    this.names = names.map(([code, name, english, mine]) => [code, name, english, !!mine, this.folded(name)]);   // [code, name, english, own, name folded]
    this.nameIndex = new Map(this.names.map((r) => [r[0], r[1]]));
    this.ranked = nameIndex(this.names);           // the name box's order and first characters, once a list
    this.drawNamed();                              // names kept from before a reload, by name now
    this.suggest();                                // letters typed before the names came: found now
  }

  // The passcodes of the match's decklists (main, Extra, Side) this token may see, when the page
  // was opened from a table's link (``?match=``); none otherwise, or offline. The start form's
  // Extra Deck size is theirs when known.
  async matchDecks() {
    if (!MATCH) return new Set();
    try {
      const response = await fetch(`/matches/${MATCH}/state`, { headers: HEADERS, cache: "no-store" });
      if (!response.ok) return new Set();
      const decks = (await response.json()).decks || [];
      this.extraFromDecklists(decks);
      return new Set(decks.flatMap((d) => (d ? [...(d.main || []), ...(d.extra || []), ...(d.side || [])] : [])));
    } catch (error) {
      return new Set();
    }
  }

  // The start form's Extra Deck size from both decklists when they agree (DECK-03: 0 to 15; the
  // form starts at 15, the usual), unless a size was typed or kept: their sizes, which every view
  // of the match holds (the table's code reads no decklist's cards).
  extraFromDecklists(decks) {
    const sizes = new Set(decks.map((d) => (d && d.counts ? d.counts.extra : null)));
    const field = $("#extra-size");
    if (decks.length !== 2 || sizes.size !== 1 || sizes.has(null) || this.duel.length || field.value !== field.defaultValue) return;
    field.value = String([...sizes][0]);
  }

  nameOf(code) { return (this.nameIndex && this.nameIndex.get(code)) || String(code); }

  // Text as names are compared: case ignored, Chinese in one script (the service's
  // ``card_names.fold``, by its table): 閃刀 typed finds 闪刀姬, 闪刀 finds 閃刀姬; full-width
  // letters and signs as plain ones (names.js ``plain``): ＡＢＣ typed finds ABC-神龙歼灭者,
  // Z-ONE finds Z－ONE.
  folded(text) { return plain([...text].map((c) => this.fold.get(c) || c).join("")); }

  // The cards this duel makes likely for the card being named, as this page's own view of the
  // board shows them (a view holds no card hidden from its viewer: an opponent's Set card or hand
  // has no code in it, so none is suggested): the names entered on this page but not stored yet,
  // then the cards of the same owner the board shows named (a second copy, a card back to the
  // hand), then the other player's; then the duel's own list (its cards known at load, a match's
  // decklists this token may see). Before a letter is typed they are the name box's first
  // choices, one tap each: a name was three taps (the card, the letters, the pick).
  likelyCodes() {
    const board = this.board, card = this.selected ? this.cardOnBoard(this.selected) : null;
    const owner = card ? card.owner : null, mine = [], theirs = [];
    for (const [id, code] of Object.entries(this.shows)) if (id !== this.selected) mine.push(code);
    for (const side of board ? board.players : []) {
      for (const c of [...side.hand, ...side.mzone, ...side.szone, side.fzone, ...side.gy, ...side.banished, ...side.extra]) {
        if (c && c.code && c.id !== this.selected) (owner === null || c.owner === owner ? mine : theirs).push(c.code);
      }
    }
    for (const c of board ? board.emz : []) if (c && c.code) (owner === null || c.owner === owner ? mine : theirs).push(c.code);
    const own = (this.names || []).filter((r) => r[3]).map((r) => r[0]);
    return [...new Set([...mine, ...theirs, ...own])].filter((code) => this.nameIndex && this.nameIndex.has(code));
  }

  suggestion(row) {
    const b = button(row[1], () => this.named(row[0]), "suggestion");
    b.setAttribute("role", "option");
    b.dataset.code = String(row[0]);
    if (row[2]) b.title = row[2];
    if (row[3]) b.classList.add("own");
    return b;
  }

  suggest() {
    const typed = $("#name-input").value.trim();
    const query = this.folded(typed);
    const box = $("#suggestions");
    const card = this.selected ? this.cardOnBoard(this.selected) : null;
    if (!query) {
      // an unnamed card's sheet opens on the duel's likely names: one tap names it
      const likely = card && !card.code && !this.shows[card.id] ? this.likelyCodes().slice(0, 6) : [];
      const rows = this.names ? likely.map((code) => this.names.find((r) => r[0] === code)).filter(Boolean) : [];
      box.replaceChildren(...(rows.length ? [el("span", "hint", t("In this duel:")), ...rows.map((row) => this.suggestion(row))] : []));
      return;
    }
    // the closest 8 (names.js): the duel's own cards, a name typed whole, names starting with the
    // text, then the shorter names; read from the list's index, one letter no longer ranks 400 rows;
    // among them the cards this duel makes likely now (``likelyCodes``) first
    const likely = new Set(this.likelyCodes());
    const found = closest(this.ranked, typed, query, 24);
    const shown = [...found.filter((r) => likely.has(r[0])), ...found.filter((r) => !likely.has(r[0]))].slice(0, 8);
    // nothing found in a language whose names the service lacks (Japanese: the card data holds
    // English names only): typing 灰流 showed nothing, and nothing said what would be found
    if (!shown.length && !this.localNames && language !== "en" && this.names.length) {
      box.replaceChildren(el("p", "hint", t("No card found: names in this language are not installed; type the English name or the passcode.")));
      return;
    }
    box.replaceChildren(...shown.map((row) => this.suggestion(row)));
  }

  named(code) {
    if (!this.selected) return;
    this.shows[this.selected] = code;
    this.keepNames();
    $("#name-input").value = "";
    $("#suggestions").replaceChildren();
    this.drawNamed();
    this.openSheet(this.selected, false);
    this.moves().catch(() => {});
  }

  // -- the bar: phases, steps, turns ----------------------------------------------------------------

  drawBar() {
    const box = $("#phases");
    if (box.childElementCount) return;
    for (const [phase, label, key, words] of PHASES) {
      const b = button(t(label), () => this.enter([{ kind: "phase_entered", phase }], t(words)));
      b.dataset.move = `phase-${phase}`;
      b.title = `${t(words)} (${key})`;
      b.setAttribute("aria-label", t(words));
      box.append(b);
    }
    for (const [step, label] of STEPS) {
      const b = button(t(label), () => this.enter([{ kind: "step_entered", step }], t(label)));
      b.dataset.move = `step-${step}`;
      box.append(b);
    }
    const draw = button(t("Draw 1"), () => this.drawCard());
    draw.dataset.move = "draw-card";
    draw.title = t("The turn player draws a card (c)");
    const next = button(t("Next turn"), () => this.nextTurn());
    next.dataset.move = "next-turn";
    next.title = t("Next turn (n)");
    box.append(draw, next);
  }

  // The turn player's Draw Phase draw; outside it, a draw by the card of the link just resolved
  // (Pot of Greed: its player draws, that card the cause, as TURN-02 asks). Such a draw was the
  // turn player's with no cause, stored flagged TURN-02, or typed whole in *Something else…*.
  drawCard() {
    const by = this.phase === "draw" ? null : this.lastResolved, card = by ? this.cardOnBoard(by) : null;
    this.enter([{ kind: "cards_drawn", player: card ? card.controller : this.turn.player, count: 1,
      ...(card ? { cause: by } : {}) }], t("Draw"));
  }

  nextTurn() {
    const { turn, player } = this.turn;
    const first = this.board ? this.board.turn === 0 && !this.ahead().some((ev) => ev.kind === "turn_started") : false;
    this.enter([{ kind: "turn_started", player: turn === 0 || first ? player : 1 - player, turn: turn + 1 }], t("Next turn"));
  }

  drawChain() {
    const board = this.board;
    const links = board ? board.chain.length : 0;
    $("#chain-state").textContent = links === 1 ? t("Chain: 1 link · activate a card to add one")
      : links ? t("Chain: {n} links · activate a card to add one", { n: links }) : t("No chain · activate a card to start one");
    // a chain of 2 links or more resolved as declared, last link first (CHAIN-05), in one tap
    const all = $('#chainbox [data-move="resolve-all"]');
    all.hidden = links < 2;
    all.textContent = t("Resolve all {n}, last link first", { n: links });
    all.title = t("Both players pass, then every link resolves in reverse order (CHAIN-04, CHAIN-05)");
  }

  // The passes a chain still needs before its first link resolves (CHAIN-04: both players in
  // succession): none once a link has resolved (the chain is resolving), else two less those
  // entered since its last link was activated. *Resolve all* states them always (its words: both
  // pass, then every link resolves); *Resolve* where the record states passes (one entered
  // anywhere before: the rules check them from then on; a record that states none is kept so, as
  // a sample's is). At the table *Resolve* means both passed: a tap entered *Pass*, *Pass*,
  // *Resolve*, three taps for one, or a pass was missed and the resolution flagged CHAIN-04.
  // Only the recorder's device enters both players' passes; a player's device passes for its own.
  owedPasses(always) {
    const kinds = [...this.duel.frames.map((f) => f.kind), ...this.ahead().map((ev) => ev.kind)];
    if (!always && !kinds.includes("priority_passed")) return 0;
    let passes = 0;
    for (let i = kinds.length - 1; i >= 0; i--) {
      const kind = kinds[i];
      // past a judge's rollback or correction the page cannot tell: none, as before
      if (["chain_link_resolved", "chain_link_negated", "rolled_back", "entry_corrected"].includes(kind)) return 0;
      if (kind === "activated") return Math.max(0, 2 - passes);
      passes = kind === "priority_passed" ? passes + 1 : 0;
    }
    return 0;
  }

  // Those passes, from the player holding priority now (PRIO-03: each pass hands it over).
  passesFor(owed) {
    const board = this.board;
    const first = board && board.priority !== undefined ? board.priority : this.turn.player;
    return Array.from({ length: owed }, (_, i) => ({ kind: "priority_passed", player: (first + i) % 2 }));
  }

  chainMove(move) {
    const board = this.board;
    const links = board ? board.chain.length : 0;
    // a player's device passes for its player; the recorder's, for the one holding priority (PRIO-01/03)
    const passer = this.side !== null ? this.side : board && board.priority !== undefined ? board.priority : this.turn.player;
    const passes = (always) => (this.side === null && links ? this.passesFor(this.owedPasses(always)) : []);
    if (move === "pass") this.enter([{ kind: "priority_passed", player: passer }], t("Pass"));
    if (move === "resolve") this.enter([...passes(false), { kind: "chain_link_resolved", link: Math.max(1, links) }], t("Resolve"));
    if (move === "resolve-all" && links) {
      const all = Array.from({ length: links }, (_, i) => ({ kind: "chain_link_resolved", link: links - i }));
      this.enter([...passes(true), ...all], t("Resolve all"));
    }
    if (move === "chain-over") this.chainOver();
  }

  // The chain's end, after the resolved Spells and Traps the rules say must be in the GY by then
  // (SPELL-04, TRAP-04): at the table the card goes as the chain ends, so one tap enters both,
  // never the end alone (which a witnessed duel flagged for the order it was entered in).
  // Asked of the service once the entries before it are stored (offline: the end alone, as typed).
  async chainOver() {
    for (let i = 0; i < 100 && this.online && this.queue.waiting.length; i++) await new Promise((done) => setTimeout(done, 100));
    let leaving = [];
    if (!this.queue.waiting.length) {
      try {
        const response = await fetch(`/duels/${ID}/actions`, { headers: HEADERS, cache: "no-store" });
        const found = response.ok ? (await response.json()).actions || [] : [];
        leaving = found.filter((a) => a.event.kind === "card_moved" && a.event.reason === "resolved").map((a) => visible(a.event));
      } catch (error) { leaving = []; }
    }
    this.enter([...leaving, { kind: "chain_ended" }], t("Chain over"));
  }

  // -- the LP keypad --------------------------------------------------------------------------------
  // Paper players count Life Points in hundreds (costs of 1000, burn of 500 or 800, 2900 of battle),
  // so the keys do too: 2 9 is 2,900, 8 is 800, 1 0 is 1,000. After · the keys count tens and
  // units (1 8 · 5 is 1,850, · 5 is 50) for the odd amount. The display always shows the real
  // amount; each player has their own operations, so an LP change is its keys and one more tap.

  buildLP() {
    const keys = $("#lp-keys");
    for (const key of ["1", "2", "3", "C", "4", "5", "6", ".", "7", "8", "9", "0"]) {
      const b = button(key === "." ? "\u00b7" : key, () => { if (key === "C") this.amount = ""; else this.typed(key); this.drawLP(); });
      b.dataset.key = key;
      if (key === ".") b.setAttribute("aria-label", t("tens and units"));
      if (key === "C") b.setAttribute("aria-label", t("clear the amount"));
      keys.append(b);
    }
    $("#lp-ops").replaceChildren(...[0, 1].map((p) => {
      const side = el("div", "lp-side");
      side.dataset.player = String(p);
      for (const [op, label, key] of LP_OPS) {
        const b = button(t(label), () => this.lifePoints(op, p), `big ${op === "gain" ? "gain" : "loss"}`);
        b.title = `${t(label)} (${key})`;
        b.dataset.op = op;
        b.dataset.player = String(p);
        side.append(b);
      }
      return side;
    }));
    $("#lp-cause").addEventListener("click", () => { this.causeOn = !this.causeOn; this.drawLP(); });
  }

  // One key more of the amount: up to 999 hundreds, and two digits after the point.
  typed(key) {
    const [whole, part] = this.amount.split(".");
    if (key === ".") { if (part === undefined) this.amount += "."; return; }
    if (part !== undefined) { if (part.length < 2) this.amount += key; return; }
    if (whole.length < 3) this.amount = (whole + key).replace(/^0+(?=\d)/, "");
  }

  // The amount the keys say, in Life Points.
  get lpAmount() {
    const [whole, part] = this.amount.split(".");
    return Number(whole || 0) * 100 + (part ? Number(part.padEnd(2, "0")) : 0);
  }

  // The keys that say ``n`` Life Points (a one-tap amount put on the keypad).
  keysOf(n) {
    const hundreds = Math.floor(n / 100), rest = n % 100;
    return `${hundreds || ""}${rest ? "." + String(rest).padStart(2, "0").replace(/0$/, "") : ""}`;
  }

  // Amounts the duel suggests, one tap each: the last LP change's again, the ATK of the card last named.
  quickAmounts() {
    const out = [];
    const boards = this.duel.boards;
    for (let i = this.duel.length - 1; i > 0 && !out.length; i--) {
      if (this.duel.frames[i].kind !== "life_points_changed" || this.duel.struck.has(i)) continue;
      const change = Math.max(...[0, 1].map((p) => Math.abs(boards[i].players[p].lp - boards[i - 1].players[p].lp)));
      if (change) out.push([change, t("{amount} again", { amount: this.formatted(change) })]);
    }
    const cause = this.lastCard && this.cardOnBoard(this.lastCard);
    if (cause && cause.atk > 0) out.push([cause.atk, t("ATK of {card}: {atk}", { card: (!cause.hidden && this.duel.nameOf(cause)) || cause.id, atk: this.formatted(cause.atk) })]);
    return out.filter(([n], k) => out.findIndex(([m]) => m === n) === k);
  }

  formatted(n) { return new Intl.NumberFormat(language).format(n); }

  drawLP() {
    const board = this.board;
    $("#lp-who").replaceChildren(...[0, 1].map((p) => {
      const head = el("div", "lp-head");
      head.dataset.player = String(p);
      head.classList.toggle("keyed", this.lpPlayer === p);
      head.append(el("span", "name", this.name(p)), " ", el("span", "lp", board ? board.players[p].lp : ""));
      return head;
    }));
    for (const b of document.querySelectorAll("#lp-ops button")) {
      b.setAttribute("aria-label", t("{operation}: {player}", { operation: b.textContent, player: this.name(Number(b.dataset.player)) }));
    }
    for (const side of document.querySelectorAll("#lp-ops .lp-side")) side.classList.toggle("keyed", Number(side.dataset.player) === this.lpPlayer);
    const amount = $("#lp-amount");
    amount.textContent = this.formatted(this.lpAmount);
    amount.classList.toggle("empty", !this.amount);
    $("#lp-quick").replaceChildren(...this.quickAmounts().map(([n, label]) => {
      const b = button(label, () => { this.amount = this.keysOf(n); this.drawLP(); }, "chip");
      b.dataset.quick = String(n);
      return b;
    }));
    const cause = this.lastCard;
    const chip = $("#lp-cause");
    chip.textContent = cause && this.causeOn ? t("cause: {card}", { card: this.cardName(cause) }) : t("cause: none");
    chip.setAttribute("aria-pressed", String(!!(cause && this.causeOn)));
  }

  lifePoints(op, p) {
    this.lpPlayer = p;
    const board = this.board;
    let lp = board ? board.players[p].lp : 8000;
    for (const ev of this.ahead()) if (ev.kind === "life_points_changed" && ev.player === p && ev.lp != null) lp = ev.lp;
    const n = this.lpAmount;
    let event;
    if (op === "halve") event = { kind: "life_points_changed", player: p, amount: Math.ceil(lp / 2), reason: "set", lp: Math.ceil(lp / 2) };
    else if (!n) { this.drawLP(); return; }
    else if (op === "gain") event = { kind: "life_points_changed", player: p, amount: n, reason: "gain", lp: lp + n };
    else event = { kind: "life_points_changed", player: p, amount: n, reason: op, lp: Math.max(0, lp - n) };
    const cause = this.lastCard;
    if (cause && this.causeOn && op !== "battle_damage") event.cause = cause;
    this.amount = "";
    const operation = t(LP_OPS.find((o) => o[0] === op)[1]);
    this.enter([event], `${t("{operation}: {player}", { operation, player: this.name(p) })} ${this.formatted(event.amount)}`);
  }

  // The keypad from a keyboard (once l or Tab brought the focus into it): digits, · (. or ,),
  // Backspace, ←/→ for the player, then d b p g h for the operation (as the keys' titles say).
  lpKey(event) {
    const op = LP_OPS.find((o) => o[2] === event.key);
    if (/^[0-9]$/.test(event.key) || event.key === "." || event.key === ",") this.typed(event.key === "," ? "." : event.key);
    else if (event.key === "Backspace") this.amount = this.amount.slice(0, -1);
    else if (event.key === "ArrowLeft" || event.key === "ArrowRight") this.lpPlayer = event.key === "ArrowLeft" ? 0 : 1;
    else if (event.key === "Escape" && this.amount) this.amount = "";
    else if (op) { this.lifePoints(op[0], this.lpPlayer); return true; }
    else return false;
    this.drawLP();
    return true;
  }

  // -- coin, dice, tokens, anything else ------------------------------------------------------------

  buildChance() {
    const box = $("#chance");
    const coin = (heads) => button(heads ? t("Heads") : t("Tails"), () => this.enter([{ kind: "coin_tossed", results: [heads], ...this.causeField() }], t("Coin")));
    box.append(coin(true), coin(false));
    for (let n = 1; n <= 6; n++) {
      const b = button(`\u2680\u2681\u2682\u2683\u2684\u2685`[n - 1] + n, () => this.enter([{ kind: "die_rolled", results: [n], ...this.causeField() }], t("Die")));
      b.setAttribute("aria-label", t("die: {n}", { n }));
      box.append(b);
    }
  }

  causeField() {
    const cause = this.lastCard;
    return cause && this.causeOn ? { cause } : {};
  }

  async loadSchemas() {
    try {
      const response = await fetch("/schemas/event.json");
      this.schema = await response.json();
      localStorage.setItem("ygoreplay.schema", JSON.stringify(this.schema));
    } catch (error) {
      try { this.schema = JSON.parse(localStorage.getItem("ygoreplay.schema") || "null"); } catch (e) { this.schema = null; }
    }
    if (!this.schema) return;
    const select = $("#else-kind");
    // only the kinds this link may write: a match's events, or a judge's for a recorder, were
    // listed too, and their entry was always refused
    const kinds = this.schema.properties.kind.enum.filter((kind) => !this.writes.size || this.writes.has(kind));
    select.replaceChildren(...kinds.map((kind) => {
      const option = el("option", "", kindName(kind));
      option.value = kind;
      option.title = kind;
      return option;
    }));
    select.addEventListener("change", () => this.buildForm(select.value));
    this.restoreDraft();
  }

  // The form as it was before the page was reloaded (a locked phone), a refused entry's edit
  // included; a draft of a kind this link may not write (any more) is dropped.
  restoreDraft() {
    const kept = this.draft.get();
    if (!kept || !$(`#else-kind option[value="${CSS.escape(kept.kind || "")}"]`)) { this.draft.drop(); return; }
    const entry = kept.editing && this.queue.entries.find((e) => e.n === kept.editing.n && e.state === "refused");
    this.openElse(kept.kind);
    this.editing = entry ? { entry, k: kept.editing.k } : null;
    for (const input of $("#else-fields").querySelectorAll("[name]")) {
      const value = (kept.values || {})[input.getAttribute("name")];
      if (value === undefined) continue;
      if (input.dataset.bool) input.checked = Boolean(value); else input.value = value;
    }
    const more = $("#else-fields details.more");           // a folded field the draft fills is shown
    if (more) more.open = [...more.querySelectorAll("[name]")].some((f) => f.value);
    this.keepDraft();
  }

  // What the form holds now, kept (the raw values: a half-typed JSON list too).
  keepDraft() {
    if ($("#else").hidden) return;
    const values = {};
    for (const input of $("#else-fields").querySelectorAll("[name]")) {
      values[input.getAttribute("name")] = input.dataset.bool ? input.checked : input.value;
    }
    const editing = this.editing ? { n: this.editing.entry.n, k: this.editing.k } : null;
    this.draft.keep({ kind: $("#else-kind").value, values, editing });
  }

  // The form closed unsent: its draft goes with it (a refused entry being edited stays refused).
  discardElse() {
    $("#else").hidden = true;
    this.editing = null;
    this.draft.drop();
  }

  // ``needs``: fields this use of the form must have besides the kind's own (a ruling's decision).
  openElse(kind, needs = []) {
    const form = $("#else");
    form.hidden = false;
    this.cardChoices();
    if (kind) $("#else-kind").value = kind;
    // a duel under way never takes another start: the form opened on "Duel started" (the first
    // kind), and an Enter tapped at once was refused; it opens on the commonest other entry
    else if (this.duel.length && $("#else-kind").value === "duel_started" && this.writes.has("card_moved")) $("#else-kind").value = "card_moved";
    this.buildForm($("#else-kind").value, needs);
    this.keepDraft();
    form.scrollIntoView({ block: "nearest" });
  }

  // A form for one kind of event, from its JSON Schema, each field under its label in the page's
  // language (FIELD_LABELS; the JSON key in a tooltip): a player is a choice of the players by
  // name, a card a box offering the board's cards by name, where a card goes a player and a place,
  // an enum a choice, a number a number, a yes/no a box; only what is left (lists of several
  // things) is typed as JSON. Card fields start with the card last tapped, player fields with the
  // turn player (but a duel's end's).
  buildForm(kind, needs = []) {
    const body = this.schema && this.schema.$defs[kind];
    const box = $("#else-fields");
    box.replaceChildren();
    if (!body) return;
    const required = new Set([...(body.required || []), ...needs]);
    // what the kind needs first (a duel's end: winner and why; they came last, under fields every
    // event may carry), then its other fields; those every event may carry and a scorekeeper
    // never needs at the table (a cited text, a time, cards shown: typed JSON) folded away
    const more = el("details", "more");
    more.append(el("summary", null, t("More fields")));
    const fields = Object.entries(body.properties || {});
    fields.sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
    for (const [field, spec] of fields) {
      if (field === "kind" || field === "v" || field === "entered_by") continue;
      const label = el("label", "field", (FIELD_LABELS[field] ? t(FIELD_LABELS[field]) : field.replaceAll("_", " "))
        + (required.has(field) ? " *" : ""));
      label.title = field;
      const input = this.fieldInput(field, spec, required.has(field));
      input.setAttribute("name", field);
      if (needs.includes(field)) input.required = true;     // the browser asks for it before Enter
      // a duel's end names the player who surrendered or lost, never the turn player by default:
      // the turn player's opponent surrendering was entered as a surrender naming its winner (WIN-05)
      if (field === "player" && kind !== "duel_ended") input.value = String(this.turn.player);
      if (ONE_CARD_FIELDS.has(field) && this.recentCard && field !== "target") input.value = this.recentCard;
      label.append(input);
      (FOLDED_FIELDS.has(field) && !required.has(field) ? more : box).append(label);
    }
    if (more.childElementCount > 1) box.append(more);
    const judge = box.querySelector('[name="judge"]');
    if (judge && !judge.value) judge.value = this.judgeName.get() || "";
  }

  fieldInput(field, spec, required) {
    const ref = spec.$ref || (spec.anyOf || []).map((s) => s.$ref).find(Boolean);
    if (ref === "#/$defs/Loc") return this.placeInput();      // left empty (no place chosen) it is not sent
    const choices = spec.enum || (spec.anyOf || []).flatMap((s) => s.enum || []);
    const types = [].concat(spec.type || (spec.anyOf || []).map((s) => s.type)).filter(Boolean).flat();
    if (choices.length) {
      const input = el("select");
      if (!required || choices.includes(null)) input.append(el("option", "", ""));
      for (const choice of choices.filter((c) => c !== null)) {
        const word = CHOICE_LABELS[`${field}=${choice}`];
        const o = el("option", "", PLAYER_FIELDS.has(field) && typeof choice === "number" ? this.name(choice)
          : word ? t(word) : String(choice).replaceAll("_", " "));
        o.value = JSON.stringify(choice);
        o.title = String(choice);
        input.append(o);
      }
      input.dataset.json = "true";
      return input;
    }
    if (types.includes("integer") || types.includes("number")) {
      const input = el("input");
      input.type = "number";
      input.inputMode = "numeric";
      input.dataset.number = "true";
      if (field === "zone") { input.min = "0"; input.max = "6"; }
      return input;
    }
    if (types.length === 1 && types[0] === "boolean") {
      const input = el("input");
      input.type = "checkbox";
      input.dataset.bool = "true";
      return input;
    }
    const input = el("input");
    const text = types.includes("string") && !types.includes("array") && !types.includes("object");
    input.dataset.json = text ? "" : "true";
    if (!text) input.placeholder = "JSON";
    if (text && ONE_CARD_FIELDS.has(field)) input.setAttribute("list", "else-cards");
    return input;
  }

  // Where a card goes: the player (by name) and the place, kept as [player, place] on the form.
  placeInput() {
    const box = el("span", "place");
    const who = el("select");
    for (const p of [0, 1]) { const o = el("option", "", this.name(p)); o.value = String(p); who.append(o); }
    who.value = String(this.turn.player);
    const where = el("select");
    where.append(el("option", "", ""));
    for (const [place, name] of PLACES) { const o = el("option", "", t(name)); o.value = place; where.append(o); }
    who.dataset.part = "player";
    where.dataset.part = "place";
    box.append(who, where);
    box.dataset.place = "true";
    Object.defineProperty(box, "value", {
      get: () => (where.value ? JSON.stringify([Number(who.value), where.value]) : ""),
      set: (text) => {
        try { const [p, z] = JSON.parse(text); who.value = String(p); where.value = z; } catch (e) { where.value = ""; }
      },
    });
    return box;
  }

  // The board's cards for the card fields' list (their record ids, shown by name and zone).
  cardChoices() {
    const list = $("#else-cards");
    const board = this.board;
    if (!list || !board) return;
    const options = [];
    const seen = new Set();
    for (const side of board.players) {
      for (const card of [...side.hand, ...side.mzone, ...side.szone, side.fzone, ...side.gy, ...side.banished, ...side.extra]) {
        if (!card || seen.has(card.id)) continue;
        seen.add(card.id);
        const o = el("option");
        o.value = card.id;
        o.label = visible(this.cardName(card.id));
        options.push(o);
      }
    }
    list.replaceChildren(...options);
  }

  // The form filled with an event: a refused entry's, to edit and send corrected.
  fillForm(event) {
    for (const field of $("#else-fields").querySelectorAll("[name]")) {
      const value = event[field.getAttribute("name")];
      if (value === undefined) { if (field.dataset.bool) field.checked = false; else field.value = ""; continue; }
      if (field.dataset.bool) field.checked = Boolean(value);
      else if (field.dataset.json || field.dataset.place) field.value = JSON.stringify(value);
      else field.value = String(value);
    }
    const more = $("#else-fields details.more");           // a folded field the entry fills is shown
    if (more) more.open = [...more.querySelectorAll("[name]")].some((f) => f.value);
  }

  submitElse(event) {
    event.preventDefault();
    const kind = $("#else-kind").value;
    const out = { kind };
    const problems = [];
    for (const input of $("#else-fields").querySelectorAll("[name]")) {
      const name = input.getAttribute("name");
      if (input.dataset.bool) { if (input.checked) out[name] = true; continue; }
      const text = input.value.trim();
      if (text === "") continue;
      if (input.dataset.number) out[name] = Number(text);
      else if (input.dataset.json || input.dataset.place) {
        try { out[name] = JSON.parse(text); } catch (error) {
          problems.push(t("{field}: not JSON", { field: FIELD_LABELS[name] ? t(FIELD_LABELS[name]) : name }));
        }
      } else out[name] = text;
    }
    // a ruling on an entry names both the entry and the decision (LOG-05): asked for here, never
    // sent to be refused (the general form opened on a judge's note has neither required)
    if (kind === "judge_note" && ("on" in out) !== ("decision" in out)) {
      problems.push(t("A ruling on an entry names the entry and the decision: both or neither (LOG-05)"));
    }
    if (problems.length) { this.error(problems.join("; ")); return; }
    if (typeof out.judge === "string" && out.judge) this.judgeName.keep(out.judge);
    $("#else").hidden = true;
    this.draft.drop();                             // entered: in the queue now, kept there
    const editing = this.editing;
    this.editing = null;
    if (editing && this.queue.entries.includes(editing.entry)) {
      // a refused entry corrected: the same queued entry, sent again from the head now (never
      // dropped before the corrected one is in the queue: nothing the scorekeeper entered is lost)
      const entry = editing.entry;
      entry.events = entry.events.map((e, k) => (k === editing.k ? out : e));
      this.resend(entry, false);
      return;
    }
    this.enter([out], kindName(kind));
  }

  // A refused entry sent again from the head as it is now (``confirmed``: a turn change the
  // service asked the device to confirm, application.repeated_turn).
  resend(entry, confirmed) {
    entry.state = "waiting";
    entry.at = entry.made = this.position;
    entry.moved = 0;
    entry.confirmed = confirmed;
    delete entry.problem;
    delete entry.confirm;
    this.queue.save();
    this.drawEntries();
    this.status();
    this.flush();
  }

  edit(entry, k) {
    this.editing = { entry, k };
    this.openElse(entry.events[k].kind);
    this.fillForm(entry.events[k]);
    this.keepDraft();
  }

  // -- entries, undo --------------------------------------------------------------------------------

  struck() {
    const out = new Set();
    for (const frame of this.duel.frames) {
      if (frame.kind === "entry_corrected" || frame.kind === "rolled_back") for (let i = frame.to; i < frame.i; i++) out.add(i);
    }
    return out;
  }

  undo() {
    const waiting = this.queue.waiting;
    if (waiting.length) {                          // not sent yet: taken back out of the queue
      this.queue.drop(waiting[waiting.length - 1]);
      this.drawEntries();
      this.status();
      return;
    }
    const struck = this.struck();
    let at = this.duel.length - 1;
    // a judge's word is never undone here; the table's own judge call is (withdrawn, struck through)
    const skipped = (frame) => ["entry_corrected", "rolled_back", "entry_confirmed", "entry_disputed"].includes(frame.kind)
      || (frame.kind === "judge_note" && !(frame.call && frame.by !== "judge"));
    while (at >= 0 && (struck.has(at) || skipped(this.duel.frames[at]))) at--;
    if (at < 0) return;
    this.enter([{ kind: "entry_corrected", to: at, reason: "mis-entry: undone on the recorder's page" }], t("Undo"));   // the record's words, English (sentences.UNDONE_ON_THE_PAGE: the log says them in the reader's language)
  }

  // A judge call where the duel stands (MATCH-08): a dispute at the table, marked at this position
  // for the judge, who finds it on rewind (the viewer's timeline and log mark it). The call names
  // no judge (whichever comes answers it) and says what is disputed; it goes in as every entry does.
  call(event) {
    event.preventDefault();
    const reason = $("#call-reason").value.trim();
    if (!reason) return;
    $("#call-reason").value = "";
    $("#call").hidden = true;
    this.callDraft.drop();                         // entered: in the queue now, kept there
    this.enter([{ kind: "judge_note", category: "call", judge: "", note: reason }], t("Judge call"));
  }

  // The call's reason half-typed, kept as the other forms' drafts are (a phone that locks reloads
  // the tab); emptied, nothing is kept.
  keepCall() {
    const reason = $("#call-reason").value;
    if (reason.trim()) this.callDraft.keep({ reason }); else this.callDraft.drop();
  }

  // The kept reason back in the call form, opened; dropped if this link may not call a judge.
  restoreCall() {
    const kept = this.callDraft.get();
    if (!kept || typeof kept.reason !== "string") return;
    if (!this.calls) { this.callDraft.drop(); return; }
    $("#call-reason").value = kept.reason;
    $("#call").hidden = false;
  }

  // The judge's page: the table's calls in effect, one chip each (MATCH-08), open or ruled as the
  // viewer counts them (Duel.openCalls: a ruling in effect closes a call); a call picked shows
  // the entries before it, where the play disputed is. Its entries showed only the last twelve:
  // a call made a turn before the duel ended was past the judge's reach on a phone.
  drawCalls() {
    const box = $("#calls");
    const calls = judging(this.info.role) ? this.duel.callsInEffect() : [];
    box.hidden = !calls.length;
    const chips = calls.map((i) => {
      const ruled = this.duel.ruled(i);
      const label = ruled ? t("Judge call #{n}: ruled", { n: i }) : t("Judge call #{n}", { n: i });
      const b = button(label, () => { this.around = i; this.drawEntries(); }, ruled ? "chip ruled" : "chip");
      b.dataset.call = String(i);
      b.dataset.state = ruled ? "ruled" : "open";
      b.setAttribute("aria-pressed", String(i === this.around));
      if (this.duel.frames[i]) b.title = this.duel.frames[i].line;
      return b;
    });
    if (this.around !== null) {
      const latest = button(t("Latest entries"), () => { this.around = null; this.drawEntries(); }, "chip");
      latest.dataset.call = "latest";
      chips.push(latest);
    }
    box.replaceChildren(...chips);
  }

  // A judge's ruling on an entry (a flagged, disputed or called one): the note's form, its
  // category and the entry filled in, for the judge's name, the ruling and its decision, each
  // asked for up front (a ruling without its decision is refused, LOG-05).
  ruling(on) {
    this.openElse("judge_note", RULING_NEEDS);
    $('#else-fields [name="category"]').value = JSON.stringify("ruling");
    $('#else-fields [name="on"]').value = String(on);
    this.keepDraft();
    this.focusJudge("note");
  }

  // The judge's name to type, or (remembered) the field after it.
  focusJudge(next) {
    const judge = $('#else-fields [name="judge"]');
    (judge.value ? $(`#else-fields [name="${next}"]`) : judge).focus();
  }

  // A what-if from the board before event ``at`` (``POST /duels/{id}/branch``: events #0..#at-1),
  // opened on this page: the same tokens open a branch, so the judge records the line there.
  // Tapped again after a lost answer, it sends the same Idempotency-Key: the service answers the
  // branch that key made, never a second one.
  async branch(at) {
    const key = this.branchKeys.get(at) || requestKey();
    this.branchKeys.set(at, key);
    try {
      const response = await fetch(`/duels/${ID}/branch?lang=${encodeURIComponent(language)}`, {
        method: "POST", headers: { ...HEADERS, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ at: at - 1, title: t("What if before #{n}: {title}", { n: at, title: this.duel.info.title || "" }) }) });
      const answer = visible(await response.json().catch(() => ({})));
      if (!response.ok) { this.error(answer.message_translated || answer.message || answer.error || String(response.status)); return; }
      location.assign(`/record/${answer.id}?${new URLSearchParams({ token: TOKEN, lang: language })}`);
    } catch (error) {
      this.error(t("The what-if needs the network: {why}", { why: visible(String(error.message || error)) }));
    }
  }

  // A judge's rollback to the state before event ``to``: the form of rolled_back, ``to`` filled in,
  // for the judge's name and the reason (MATCH-08: the events stay in the record, reverted).
  rewind(to) {
    this.openElse("rolled_back");
    $('#else-fields [name="to"]').value = String(to);
    this.keepDraft();
    this.focusJudge("reason");
  }

  drawEntries() {
    const list = $("#entries");
    const struck = this.struck();
    const lines = [];
    this.drawCalls();
    // the last entries; on the judge's page, those before a call picked (the play disputed)
    const around = this.around;
    const frames = around === null ? this.duel.frames.slice(-12) : this.duel.frames.slice(Math.max(0, around - 15), around + 3);
    for (const frame of frames) {
      const li = el("li", "entry");
      li.dataset.i = String(frame.i);
      li.append(el("span", "n", `#${frame.i}`), document.createTextNode(" " + frame.line));
      if (struck.has(frame.i)) li.classList.add("struck");
      const flags = this.flags.get(frame.i);
      if (flags) { li.classList.add("flagged"); li.append(el("span", "flag", " " + t("flagged {rules}", { rules: [...new Set(flags)].join(" ") }))); }
      if (judging(this.info.role) && !struck.has(frame.i) && frame.i > 0) {   // the judge's rewind: a rollback
        const rewind = button(t("Rewind to before this"), () => this.rewind(frame.i), "chip");
        rewind.dataset.rewind = String(frame.i);
        const ruling = button(t("Ruling on this"), () => this.ruling(frame.i), "chip");
        ruling.dataset.ruling = String(frame.i);
        const whatIf = button(t("What if: branch before this"), () => this.branch(frame.i), "chip");
        whatIf.dataset.branch = String(frame.i);
        const board = el("a", "chip", t("Board"));                  // the viewer, rewound to it
        board.href = `/view/${ID}?${new URLSearchParams({ token: TOKEN, lang: language })}#e${frame.i}`;
        board.dataset.board = String(frame.i);
        li.append(rewind, ruling, whatIf, board);
      }
      if (frame.i === around) li.classList.add("picked");
      lines.push(li);
    }
    for (const entry of this.queue.entries) {
      const li = el("li", `entry queued ${entry.state}`);
      li.dataset.queue = String(entry.n);
      li.append(el("span", "n", `q${entry.n}`), document.createTextNode(` ${entry.label} (${entry.events.map((e) => kindName(e.kind)).join(", ")})`));
      if (entry.state === "refused") {
        li.append(el("span", "problem", " " + t("not stored: {problem}", { problem: entry.problem })));
        // a turn change that looks entered twice: stored only if this device confirms it
        const chip = (text, what, onClick) => { const b = button(text, onClick, "chip"); b.dataset.entry = what; li.append(b); return b; };
        // not sent again unconfirmed: resent from the head now (made_on), a turn seen late passed as new
        if (entry.confirm) chip(t("Confirm: store it anyway"), "confirm", () => this.resend(entry, true));
        else chip(t("Send again"), "send", () => this.resend(entry, false));
        entry.events.forEach((ev, k) => {
          chip(entry.events.length > 1 ? t("Edit {kind}", { kind: kindName(ev.kind) }) : t("Edit"), "edit", () => this.edit(entry, k)).dataset.k = String(k);
        });
        chip(t("Discard"), "discard", () => { this.queue.drop(entry); this.drawEntries(); this.status(); });
      }
      lines.push(li);
    }
    list.replaceChildren(...lines.reverse());
  }

  error(text) {
    const box = $("#error");
    box.textContent = text;
    box.hidden = !text;
  }

  // -- wiring ---------------------------------------------------------------------------------------

  start() {
    $("#title").textContent = this.duel.info.title || t("Recording");
    const title = this.duel.info.title || t("a duel");
    document.title = t("Recording {title}", { title }) + " \u00b7 ygoreplay";
    if (this.parent) {                           // a what-if: one tap back to the duel it branched from
      $("#parent").textContent = t("Back to the duel");
      $("#parent").href = `/record/${this.parent}?${new URLSearchParams({ token: TOKEN, lang: language })}`;
      $("#parent").hidden = false;
    }
    $("#board").addEventListener("click", (event) => this.tapped(event));
    $("#sheet-close").addEventListener("click", () => this.closeSheet());
    $("#name-input").addEventListener("input", () => this.suggest());
    $("#chainbox").addEventListener("click", (event) => {
      const b = event.target.closest("button[data-move]");
      if (b) this.chainMove(b.dataset.move);
    });
    $("#undo").addEventListener("click", () => this.undo());
    $("#call-button").hidden = !this.calls;
    $("#call-button").addEventListener("click", () => {
      $("#call").hidden = !$("#call").hidden;
      if (!$("#call").hidden) $("#call-reason").focus();
    });
    $("#call").addEventListener("submit", (event) => this.call(event));
    $("#call-reason").addEventListener("input", () => this.keepCall());
    this.restoreCall();
    $("#open-seals").addEventListener("click", () => this.openSeals(this.seals.unopened));
    $("#next-game").addEventListener("click", () => this.endGame());
    $("#else-button").addEventListener("click", () => { this.editing = null; this.openElse(); });
    $("#token-button").addEventListener("click", () => { this.editing = null; this.openElse("token_created"); });
    $("#else").addEventListener("submit", (event) => this.submitElse(event));
    for (const type of ["input", "change"]) $("#else").addEventListener(type, () => this.keepDraft());
    $("#setup").addEventListener("input", () => this.keepSetup());
    this.restoreSetup();
    $("#else-discard").addEventListener("click", () => this.discardElse());
    $("#setup").addEventListener("submit", (event) => this.startDuel(event));
    $("#help-button").addEventListener("click", () => {
      const help = $("#help");
      help.hidden = !help.hidden;
      $("#help-button").setAttribute("aria-expanded", String(!help.hidden));
    });
    document.addEventListener("keydown", (event) => this.key(event));
    window.addEventListener("online", () => { this.connected(true); this.flush(); });
    window.addEventListener("offline", () => this.connected(false));
    setInterval(() => { if (this.queue.waiting.length) this.flush(); }, 3000);
    this.buildLP();
    this.buildChance();
    this.changed();
    this.follow();
    this.loadNames();
    this.loadSchemas();
    this.flush();
  }

  // The start form's fields by id (the first player's radio by its value), to keep as a draft.
  setupFields() { return ["name0", "name1", "deck-size", "extra-size", "hand-size"].map((id) => $(`#${id}`)); }

  keepSetup() {
    const values = Object.fromEntries(this.setupFields().map((input) => [input.id, input.value]));
    values.first = document.querySelector("input[name=first]:checked").value;
    this.setupDraft.keep(values);
  }

  restoreSetup() {
    const kept = this.setupDraft.get();
    if (!kept) return;
    if (this.duel.length) { this.setupDraft.drop(); return; }     // started meanwhile (another device)
    for (const input of this.setupFields()) if (typeof kept[input.id] === "string") input.value = kept[input.id];
    const first = document.querySelector(`input[name=first][value="${kept.first === "1" ? "1" : "0"}"]`);
    if (first) first.checked = true;
  }

  startDuel(event) {
    event.preventDefault();
    this.setupDraft.drop();
    const names = [$("#name0").value.trim(), $("#name1").value.trim()];
    const first = Number(document.querySelector("input[name=first]:checked").value);
    const deck = Number($("#deck-size").value), extra = Number($("#extra-size").value), hand = Number($("#hand-size").value);
    const started = { kind: "duel_started", first_player: first, chosen_by: first, players: names };
    if (this.info.mode === "witnessed") started.witnessed = true;
    const events = [started];
    for (const p of [0, 1]) {
      const registered = { kind: "deck_registered", player: p, main: Array(deck).fill(0) };
      if (extra) registered.extra = Array(extra).fill(0);
      events.push(registered);
    }
    if (hand) for (const p of [0, 1]) events.push({ kind: "cards_drawn", player: p, count: hand });
    $("#setup").hidden = true;
    this.enter(events, t("Start"));
  }

  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest && event.target.closest("#lp") && this.lpKey(event)) { event.preventDefault(); return; }
    if (event.target.matches && event.target.matches("input, select, textarea")) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const phase = PHASES.find((p) => p[2] === event.key);
    const keys = {
      n: () => this.nextTurn(), c: () => this.drawCard(), p: () => this.chainMove("pass"), r: () => this.chainMove("resolve"),
      u: () => this.undo(), l: () => $("#lp-keys button").focus(), Escape: () => this.closeSheet(),
      "/": () => { if (this.selected) $("#name-input").focus(); }, "?": () => $("#help-button").click(),
    };
    const action = phase ? () => this.enter([{ kind: "phase_entered", phase: phase[0] }], t(phase[3])) : keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  follow() {
    const query = new URLSearchParams({ from: String(this.duel.length), format: "frames", lang: language });
    if (TOKEN) query.set("token", TOKEN);
    const stream = this.stream = new EventSource(`/duels/${ID}/follow?${query}`);
    let batch = [];
    const flush = () => { const frames = batch; batch = []; this.duel.add(frames); };
    stream.addEventListener("open", () => { this.connected(true); this.flush(); });
    stream.addEventListener("error", () => { if (!navigator.onLine) this.connected(false); });
    stream.addEventListener("event", (message) => {
      if (!batch.length) requestAnimationFrame(flush);
      batch.push(JSON.parse(message.data));
    });
    stream.addEventListener("end", () => { flush(); stream.close(); });
    this.duel.onGap = async (from) => {
      const response = await fetch(`/duels/${ID}/frames?from=${from}&lang=${language}`, { headers: HEADERS, cache: "no-store" });
      if (response.ok) this.duel.add((await response.json()).frames || []);
    };
  }
}

// -- a round's table link: /record/match/{id} -------------------------------------------------------
// The service sends a link to a match with a duel being played straight to that duel's page (the
// match's token opens it); otherwise it serves this page, which starts the match's next duel
// through the match API and goes to it, with who goes first and the players' names for its setup.

async function nextDuel(matchId) {
  const response = await fetch(`/matches/${matchId}/state`, { headers: HEADERS, cache: "no-store" });
  const match = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(match.error || t("the service answered {status}", { status: response.status }));
  const games = match.games || [];
  const players = (match.players || [t("Player 0"), t("Player 1")]).map((p) => visible(p));
  const goTo = (duel, first) => {
    const query = new URLSearchParams({ token: TOKEN || "", first: String(first), p0: players[0], p1: players[1], match: matchId });
    location.replace(`/record/${duel}?${query}`);
  };
  const playing = games.find((g) => !g.ended && g.duel);
  if (playing) { goTo(playing.duel, playing.first_player); return; }
  const last = games[games.length - 1];
  const box = el("form", "setup");
  box.id = "next-duel";
  box.append(el("h2", null, (match.title ? visible(match.title) + ": " : "") + t("duel {n}", { n: games.length + 1 })));
  const chooser = el("select");
  chooser.id = "chosen-by";
  players.forEach((name, i) => { const o = el("option", null, name); o.value = String(i); chooser.append(o); });
  chooser.value = last && (last.winner === 0 || last.winner === 1) ? String(1 - last.winner) : "0";
  const label = el("label", null, t("Who chose to go first or second"));
  label.append(chooser);
  box.append(label);
  const refusal = el("p", "error");
  refusal.hidden = true;
  players.forEach((name, i) => {
    const b = button(t("{player} goes first", { player: name }), async () => {
      const started = await fetch(`/matches/${matchId}/games?lang=${encodeURIComponent(language)}`, {
        method: "POST", headers: { ...HEADERS, "Content-Type": "application/json" },
        body: JSON.stringify({ first_player: i, chosen_by: Number(chooser.value) }) });
      const answer = await started.json().catch(() => ({}));
      if (started.ok) { goTo(answer.duel.id, i); return; }
      const why = answer.rule ? `${answer.rule}: ${said(answer)}` : answer.error;    // a match rule's refusal names it
      refusal.textContent = visible(why || t("the service answered {status}", { status: started.status }));
      refusal.hidden = false;
    }, "big");
    b.dataset.first = String(i);
    box.append(b);
  });
  box.append(refusal);
  $("#setup").before(box);
  document.body.dataset.ready = "true";
}

async function main() {
  await ready;
  if (/^\/record\/match\/[0-9a-f]{12}$/.test(location.pathname)) {
    try { await nextDuel(ID); } catch (error) {
      $("#error").textContent = t("This match cannot be recorded here: {why}", { why: visible(error.message) });
      $("#error").hidden = false;
    }
    return;
  }
  let data;
  try {
    const response = await fetch(`/duels/${ID}/frames?lang=${language}`, { headers: HEADERS, cache: "no-store" });
    data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || t("the service answered {status}", { status: response.status }));
  } catch (error) {
    const box = $("#error");
    box.textContent = t("This duel cannot be recorded here: {why}", { why: visible(error.message) });
    box.hidden = false;
    return;
  }
  const recorder = new Recorder(data);
  recorder.start();
  window.ygoreplay = { recorder, duel: recorder.duel };
  try { await recorder.actions(null); } catch (error) { /* shown when the rules answer */ }
  $("#setup").hidden = recorder.duel.length > 0 || recorder.queue.entries.length > 0;
  // a match's duel opened from its table link: the players and who goes first are the match's
  for (const i of [0, 1]) if (params.get(`p${i}`) && !$(`#name${i}`).value) $(`#name${i}`).value = params.get(`p${i}`);
  const first = document.querySelector(`input[name=first][value="${params.get("first")}"]`);
  if (first) first.checked = true;
  recorder.status();
  document.body.dataset.ready = "true";
}

main();
