"""A stored duel is judged with the effect facts it was recorded with (issue 24): they are stored
with its card facts, signed with them, carried by its ``.ygr`` files, and every later fold uses
them, never the scripts installed since. BATTLE-09 is the rule they decide here: a Normal Trap
whose script has no EFFECT_FLAG_DAMAGE_STEP may not be activated in the Damage Step."""
from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner
from test_store import _set_state, _state, execute, fresh_url, store_url  # noqa: F401  (store_url: fixture)

from ygoreplay import card_install
from ygoreplay.application import Records
from ygoreplay.card_sources import card_lookup
from ygoreplay.cli import main
from ygoreplay.errors import VerificationError
from ygoreplay.events import from_dict
from ygoreplay.exchange import verify_against
from ygoreplay.files import installed_path
from ygoreplay.replay_file import dumps, loads
from ygoreplay.rules import RuleViolation
from ygoreplay.source import open_source
from ygoreplay.store import Head, Store

WALL = 1002
#: A Normal Trap that answers an attack declaration, without and with EFFECT_FLAG_DAMAGE_STEP.
SCRIPT = """local s,id=GetID()
function s.initial_effect(c)
	local e1=Effect.CreateEffect(c)
	e1:SetCategory(CATEGORY_DESTROY)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetCode(EVENT_ATTACK_ANNOUNCE)
{flag}	c:RegisterEffect(e1)
end
"""
NOT_IN_DAMAGE_STEP, IN_DAMAGE_STEP = SCRIPT.format(flag=""), SCRIPT.format(flag="\te1:SetProperty(EFFECT_FLAG_DAMAGE_STEP)\n")
VORSE, OX = 14898066, 5053103
EVENTS = [{"kind": "position_set_up", "turn": 2, "turn_player": 0, "phase": "battle", "step": "battle",
           "sides": [{"deck": [VORSE] * 10, "mzone": [{"code": VORSE, "id": "vorse", "position": "attack"}]},
                     {"deck": [VORSE] * 10, "mzone": [{"code": OX, "id": "ox", "position": "attack"}],
                      "szone": [{"code": WALL, "id": "wall", "position": "set"}]}]},
          {"kind": "attack_declared", "player": 0, "attacker": "vorse", "target": "ox"},
          {"kind": "step_entered", "step": "damage"}]
ACTIVATION = {"kind": "activated", "player": 1, "card": "wall"}


def events(*wire: dict) -> list:
    return [from_dict(e, "test") for e in wire]


