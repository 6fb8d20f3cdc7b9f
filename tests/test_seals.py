"""Players who each record their own side: seals of their own hidden cards, opened later.

A two-device recording of a sample duel is derived here as two players' devices would write it:
the public record (what a spectator saw, ``views.recorded_by``), plus, after every event that gives
a player a hidden card of their own (a card the player's view learns and the spectator's does
not), that player's ``cards_sealed`` of it, and at the end each player's ``cards_opened`` of
every card sealed and of the rest of their Deck. It folds clean, opens to the same judge record
as the full sample (every board, every event), gives nothing unrevealed to any other view, and
``verify`` reports its seals and fails on an opening that does not match.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from duel import CARDS
from ygoreplay import seals
from ygoreplay.cli import main
from ygoreplay.events import CardsOpened, CardsSealed, Event, Opening, Openings, Seals, from_dict
from ygoreplay.exchange import make_replay
from ygoreplay.jsonl import read_events, write_events
from ygoreplay.openings import opened, seal_report
from ygoreplay.replay_file import dumps, sign
from ygoreplay.rules import History, RuleViolation, audit
from ygoreplay.signing import OrganiserKey
from ygoreplay.views import Redactor, public_board, recorded_by, redact

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ("won-by-damage", "every-summon-method")


def two_devices(events: list[Event]) -> tuple[list[Event], dict[str, tuple[int, str]]]:
    """The record two players' devices and a public recorder write of a full record, and each
    sealed card's (passcode, nonce), as the devices keep them."""
    public = recorded_by(events, CARDS, "spectator")
    players = [Redactor(CARDS, f"p{p}", b"", naming="record") for p in (0, 1)]
    spectator = Redactor(CARDS, "spectator", b"", naming="record")
    kept: dict[str, tuple[int, str]] = {}
    out: list[Event] = []
    for event, public_event in zip(events, public):
        steps = [redactor.feed(event) for redactor in players]
        everyone = {card_id for _, card_id, _ in spectator.feed(event).disclosures}
        out.append(public_event)
        for player, step in enumerate(steps):
            mine = {}
            for _, card_id, code in step.disclosures:
                if card_id not in everyone and card_id not in kept:
                    digest, nonce = seals.seal(code)
                    kept[card_id] = (code, nonce)
                    mine[card_id] = digest
            if mine:
                out.append(CardsSealed(player=player, seals=Seals(sorted(mine.items()))))
    full = History(CARDS)
    full.extend(events)
    sealed = History(CARDS, audit=True)
    sealed.extend(out)
    for player in (0, 1):
        openings = [Opening(card_id, code, nonce) for card_id, (code, nonce) in kept.items()
                    if sealed.state.cards[card_id].seal[0] == player]
        openings += [Opening(card.id, full.state.cards[card.id].code)
                     for card in sealed.state.cards.values()
                     if card.owner == player and card.code == 0 and card.seal is None]
        out.append(CardsOpened(player=player, cards=Openings(sorted(openings))))
    return out, kept


@pytest.fixture(scope="module", params=SAMPLES)
def sample(request) -> tuple[str, list[Event], list[Event], dict]:
    events = read_events(ROOT / "replays" / f"{request.param}.jsonl")
    sealed, kept = two_devices(events)
    return request.param, events, sealed, kept


# -- seal and open ------------------------------------------------------------------------------

def test_a_seal_opens_with_its_passcode_and_nonce_only():
    digest, nonce = seals.seal(46986414)
    assert seals.is_digest(digest) and len(bytes.fromhex(nonce)) >= 16
    assert seals.opens(digest, 46986414, nonce)
    assert not seals.opens(digest, 89631139, nonce)                  # another card
    other = f"{int(nonce, 16) ^ 1:0{len(nonce)}x}"
    assert not seals.opens(digest, 46986414, other)                  # another nonce
    assert not seals.opens(digest, 46986414, "not hex")


def test_a_nonce_is_never_reused_and_a_seal_never_repeats():
    made = [seals.seal(46986414) for _ in range(200)]
    assert len({nonce for _, nonce in made}) == 200
    assert len({digest for digest, _ in made}) == 200                # the same card, 200 different seals


