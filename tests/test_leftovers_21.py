"""Leftovers of the twentieth pass closed (``leftovers21``): a record stored before LOG-05's
one-name check still opens, a round's late seal stripped is seen on every read, a round's
witness receipt signed as a round's, the library found by installed card names, the recorder
page's UNSIGNED line kept live."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from duel import refused_with
from ygoreplay.application import Records, trusted_keys
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import dumps, loads
from ygoreplay.rules import audit, setup
from ygoreplay.store import Store

from test_round_seal_20 import unsigned  # noqa: F401  (fixture: rounds made as before they were signed)

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


# -- 1. nothing recorded is lost: a duel of one name twice stored before LOG-05's check ----------

def _one_name_twice() -> list:
    """A real duel whose duel_started names Yugi twice, once in full-width letters."""
    events = read_events(REPLAYS / "won-by-damage.jsonl")
    events[0] = dataclasses.replace(events[0], players=("Yugi", "ＹＵＧＩ"))
    return events


def _stored_before_the_check(store: Store, monkeypatch) -> str:
    """The duel as a store held it before LOG-05's check: written, anchored and signed through
    the store's own append with the check set aside for the write only."""
    events = _one_name_twice()
    with monkeypatch.context() as patched:
        patched.setattr(setup, "name_key", lambda name: name)      # the store as it was before the check
        duel = store.create_duel("before the check")
        store.append(duel, events)
    return duel


def test_log_05_a_duel_of_one_name_twice_stored_before_the_check_opens_reads_and_verifies(tmp_path, monkeypatch):
    """A duel stored (signed, anchored, snapshotted) before LOG-05 refused one name twice no
    longer verified (its snapshots no longer the state its events gave), exported nor audited
    past its start: the fold of a stored record refused its duel_started, and with it every
    event after. Judged as stored it is kept, its start flagged LOG-05: it opens, reads, verifies,
    exports as a signed file that verifies, reads and imports, the flag said each time. A new
    duel of one name twice is refused as before, witnessed or not."""
    store = Store(str(tmp_path / "duels.sqlite"))
    duel = _stored_before_the_check(store, monkeypatch)
    assert store.verify(duel).ok, store.verify(duel)
    loaded = store.load(duel)
    assert len(loaded.events) == 89
    state = store.state_at(duel)
    assert state.ended and state.winner == 0 and state.players == ("Yugi", "ＹＵＧＩ")
    report = audit(loaded.events, store.cards_of(duel)[0])
    assert [(v.index, v.rule) for v in report.violations] == [(0, "LOG-05")]
    assert report.state.winner == 0
    # the file it exports: signed, and it verifies, reads and imports as what it is, flagged
    data = dumps(Records(store).export(duel), store.key)
    replay = loads(data)
    assert replay.signature_valid and len(replay.events) == 89
    other = Store(str(tmp_path / "other.sqlite"))
    recorded = Records(other).import_replay(loads(data), None, trusted_keys([], store.key))
    assert recorded.stored == 89 and [v.rule for v in recorded.violations] == ["LOG-05"]
    assert other.verify(recorded.id).ok and other.state_at(recorded.id).winner == 0
    # what the stored record is let keep, no new write gets: recorded anew, refused at its start
    anew = Records(store).record(_one_name_twice(), "anew")
    assert anew.id is None and anew.stored == 0 and anew.violation.rule == "LOG-05"
    started = {"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "ＹＵＧＩ"]}
    for witnessed in (False, True):
        refused_with([{**started, "witnessed": witnessed}], "LOG-05", "read as one name")



# -- 2. a round signed late, then stripped of its seal, is seen so on every read ----------------

def test_a_round_signed_late_and_stripped_of_its_seal_is_refused_on_every_read_with_its_witness(
        tmp_path, unsigned, monkeypatch):
    """A round written before rounds were signed, signed late (``round sign``: no match's header
    names it), then stripped of its seal in the database passed for an unsigned one on its page,
    JSON, results, ``round show`` and ``round time``, and could be signed late again as it then
    stood (a table renumbered meanwhile): only ``verify --witness`` saw it. Every reader that
    holds the store's witness consults its receipt of the seal (``rounds.load_round``): refused,
    saying the signature was removed; with no witness named it reads as before."""
    from click.testing import CliRunner
    from test_attack_25i import _client
    from test_release import ADMIN, ORGANISER
    from test_round_seal_20 import _forged, _renumber, _round
    from ygoreplay.access import digest
    from ygoreplay.cli import main
    from ygoreplay.errors import VerificationError
    from ygoreplay.receipts import Witness
    from ygoreplay.rounds import load_round, sign_round
    from ygoreplay.service import create_app
    from fastapi.testclient import TestClient
    url, witnessed = str(tmp_path / "x.sqlite"), str(tmp_path / "w.sqlite")
    round_id = _round(url)
    monkeypatch.undo()                                  # this code from here on: the round is signed late
    runner = CliRunner()
    signed = runner.invoke(main, ["round", "sign", round_id, "--store", url, "--witness", witnessed])
    assert signed.exit_code == 0 and "after it was written unsigned" in signed.output, signed.output

    def strip(kept: dict) -> None:
        del kept["seal"]
        _renumber(kept)
    _forged(url, round_id, strip)
    env = {"YGOREPLAY_WITNESS": witnessed}
    for command in (["round", "show", round_id], ["round", "show", round_id, "--csv"], ["round", "time", round_id]):
        shown = runner.invoke(main, [*command, "--store", url], env=env)
        assert shown.exit_code == 1 and "signature was removed" in shown.output, (command, shown.output)
    with Store(url, concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN), Witness(witnessed, store))) as client:
        for path in (f"/rounds/{round_id}.json", f"/rounds/{round_id}", f"/rounds/{round_id}/results.csv"):
            read = client.get(path)
            assert read.status_code == 409 and "signature was removed" in read.text, (path, read.status_code)
        assert client.post(f"/rounds/{round_id}/sign", headers=ORGANISER).status_code == 409
        verified = client.get(f"/rounds/{round_id}/verify").json()
        assert verified["ok"] is False and "signature was removed" in verified["problem"]
    with _client(url) as client:                                        # a service with no witness
        assert client.get(f"/rounds/{round_id}.json").json()["signed"] is None
    with Store(url) as store:
        assert load_round(store, round_id)["signed"] is None              # no witness: nothing to tell by
        witness = Witness(witnessed, store)
        with pytest.raises(VerificationError, match="signature was removed"):
            load_round(store, round_id, witness=witness)
        with pytest.raises(VerificationError, match="signature was removed"):
            sign_round(store, round_id, witness)                          # never signed again as it stands