@pytest.fixture
def install(tmp_path, monkeypatch):
    """Installs a card database (as ``cards update --scripts`` does) whose Trap has the script
    given; returns the card lookup a command or the service opens then. The test's own data
    folder, so no other test sees it."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    installed_path().parent.mkdir(parents=True)
    card_install.write_cdb(installed_path(), [card_install.Row(WALL, 0, 0x4, 0, 0, 0, 0, 0, "Test Wall")],
                           {"cards": "1"})
    scripts = tmp_path / "script"
    scripts.mkdir()

    def installer(script: str):
        (scripts / f"c{WALL}.lua").write_text(script)
        card_install.add_scripts(scripts)
        return card_lookup(environment={}, installs=())
    return installer


def flags(cards, code: int = WALL) -> list[tuple[str, ...]]:
    return [fact.properties for fact in cards.effects(code)]


def test_the_application_records_with_the_effect_facts_and_keeps_judging_with_them(install, store_url, tmp_path):
    """Every fold of a stored duel uses the effect facts stored with it: an append, the audit,
    the board, a .ygr export imported elsewhere. Changing the installed scripts changes new
    duels only."""
    with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as store:
        records = Records(store)
        done = records.record(events(*EVENTS, ACTIVATION), "no damage step")
        assert (done.stored, done.violation.rule) == (3, "BATTLE-09")
        strict = done.id
        with pytest.raises(RuleViolation, match="BATTLE-09"):
            records.append(strict, events(ACTIVATION))
        assert flags(store.load(strict).cards) == [()]
    with Store(store_url, install(IN_DAMAGE_STEP)) as store:     # the scripts change: the stored duel does not
        records = Records(store)
        with pytest.raises(RuleViolation, match="BATTLE-09"):
            records.append(strict, events(ACTIVATION))
        allowed = records.record(events(*EVENTS, ACTIVATION), "damage step")
        assert (allowed.stored, allowed.violation) == (4, None)
        judge_file = records.export(allowed.id)
        strict_file = records.export(strict)
    with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as store:
        records = Records(store)
        assert store.verify(allowed.id).ok and store.verify(strict).ok
        report = open_source(allowed.id, store, card_lookup(environment={}, installs=())).audit()
        assert report.violations == [] and store.state_at(allowed.id).chain, "the activation stands"
        assert flags(store.load(allowed.id).cards) == [("damage_step",)]
        assert flags(store.load(records.branch(allowed.id, 2)).cards) == [("damage_step",)]
        records.append(allowed.id, events({"kind": "judge_note", "judge": "J", "note": "checked"}))
    # .ygr out and in: the file carries them, the other store keeps them, whatever it has installed
    for replay, expected in ((judge_file, [("damage_step",)]), (strict_file, [()])):
        again = loads(dumps(replay))
        assert flags(again.cards) == expected
        with fresh_url("sqlite", tmp_path / f"other-{len(expected[0])}.sqlite") as other_url, \
                Store(other_url, install(NOT_IN_DAMAGE_STEP if expected == [("damage_step",)] else IN_DAMAGE_STEP)
                      ) as other:
            imported = Records(other).import_replay(again, None, [], unsigned=True)
            assert imported.violations == [] and flags(other.load(imported.id).cards) == expected
            if expected == [()]:
                with pytest.raises(RuleViolation, match="BATTLE-09"):
                    Records(other).append(imported.id, events(ACTIVATION))
            else:
                assert open_source(imported.id, other, card_lookup(environment={}, installs=())).audit().violations == []
    # a view carries the effect facts of the cards it may know, and still proves against its record
    with Store(store_url) as store:
        judge, view = Records(store).export(allowed.id), Records(store).export(allowed.id, "p1")
        assert flags(view.cards) == [("damage_step",)] and verify_against(view, judge) == []
        assert verify_against(Records(store).export(allowed.id, "p0"), judge) == []


def test_a_card_named_only_when_revealed_is_stored_with_its_effect_facts(install, store_url):
    """A card the duel first names in an append (a Set card shown when it is activated) gets the
    effect facts installed then, stored and signed with its card facts, and judged with them."""
    setup = json.loads(json.dumps(EVENTS[0]))
    setup["sides"][1]["szone"] = [{"code": 0, "id": "wall", "position": "set"}]
    with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as store:
        duel = Records(store).record(events(setup, *EVENTS[1:]), "later").id
        assert WALL not in store.load(duel).cards
        with pytest.raises(RuleViolation, match="BATTLE-09"):
            Records(store).append(duel, events({**ACTIVATION, "shows": {"wall": WALL}}))
        Records(store).append(duel, events({"kind": "judge_note", "judge": "J", "note": "names the wall",
                                            "shows": {"wall": WALL}}))
        assert flags(store.load(duel).cards) == [()] and store.verify(duel).ok
    with Store(store_url, install(IN_DAMAGE_STEP)) as store:
        with pytest.raises(RuleViolation, match="BATTLE-09"):
            Records(store).append(duel, events(ACTIVATION))


def test_altered_effect_facts_fail_verify_and_refuse_an_append(install, store_url):
    with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as store:
        duel = Records(store).record(events(*EVENTS), "tampered").id
    original = _state(store_url, f"{duel}/cards", 3)
    record = msgpack.unpackb(original)
    allowed = {**record, "effects": {**record["effects"], "cards": [
        [WALL, [[row[0], row[1], "damage_step", *row[3:]] for row in record["effects"]["cards"][0][1]]]]}}
    stripped = {"cards": record["cards"]}
    for altered in (allowed, stripped):
        _set_state(store_url, f"{duel}/cards", 3, msgpack.packb(altered))
        with Store(store_url) as reader:
            result = reader.verify(duel)
            assert not result.ok and "effect facts" in result.problem, result
        with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as writer:
            with pytest.raises(VerificationError, match="effect facts"):
                writer.append(duel, events(ACTIVATION))
            with pytest.raises(VerificationError, match="effect facts"):
                Records(writer).export(duel)           # nothing leaves the store from it
    _set_state(store_url, f"{duel}/cards", 3, original)
    with Store(store_url) as reader:
        assert reader.verify(duel).ok


def test_a_duel_stored_before_effect_facts_loads_folds_and_verifies_as_before(install, store_url, tmp_path):
    """A duel recorded without effect facts (every duel stored before them) has card records and
    anchors of the old shape, signed as before; installing scripts later changes nothing of it:
    its Trap is still judged without them (undecided, so allowed), and it verifies. Its .ygr has
    no ``effects`` and reads as before."""
    with Store(store_url, card_lookup(environment={}, installs=())) as store:
        old = Records(store).record(events(*EVENTS), "old").id
    record = msgpack.unpackb(_state(store_url, f"{old}/cards", 3))
    anchor = msgpack.unpackb(_state(store_url, f"{old}/head", 3))
    assert set(record) == {"cards"} and "effects" not in anchor
    head = Head.from_dict(anchor)
    assert head.effects is None and head.message(old) == b"ygoreplay/head/2\0" + msgpack.packb(
        [old, head.count, head.hash, head.header, head.cards, head.status])
    with Store(store_url, install(NOT_IN_DAMAGE_STEP)) as store:
        assert store.verify(old).ok
        assert Records(store).append(old, events(ACTIVATION)).events == 4     # no facts stored: undecided
        assert store.verify(old).ok and store.load(old).cards.effects(WALL) == ()
        file = dumps(Records(store).export(old))
    body = loads(file)
    assert body.cards.effects(WALL) == ()
    rows = execute(store_url, "SELECT state FROM {t} WHERE originator_id = ?", (f"{old}/cards",))
    assert all("effects" not in msgpack.unpackb(bytes(row[0])) for row in rows)


def test_the_command_line_records_with_the_installed_effect_facts(install, tmp_path):
    """``record`` and ``append`` store the installed scripts' facts; the stored duel keeps them."""
    install(NOT_IN_DAMAGE_STEP)
    store = str(tmp_path / "cli.sqlite")
    duel_file, activation = tmp_path / "duel.jsonl", tmp_path / "activation.jsonl"
    duel_file.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    activation.write_text(json.dumps(ACTIVATION) + "\n")
    runner = CliRunner()
    recorded = runner.invoke(main, ["record", str(duel_file), "--store", store])
    assert recorded.exit_code == 0, recorded.output
    duel = recorded.stdout.strip()
    install(IN_DAMAGE_STEP)
    refused = runner.invoke(main, ["append", duel, str(activation), "--store", store])
    assert refused.exit_code == 1 and "BATTLE-09" in refused.output, refused.output