def test_the_seal_command_prints_a_fresh_seal_as_json():
    runner = CliRunner()
    first = json.loads(runner.invoke(main, ["seal", "46986414"]).stdout)
    second = json.loads(runner.invoke(main, ["seal", "46986414"]).stdout)
    assert seals.opens(first["seal"], 46986414, first["nonce"]) and first["code"] == 46986414
    assert first["nonce"] != second["nonce"]
    bad = runner.invoke(main, ["seal", "0"])
    assert bad.exit_code != 0 and "passcode" in bad.output and "Traceback" not in bad.output


def test_seal_events_round_trip_and_bad_ones_are_named():
    digest, nonce = seals.seal(46986414)
    sealed = from_dict({"kind": "cards_sealed", "player": 0, "seals": {"p0.m3": digest}})
    assert sealed.to_dict() == {"kind": "cards_sealed", "player": 0, "seals": {"p0.m3": digest}}
    wire = {"kind": "cards_opened", "player": 0, "cards": {"p0.m3": {"code": 46986414, "nonce": nonce},
                                                            "p0.m9": {"code": 89631139}}}
    assert from_dict(wire).to_dict() == wire
    with pytest.raises(ValueError, match=r"cards_sealed.seals\['p0.m3'\]: a seal is 'sha256:'"):
        from_dict({"kind": "cards_sealed", "player": 0, "seals": {"p0.m3": "md5:00"}})
    with pytest.raises(ValueError, match=r"cards_opened.cards\['p0.m3'\].nonce"):
        from_dict({"kind": "cards_opened", "player": 0, "cards": {"p0.m3": {"code": 1, "nonce": "abc"}}})


# -- the fold -----------------------------------------------------------------------------------

def test_log_11_a_two_device_recording_folds_clean(sample):
    """Every seal is its holder's, every opening opens its seal (LOG-11) and agrees with what the
    public record showed of the card (LOG-10)."""
    name, _events, sealed, kept = sample
    report = audit(sealed, CARDS)
    assert report.violations == [], name
    assert kept, "every sample deals hidden cards"
    facts = seal_report(sealed, CARDS)
    assert facts.ok and facts.unopened == {} and facts.sealed == facts.opened == len(kept)


def test_a_two_device_duel_opens_to_the_same_judge_record_as_the_full_sample(sample):
    name, events, sealed, _kept = sample
    judge = opened(sealed, CARDS)
    assert len(judge) == len(events)
    assert audit(judge, CARDS).violations == []
    full, mine = History(CARDS), History(CARDS)
    for index, (event, ours) in enumerate(zip(events, judge)):
        full.append(event)
        mine.append(ours)
        assert public_board(mine.state, "judge") == public_board(full.state, "judge"), (name, index)
        assert {c.id: (c.code, c.zone) for c in mine.state.cards.values()} == \
               {c.id: (c.code, c.zone) for c in full.state.cards.values()}, (name, index)


def _with_opening(sealed: list[Event], change) -> list[Event]:
    """The record with player 0's opening changed."""
    index = next(i for i, e in enumerate(sealed) if isinstance(e, CardsOpened) and e.player == 0)
    opening = sealed[index]
    return [*sealed[:index], dataclasses.replace(opening, cards=Openings(sorted(change(list(opening.cards))))),
            *sealed[index + 1:]]


def _a_sealed(openings: list[Opening]) -> int:
    return next(i for i, o in enumerate(openings) if o.nonce)


def test_log_11_a_wrong_nonce_or_a_wrong_card_does_not_open_its_seal(sample):
    _name, _events, sealed, _kept = sample

    def wrong_card(openings):
        i = _a_sealed(openings)
        other = next(o.code for o in openings if o.code != openings[i].code)
        openings[i] = openings[i]._replace(code=other)
        return openings

    def wrong_nonce(openings):
        i = _a_sealed(openings)
        openings[i] = openings[i]._replace(nonce=seals.seal(openings[i].code)[1])
        return openings

    def no_nonce(openings):
        i = _a_sealed(openings)
        openings[i] = openings[i]._replace(nonce="")
        return openings

    for change, words in ((wrong_card, "does not open its seal"), (wrong_nonce, "does not open its seal"),
                          (no_nonce, "needs the nonce")):
        bad = _with_opening(sealed, change)
        with pytest.raises(RuleViolation) as refused:
            History(CARDS).extend(bad)
        assert refused.value.rule == "LOG-11" and words in refused.value.message
        assert not seal_report(bad, CARDS).ok
        with pytest.raises(ValueError, match="LOG-11"):
            opened(bad, CARDS)


