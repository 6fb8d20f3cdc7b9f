"""A round's record is signed (issue 25, twentieth pass): the round (its tables, their numbers and
players, which match each is) is an attachment of its own id, which someone who may write the
database and does not hold the organiser's key rewrote: a table renumbered, a table dropped
from the round's page and results, the record deleted (the round 404 while its matches stayed).
The record is now sealed with the organiser's key where it is written (``rounds.create_round``),
every reader checks the seal (``rounds.load_round``) and ``verify`` covers a round, against its
witness's receipt too. A round written before rounds were signed still opens, marked UNSIGNED."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from ygoreplay import rounds
from ygoreplay.cli import main
from ygoreplay.errors import VerificationError
from ygoreplay.rounds import ATTACHMENT, RoundSettings, create_round, load_round, read_pairings
from ygoreplay.store import Store

from test_attack_25i import _client
from test_release import ORGANISER

PAIRINGS = "1,Yugi,Kaiba\n2,Joey,Mai\n3,Tea,Tristan\n"


def _forged(url: str, round_id: str, change) -> None:
    """The round's record rewritten in the database as ``change`` makes it (no key held)."""
    with Store(url) as forger:
        kept = forger.attachment(round_id, ATTACHMENT)
        change(kept)
        forger.attach(round_id, ATTACHMENT, kept)


def _round(url: str, witness=None) -> str:
    with Store(url) as store:
        return create_round(store, read_pairings(PAIRINGS), RoundSettings("Regional", 3), witness=witness).id


@pytest.fixture
def unsigned(monkeypatch):
    """Rounds made as before rounds were signed: no seal in the record, nothing of the round in
    its matches' headers (what ``create_round`` wrote until this pass)."""
    monkeypatch.setattr(rounds, "sealed", lambda _store, _round_id, kept, late=False: kept)
    monkeypatch.setattr(rounds, "seated_at", lambda _round_id, _table: {})


def _renumber(kept: dict) -> None:
    kept["tables"][0]["table"] = 9


def _drop(kept: dict) -> None:
    del kept["tables"][1]


@pytest.mark.parametrize("change", [_renumber, _drop], ids=["renumbered", "dropped"])
def test_a_table_renumbered_or_dropped_in_the_database_is_refused_and_verify_says_so(tmp_path, change):
    """Table 1 renumbered 9, or table 2 dropped from the record: the round's page, JSON and
    results showed it so (a player sent to the wrong table, a match missing from the standings),
    and nothing could tell. Every reader now refuses the record, saying what and where (409,
    never a 404 nor a traceback), and ``verify`` of the round, on the command line and over HTTP,
    is NOT ok."""
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)
    _forged(url, round_id, change)
    with _client(url) as client:
        for page in (f"/rounds/{round_id}.json", f"/rounds/{round_id}", f"/rounds/{round_id}/results.csv",
                     f"/rounds/{round_id}/follow"):
            answer = client.get(page)
            assert answer.status_code == 409, (page, answer.status_code, answer.text)
            assert "does not hold the organiser's signature" in answer.json()["error"]
        verified = client.get(f"/rounds/{round_id}/verify")
        assert verified.status_code == 200 and verified.json()["ok"] is False
        assert f"round {round_id}: its record does not hold" in verified.json()["problem"]
        assert client.post(f"/rounds/{round_id}/time", headers=ORGANISER).status_code == 409
    runner = CliRunner()
    shown = runner.invoke(main, ["round", "show", round_id, "--store", url])
    assert shown.exit_code == 1 and "does not hold the organiser's signature" in shown.output
    assert "Traceback" not in shown.output
    checked = runner.invoke(main, ["verify", round_id, "--store", url])
    assert checked.exit_code == 1 and f"{round_id}: round NOT ok: round {round_id}: its record does not" \
        in checked.output, checked.output


def test_a_deleted_round_is_found_by_verify_against_its_witness(tmp_path):
    """The round's record deleted from the database: the round was 404, its matches stayed, and
    ``verify`` had nothing to say of it. Its witness keeps a receipt of its seal: ``verify
    --witness`` of the round is NOT ok, saying it was deleted."""
    from ygoreplay.receipts import Witness
    url, witnessed = str(tmp_path / "x.sqlite"), str(tmp_path / "w.sqlite")
    with Store(url) as store:
        witness = Witness(witnessed, store)
        round_id = create_round(store, read_pairings(PAIRINGS), RoundSettings("Regional", 3), witness=witness).id
    runner = CliRunner()
    ok = runner.invoke(main, ["verify", round_id, "--store", url, "--witness", witnessed])
    assert ok.exit_code == 0 and f"{round_id}: ok" in ok.output and "its witness saw it" in ok.output, ok.output
    with Store(url) as forger:
        forger._read(f"DELETE FROM {forger._tables()[0]} WHERE originator_id = ?", (f"{round_id}/{ATTACHMENT}",))
        assert forger.attachment(round_id, ATTACHMENT) is None
    gone = runner.invoke(main, ["verify", round_id, "--store", url, "--witness", witnessed, "--json"])
    assert gone.exit_code == 1, gone.output
    said = json.loads(gone.output)
    assert said["ok"] is False and said["kind"] == "round" and "deleted" in said["problem"]
    assert runner.invoke(main, ["verify", round_id, "--store", url]).exit_code == 2     # no witness: no round