SERVICE_ADMIN = "stored-effects-organiser-token-0123456789abcdef"


def test_the_service_refuses_what_the_stored_effect_facts_forbid(install, store_url, tmp_path):
    """Through HTTP: the duel's Trap may not be activated in the Damage Step by the scripts it was
    recorded with, before and after the installed scripts change, nor in another store its judge
    file is uploaded to; verify holds."""
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app

    admin = {"Authorization": f"Bearer {SERVICE_ADMIN}"}
    with TestClient(create_app(Store(store_url, install(NOT_IN_DAMAGE_STEP), concurrent=True),
                               digest(SERVICE_ADMIN))) as client:
        duel = client.post("/duels", json={"title": "at the table"}, headers=admin).json()
        recorder = {"Authorization": f"Bearer {duel['tokens']['recorder']}"}
        assert client.post(f"/duels/{duel['id']}/events", json=EVENTS, headers=recorder).status_code == 200
        refused = client.post(f"/duels/{duel['id']}/events", json=[ACTIVATION], headers=recorder)
        assert refused.status_code == 422 and refused.json()["rule"] == "BATTLE-09", refused.text
    with TestClient(create_app(Store(store_url, install(IN_DAMAGE_STEP), concurrent=True),
                               digest(SERVICE_ADMIN))) as client:
        refused = client.post(f"/duels/{duel['id']}/events", json=[ACTIVATION], headers=recorder)
        assert refused.status_code == 422 and refused.json()["rule"] == "BATTLE-09", refused.text
        judge = {"Authorization": f"Bearer {duel['tokens']['judge']}"}
        assert client.get(f"/duels/{duel['id']}/verify", headers=judge).json()["ok"]
        other = client.post("/duels", json={"title": "new scripts"}, headers=admin).json()
        posted = client.post(f"/duels/{other['id']}/events", json=[*EVENTS, ACTIVATION],
                             headers={"Authorization": f"Bearer {other['tokens']['recorder']}"})
        assert posted.status_code == 200, posted.text
        judge_file = client.get(f"/duels/{duel['id']}/replay.ygr?view=judge", headers=judge)
        assert judge_file.status_code == 200 and flags(loads(judge_file.content).cards) == [()]
    # the judge file uploaded to another store, where the scripts allow it: refused all the same
    backend = "postgresql" if store_url.startswith("postgresql") else "sqlite"
    with fresh_url(backend, tmp_path / "elsewhere.sqlite", "e") as elsewhere, \
            TestClient(create_app(Store(elsewhere, install(IN_DAMAGE_STEP), concurrent=True),
                                  digest(SERVICE_ADMIN))) as client:
        uploaded = client.post("/uploads", content=judge_file.content, headers=admin)
        assert uploaded.status_code == 201, uploaded.text
        refused = client.post(f"/duels/{uploaded.json()['id']}/events", json=[ACTIVATION],
                              headers={"Authorization": f"Bearer {uploaded.json()['tokens']['recorder']}"})
        assert refused.status_code == 422 and refused.json()["rule"] == "BATTLE-09", refused.text