def test_log_11_log_04_a_card_is_sealed_by_the_player_who_holds_it_and_once():
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    public = recorded_by(events, CARDS, "spectator")
    start = public[:5]                                   # decks registered, both opening hands drawn
    digest, _ = seals.seal(46986414)
    with pytest.raises(RuleViolation) as theirs:
        History(CARDS).extend([*start, CardsSealed(player=1, seals=Seals([("p0.m1", digest)]))])
    assert theirs.value.rule == "LOG-11" and "player 0's hand" in theirs.value.message
    twice = CardsSealed(player=0, seals=Seals([("p0.m1", digest)]))
    with pytest.raises(RuleViolation) as again:
        History(CARDS).extend([*start, twice, twice])
    assert again.value.rule == "LOG-04"


def test_log_10_an_opening_agrees_with_what_was_shown(sample):
    """A card shown publicly before it is opened must be opened as that card (LOG-10)."""
    _name, _events, sealed, kept = sample
    state = History(CARDS).extend(sealed[:-2])
    shown = next(cid for cid in kept if state.cards[cid].code)   # sealed, then played face-up
    code, nonce = kept[shown]
    other = next(c for c, _ in kept.values() if c != code)
    lie = CardsOpened(player=state.cards[shown].owner, cards=Openings([Opening(shown, other)]))
    with pytest.raises(RuleViolation) as refused:
        History(CARDS).extend([*sealed[:-2], lie])
    assert refused.value.rule == "LOG-11"      # a sealed card opened without its nonce
    unsealed = [e for e in sealed[:-2] if not isinstance(e, CardsSealed)]
    with pytest.raises(RuleViolation) as shown_as:
        History(CARDS).extend([*unsealed, lie])
    assert shown_as.value.rule == "LOG-10"


def test_the_judge_record_waits_for_both_players_to_open(sample):
    _name, _events, sealed, _kept = sample
    with pytest.raises(ValueError, match="not opened yet.*player 1 opens"):
        opened(sealed[:-1], CARDS)
    report = seal_report(sealed[:-1], CARDS)
    assert report.ok and set(report.unopened.values()) == {1}


# -- who sees what ------------------------------------------------------------------------------

def _unrevealed(events: list[Event], sealed: list[Event], view: str) -> set[int]:
    """Passcodes the view of the full record never learns, that a sealed card was opened as."""
    learned = {code for _, _, code in redact(events, CARDS, view, b"k" * 32).disclosures}
    return {o.code for e in sealed if isinstance(e, CardsOpened) for o in e.cards} - learned


@pytest.mark.parametrize("view", ["spectator", "p0", "p1"])
def test_no_view_carries_an_unrevealed_card_a_seal_or_a_nonce(sample, view):
    _name, events, sealed, kept = sample
    redaction = redact(sealed, CARDS, view, b"k" * 32)
    text = json.dumps([e.to_dict() for e in redaction.events]) + json.dumps(redaction.disclosures)
    nonces = {nonce for _, nonce in kept.values()}
    assert not any(nonce in text for nonce in nonces)
    digests = {digest for e in sealed if isinstance(e, CardsSealed) for _, digest in e.seals}
    assert not any(digest in text for digest in digests)
    hidden = _unrevealed(events, sealed, view)
    assert hidden, "every sample has cards a view never sees"
    carried = {code for _, _, code in redaction.disclosures}
    assert not carried & hidden
    assert all(not e.seals for e in redaction.events if isinstance(e, CardsSealed))
    assert all(not e.cards for e in redaction.events if isinstance(e, CardsOpened))


def test_a_view_of_a_sealed_duel_replays_as_the_views_of_the_full_record(sample):
    """Once opened, each player sees their own hand as in the full record's view; a spectator
    sees what they saw then, and nothing more at the end."""
    _name, events, sealed, _kept = sample
    for view in ("spectator", "p0", "p1"):
        ours = redact(sealed, CARDS, view, b"k" * 32)
        theirs = redact(events, CARDS, view, b"k" * 32)
        assert {c for _, _, c in ours.disclosures} <= {c for _, _, c in theirs.disclosures}