def test_a_round_stripped_of_its_seal_is_not_taken_for_an_unsigned_one(tmp_path):
    """The seal removed from the record (and a table renumbered): it would pass for a round
    written before rounds were signed. Its matches' signed headers name the round: refused."""
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)

    def strip(kept: dict) -> None:
        del kept["seal"]
        _renumber(kept)
    _forged(url, round_id, strip)
    with Store(url) as store, pytest.raises(VerificationError, match="signature was removed"):
        load_round(store, round_id)


def test_a_signed_round_verifies_and_its_page_says_who_signed_it(tmp_path):
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)
    with _client(url) as client:
        data = client.get(f"/rounds/{round_id}.json").json()
        assert data["signed"]["late"] is False and re.fullmatch(r"[0-9a-f]{16}", data["signed"]["key"])
        assert '<p id="seal">Signed by the organiser' in client.get(f"/rounds/{round_id}").text
        verified = client.get(f"/rounds/{round_id}/verify").json()
        assert verified["ok"] is True and verified["tables"] == 3 and verified["witnessed"] is None
    checked = CliRunner().invoke(main, ["verify", round_id, "--store", url])
    assert checked.exit_code == 0 and f"{round_id}: round of 3 tables, signed by organiser key" in checked.output


def test_a_round_written_before_rounds_were_signed_opens_marked_unsigned_and_the_organiser_signs_it(
        tmp_path, unsigned, monkeypatch):
    """A round made before this pass has no seal: it opens (its page, JSON, ``round show``),
    marked UNSIGNED, never silently trusted, and ``verify`` is NOT ok, saying how to sign it.
    The organiser signs it as it stands (``round sign``): signed late, said so; a renumbering
    after that is refused."""
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)
    monkeypatch.undo()                          # this pass's code from here on
    with _client(url) as client:
        assert client.get(f"/rounds/{round_id}.json").json()["signed"] is None
        page = client.get(f"/rounds/{round_id}").text
        assert '<p id="seal" class="unsigned">UNSIGNED: this round was written before rounds were signed' in page
        assert client.get(f"/rounds/{round_id}/verify").json()["ok"] is False
    runner = CliRunner()
    shown = runner.invoke(main, ["round", "show", round_id, "--store", url])
    assert shown.exit_code == 0 and "UNSIGNED" in shown.output and "table 1: Yugi" in shown.output
    checked = runner.invoke(main, ["verify", round_id, "--store", url])
    assert checked.exit_code == 1 and "its record is not signed" in checked.output
    signed = runner.invoke(main, ["round", "sign", round_id, "--store", url])
    assert signed.exit_code == 0 and "after it was written unsigned" in signed.output, signed.output
    again = runner.invoke(main, ["round", "sign", round_id, "--store", url])
    assert again.exit_code == 2 and "signed already" in again.output
    assert runner.invoke(main, ["verify", round_id, "--store", url]).exit_code == 0
    _forged(url, round_id, _renumber)
    assert runner.invoke(main, ["verify", round_id, "--store", url]).exit_code == 1


def test_the_organiser_signs_an_unsigned_round_over_http_as_on_the_command_line(tmp_path, unsigned, monkeypatch):
    """``POST /rounds/{id}/sign`` is ``round sign``'s door (``rounds.sign_round``): the organiser's
    only, once; the round's page says it was signed late."""
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)
    monkeypatch.undo()
    with _client(url) as client:
        assert client.get(f"/rounds/{round_id}.json").json()["signed"] is None
        assert client.post(f"/rounds/{round_id}/sign").status_code == 401
        signed = client.post(f"/rounds/{round_id}/sign", headers=ORGANISER)
        assert signed.status_code == 200 and signed.json()["signed"]["late"] is True, signed.text
        assert client.get(f"/rounds/{round_id}.json").json()["signed"]["late"] is True
        again = client.post(f"/rounds/{round_id}/sign", headers=ORGANISER)
        assert again.status_code == 400 and "signed already" in again.json()["error"]
        assert client.get(f"/rounds/{round_id}/verify").json()["ok"] is True


def test_verify_of_a_round_record_not_in_a_rounds_form_says_so_not_that_there_is_no_round(tmp_path):
    """A round's record rewritten into another shape (its tables a number): ``verify`` of the
    round said "no duel" of it (exit 2), as of an id that names nothing; it is NOT ok, saying
    that the record is not in a round's form."""
    url = str(tmp_path / "x.sqlite")
    round_id = _round(url)

    def reshape(kept: dict) -> None:
        kept["tables"] = 5
    _forged(url, round_id, reshape)
    checked = CliRunner().invoke(main, ["verify", round_id, "--store", url])
    assert checked.exit_code == 1 and "not in the form a round is written in" in checked.output, checked.output