def test_a_ygr_body_with_effect_facts_follows_the_schema_and_a_malformed_one_is_refused():
    from test_replay_file import BODY_SCHEMA, assemble, parts, schema_errors

    from ygoreplay.cards import CardDB, CardFacts
    from ygoreplay.effect_facts import EffectFact
    from ygoreplay.exchange import make_replay
    from ygoreplay.replay_file import ReplayFileError

    cards = CardDB.classic().merged(CardDB([CardFacts(code=WALL, name="Test Wall", type=0x4)])).with_effects(
        {WALL: (EffectFact(("activate",), "EVENT_ATTACK_ANNOUNCE", ("damage_step",), ("destroy",)),)})
    replay = make_replay(events(*EVENTS), ["2026-01-01T00:00:00.000Z"] * 3, cards, "judge", b"r" * 32, b"s" * 32)
    header, body = parts(dumps(replay))
    assert body["effects"]["cards"] == [[WALL, [["activate", "EVENT_ATTACK_ANNOUNCE", "damage_step", "destroy",
                                                 0, "", 1, None, ""]]]]       # condition not known, no range
    assert schema_errors(BODY_SCHEMA, body) == []
    assert flags(loads(assemble(header, body)).cards) == [("damage_step",)]
    older = {**body["effects"], "columns": body["effects"]["columns"][:3],        # a row of fewer columns
             "cards": [[WALL, [["activate", "EVENT_ATTACK_ANNOUNCE", "damage_step"]]]]}
    assert loads(assemble(header, {**body, "effects": older})).cards.effects(WALL) == (     # the rest as default
        EffectFact(("activate",), "EVENT_ATTACK_ANNOUNCE", ("damage_step",)),)
    for bad in ({"cards": []}, {**body["effects"], "cards": [[VORSE + 1, []]]},
                {**body["effects"], "cards": [[WALL, "rows"]]}, {**body["effects"], "columns": [["x"]]}):
        assert schema_errors(BODY_SCHEMA, {**body, "effects": bad}) or bad["cards"][0][0] != WALL
        with pytest.raises(ReplayFileError, match="body field 'effects'"):
            loads(assemble(header, {**body, "effects": bad}))


def test_an_imported_edopro_replay_is_stored_with_the_databases_effect_facts(tmp_path):
    """The importer reads a replay, not scripts: the effect facts the card databases have of its
    cards are stored with it (and exported with it), not looked up again later."""
    from conftest import shared_path

    from ygoreplay.effect_facts import HELPER, EffectFact
    from ygoreplay.yrpx import import_yrpx

    path = next(p for p in sorted(shared_path("real-replays", "edopro").iterdir()) if p.suffix == ".yrpX")
    cards = import_yrpx(path).cards
    code = min(cards)
    helper = (EffectFact((HELPER,), "Spirit.AddProcedure"),)        # leaves every rule undecided
    with Store(str(tmp_path / "imported.sqlite"), cards.with_effects({code: helper})) as store:
        done, _agreement = Records(store).import_yrpx(path, None, None)
        assert store.load(done.id).cards.effects(code) == helper and store.verify(done.id).ok
        assert loads(dumps(Records(store).export(done.id))).cards.effects(code) == helper