# -- verify -------------------------------------------------------------------------------------

def _signed_file(tmp_path: Path, events: list[Event], name: str) -> Path:
    """A judge .ygr of ``events``, signed with this session's organiser key as an export is."""
    replay = make_replay(events, ["2026-01-01T00:00:00Z"] * len(events), CARDS, "judge", b"r" * 32, b"s" * 32)
    path = tmp_path / f"{name}.ygr"
    path.write_bytes(sign(dumps(replay), OrganiserKey.load_or_create()[0]))
    return path


def _wrong_card(openings: list[Opening]) -> list[Opening]:
    i = _a_sealed(openings)
    openings[i] = openings[i]._replace(code=next(o.code for o in openings if o.code != openings[i].code))
    return openings


def test_verify_reports_the_seals_of_a_stored_duel_and_of_its_file(sample, tmp_path):
    name, _events, sealed, kept = sample
    runner = CliRunner()
    env = {"YGOREPLAY_STORE": str(tmp_path / "store.db")}
    path = tmp_path / f"{name}.jsonl"
    write_events(path, sealed)
    recorded = runner.invoke(main, ["record", str(path), "--title", name, "--json"], env=env)
    assert recorded.exit_code == 0, recorded.output
    duel_id = json.loads(recorded.stdout)["id"]
    out = runner.invoke(main, ["verify", duel_id, "--json"], env=env)
    data = json.loads(out.stdout)
    assert out.exit_code == 0 and data["ok"], out.output
    assert data["seals"] == {"sealed": len(kept), "opened": len(kept), "unopened": {}, "bad": []}
    text = runner.invoke(main, ["verify", duel_id], env=env).output
    assert f"seals: {len(kept)} card(s) sealed, {len(kept)} opened" in text
    exported = tmp_path / "judge.ygr"
    assert runner.invoke(main, ["export", duel_id, "-o", str(exported)], env=env).exit_code == 0
    checked = runner.invoke(main, ["verify", str(exported), "--json"], env=env)
    assert checked.exit_code == 0 and json.loads(checked.stdout)["seals"]["bad"] == [], checked.output
    waiting = _signed_file(tmp_path, sealed[:-1], "waiting")
    half = json.loads(runner.invoke(main, ["verify", str(waiting), "--json"], env=env).stdout)
    assert half["ok"] and set(half["seals"]["unopened"].values()) == {1}   # not opened yet is no fault


def test_verify_fails_on_an_opening_that_does_not_match_its_seal(sample, tmp_path):
    """A store refuses the bad opening (LOG-11); a signed file holding one fails verify."""
    name, _events, sealed, _kept = sample
    runner = CliRunner()
    env = {"YGOREPLAY_STORE": str(tmp_path / "store.db")}
    bad = _with_opening(sealed, _wrong_card)
    path = tmp_path / "bad.jsonl"
    write_events(path, bad)
    refused = runner.invoke(main, ["record", str(path), "--title", "bad"], env=env)
    assert refused.exit_code != 0 and "LOG-11" in refused.output
    signed = _signed_file(tmp_path, bad, name)
    out = runner.invoke(main, ["verify", str(signed), "--json"], env=env)
    data = json.loads(out.stdout)
    assert out.exit_code != 0 and not data["ok"] and data["intact"]
    assert "LOG-11" in [v["rule"] for v in data["seals"]["bad"]]
    text = runner.invoke(main, ["verify", str(signed)], env=env).output
    assert "does not open its seal" in text and "NOT ok: an opened card does not match what was sealed" in text