# -- 3. a round's witness receipt signed as a round's ---------------------------------------------

def test_a_rounds_witness_receipt_is_signed_as_a_rounds_and_an_old_one_still_verifies(tmp_path):
    """A round's receipt (the head of its seal, kept by the witness) was a duel's receipt in form,
    told apart by its id only: read as the receipt of a duel of that id, its signature held. It
    now names its kind inside what is signed: read as a duel's it does not hold, read as a
    round's it does, and its JSON says it. A round witnessed before (its receipt signed in a
    duel's form) still verifies against its witness, and its seal stripped is still found by it."""
    from test_round_seal_20 import _forged
    from ygoreplay.errors import VerificationError
    from ygoreplay import receipts
    from ygoreplay.receipts import Receipt, Witness
    from ygoreplay.rounds import RoundSettings, _sealed_digest, create_round, load_round, read_pairings, verify_round
    url, witnessed = str(tmp_path / "x.sqlite"), str(tmp_path / "w.sqlite")
    with Store(url) as store:
        witness = Witness(witnessed, store)
        round_id = create_round(store, read_pairings("1,Yugi,Kaiba\n2,Joey,Mai\n"), RoundSettings("Regional", 3),
                                witness=witness).id
        as_duel = witness.latest(round_id)
        assert not as_duel.valid                             # no duel's receipt: its kind is signed
        as_round = witness.latest(round_id, receipts.ROUND_RECEIPT)
        assert as_round.valid and as_round.kind == receipts.ROUND_RECEIPT
        assert as_round.to_dict()["kind"] == "round" and Receipt.from_dict(as_round.to_dict()) == as_round
        assert verify_round(store, round_id, witness).ok
        # a round witnessed before receipts named their kind: its receipt in a duel's form
        kept = store.attachment(round_id, "round")
        old_witness = Witness(str(tmp_path / "old.sqlite"), store)
        old_witness.record(Receipt.issue(store.key, round_id, 1, _sealed_digest(round_id, kept)))
        verified = verify_round(store, round_id, old_witness)
        assert verified.ok and verified.witnessed is True, verified
        assert load_round(store, round_id, witness=old_witness)["signed"] is not None
    _forged(url, round_id, lambda kept: kept.pop("seal"))      # its seal stripped: the old receipt finds it
    with Store(url) as store, pytest.raises(VerificationError, match="signature was removed"):
        load_round(store, round_id, witness=Witness(str(tmp_path / "old.sqlite"), store))


# -- 4. the library found by a card's installed name ----------------------------------------------

VORSE = 14898066        # Vorse Raider: Kaiba's p1.m0, Normal Summoned at event #17 of ``WON``
#: Its names as ``cards update --lang`` installs them (a Japanese cdb's, a Simplified Chinese one's).
VORSE_NAMES = {"ja": "ブラッド・ヴォルス", "zh-Hans": "血腥魔兽人"}


@pytest.mark.parametrize("typed", ["ブラッド・ヴォルス", "ブラッド", "血腥魔兽人", "血腥魔獸人", "魔兽"],
                         ids=["ja", "ja start", "zh-Hans", "zh-Hant typed", "zh part"])
def test_the_library_finds_a_replay_by_a_cards_installed_name(tmp_path, monkeypatch, typed):
    """``/search?card=`` and ``search --card`` went through the card databases' names only (the
    English one of the classic set): a replay was not found by the name its reader reads the card
    by (its installed Japanese or Chinese name, ``card_names``), "no card is named". They go
    through every installed name too (Chinese typed in either script), as the card's own."""
    from fastapi.testclient import TestClient
    from test_device_names import ADMIN, ORGANISER, WON, auth
    from ygoreplay.access import digest
    from ygoreplay.card_names import write_names
    from ygoreplay.service import create_app
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for language, name in VORSE_NAMES.items():
        write_names(language, [(VORSE, name)])
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "found by name", "visibility": "public", "release": "end"},
                           headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=WON,
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
        for card in (str(VORSE), typed):
            answer = client.get("/search", params={"card": card, "action": "summoned"})
            assert answer.status_code == 200, (card, answer.text)
            assert [hit["id"] for hit in answer.json()["results"]] == [duel["id"]], card