def test_the_opened_command_writes_the_judge_record_once_both_players_opened(sample, tmp_path):
    name, events, sealed, _kept = sample
    runner = CliRunner()
    path = tmp_path / f"{name}.jsonl"
    write_events(path, sealed)
    out = runner.invoke(main, ["opened", str(path)])
    assert out.exit_code == 0, out.output
    judge = [from_dict(json.loads(line)) for line in out.stdout.splitlines()]
    assert judge == opened(sealed, CARDS) and len(judge) == len(events)
    checked = tmp_path / "judge.jsonl"
    assert runner.invoke(main, ["opened", str(path), "-o", str(checked)]).exit_code == 0
    legal = runner.invoke(main, ["check", str(checked), "--json"])
    assert legal.exit_code == 0 and json.loads(legal.stdout)["violations"] == []
    write_events(path, sealed[:-1])                 # player 1 has not opened yet
    waiting = runner.invoke(main, ["opened", str(path)])
    assert waiting.exit_code == 2 and "not opened yet" in waiting.output and "Traceback" not in waiting.output


# -- the service ----------------------------------------------------------------------------------

SERVICE_ADMIN = "seals-organiser-token-0123456789abcdef0123456"


def test_the_service_holds_the_seals_and_gives_no_view_a_hidden_card(tmp_path):
    """Over HTTP: the recorder posts the two-device record; a spectator's or player's events,
    frames and board never hold a nonce, a seal or a card the view did not see, and verify tells
    the judge what was sealed and opened, anyone else how many."""
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.store import Store

    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    sealed, kept = two_devices(events)
    store = Store(str(tmp_path / "service.sqlite"), concurrent=True)
    with TestClient(create_app(store, digest(SERVICE_ADMIN))) as client:
        duel = client.post("/duels", json={"title": "sealed", "visibility": "public", "mode": "witnessed"},
                           headers={"Authorization": f"Bearer {SERVICE_ADMIN}"}).json()
        sealed = [dataclasses.replace(sealed[0], witnessed=True), *sealed[1:]]   # players write: at a table
        tokens, d = duel["tokens"], duel["id"]

        def get(path: str, role: str):
            return client.get(f"/duels/{d}/{path}", headers={"Authorization": f"Bearer {tokens[role]}"})

        def post(role: str, batch: list) -> object:
            return client.post(f"/duels/{d}/events", json=[e.to_dict() for e in batch],
                               headers={"Authorization": f"Bearer {tokens[role]}"})

        def writer(event) -> str:                      # each device writes its own seals
            return f"p{event.player}" if isinstance(event, CardsSealed) else "recorder"

        first_seal = next(i for i, e in enumerate(sealed) if isinstance(e, CardsSealed))
        other = f"p{1 - sealed[first_seal].player}"
        assert post(writer(sealed[0]), sealed[:first_seal]).status_code == 200
        for role in ("recorder", other):               # nobody seals another's cards
            refused = post(role, [sealed[first_seal]])
            assert refused.status_code == 403, (role, refused.text)
        at = first_seal
        while at < len(sealed):
            end = at
            while end < len(sealed) and writer(sealed[end]) == writer(sealed[at]):
                end += 1
            posted = post(writer(sealed[at]), sealed[at:end])
            assert posted.status_code == 200, posted.text
            at = end
        judge = get("verify", "judge").json()
        assert judge["ok"] and judge["seals"]["sealed"] == judge["seals"]["opened"] == len(kept)
        secrets_ = {nonce for _, nonce in kept.values()} | {
            digest_ for e in sealed if isinstance(e, CardsSealed) for _, digest_ in e.seals}
        opened_codes = [json.loads(line) for line in get("events", "judge").text.splitlines()]
        assert _numbers(opened_codes) & _unrevealed(events, sealed, "spectator")   # the judge's has them
        for role in ("spectator", "p0", "p1"):
            verdict = get("verify", role).json()
            assert verdict["ok"] and verdict["seals"] == {"sealed": len(kept), "opened": len(kept),
                                                         "unopened": 0, "bad": 0}
            hidden = _unrevealed(events, sealed, role)
            for path in ("events", "frames", "state"):
                body = get(path, role).text
                assert not any(secret in body for secret in secrets_), (role, path)
                values = [json.loads(line) for line in body.splitlines() if line.strip()]
                assert values and not _numbers(values) & hidden, (role, path)
    store.close()


def _numbers(value) -> set[int]:
    """Every integer anywhere in a JSON value."""
    if isinstance(value, dict):
        return set().union(*map(_numbers, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_numbers, value)) if value else set()
    return {value} if isinstance(value, int) and not isinstance(value, bool) else set()
