"""Every read that names a stored duel goes through the store's one decision of what its signed
anchors vouch for (issue 25: "a second way in skips the checks of the first"): the library search
agrees with the list of duels (``Store.listed``), the command line's reads of a stored duel are the
service's (``Store.opened``, through ``Store.load``), and a round's table is said only of a match
that reads vouched (``Store.records_after``). Each alteration is made in a real store's rows."""
from __future__ import annotations

import msgpack
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_live_vouched import FORGED, _forge_card, _recorded, _retitle
from test_search import ADMIN, COUNTERS, DAMAGE, found, recorded
from test_store import _set_state, _state, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import VerificationError
from ygoreplay.rounds import RoundSettings, create_round, match_details, read_pairings
from ygoreplay.service import create_app
from ygoreplay.store import Store


def _retime(url: str, duel: str, version: int) -> None:
    """The stored event at ``version`` said recorded at another time: it still decodes, its hash
    no longer holds."""
    envelope = msgpack.unpackb(_state(url, duel, version))
    envelope["t"] = "2001-01-01T00:00:00+00:00"
    _set_state(url, duel, version, msgpack.packb(envelope))


# -- the library search -----------------------------------------------------------------------------

def test_the_search_leaves_out_an_altered_public_duel_and_its_branch_as_the_list_of_duels_does(store_url):
    with Store(store_url, CARDS) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        altered, other = recorded(store, DAMAGE, title="genuine title"), recorded(store, COUNTERS)
        branch = Records(store).branch(altered, 5)          # public, as its parent
        assert set(found(store)) == {altered, other, branch}
        kaiba = client.get("/players/kaiba").json()
        assert (kaiba["won"], kaiba["lost"]) == (0, 2)
        _retitle(store_url, altered)
        listed = {d["id"] for d in client.get("/duels").json()}
        assert listed == {other}
        # the index still holds the genuine title: neither it nor the forged one finds the duel
        assert found(store) == [other] and found(store, title="genuine") == [] and found(store, q="forged") == []
        assert {r["id"] for r in client.get("/search").json()["results"]} == listed
        kaiba = client.get("/players/kaiba").json()
        assert [d["id"] for d in kaiba["duels"]] == [other] and (kaiba["won"], kaiba["lost"]) == (0, 1)
        cli = CliRunner().invoke(main, ["search", "--store", store_url, "--json"])
        assert cli.exit_code == 0 and altered not in cli.output and other in cli.output


def test_listed_is_the_decision_the_list_of_duels_makes(tmp_path):
    """``Store.listed`` says what ``DuelInfo.signed`` says of each stream, and of a branch its
    ancestors' too (a branch of a branch of an altered duel)."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        parent, other = _recorded(store, 4), _recorded(store, 4)
        child = store.branch(parent, 3)
        grandchild = store.branch(child, 2)
        assert set(store.listed([parent, other, child, grandchild, "000000000000"])) == {parent, other, child, grandchild}
        _retitle(url, parent)
        assert [store.info(d).signed for d in (parent, other, child, grandchild)] == [False, True, True, True]
        assert set(store.listed([other, child, grandchild, parent])) == {other}


# -- the command line ---------------------------------------------------------------------------------

def _run(*args: str):
    return CliRunner().invoke(main, list(args))


#: Each command that reads a stored duel whole, as its argument list after the duel (``{out}``: a file).
READS = {"log": (), "actions": (), "show --view spectator": ("--view", "spectator"), "play": ("--plain",),
         "export --record": ("-o", "{out}", "--record"), "lp-sheet": ("--csv",), "show": ()}


@pytest.mark.parametrize("alteration", ["header", "card facts", "an event"])
def test_a_command_reading_an_altered_stored_duel_is_refused_naming_it(tmp_path, alteration):
    """``log``, ``actions``, ``show``, ``play``, ``export --record``, ``lp-sheet`` of a stored duel
    read it as the service does: one whose header, card facts or events were altered in the
    database is refused with a message naming the duel and what failed (exit 1), never a
    traceback, never the forged board or names (``log`` showed the forged card's name)."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store)
    for command, extra in READS.items():
        done = _run(command.split()[0], duel, *(a.format(out=tmp_path / "out.jsonl") for a in extra), "--store", url)
        assert done.exit_code == 0, (command, done.output)
    {"header": lambda: _retitle(url, duel), "card facts": lambda: _forge_card(url, duel, 3),
     "an event": lambda: _retime(url, duel, 6)}[alteration]()
    for command, extra in READS.items():
        done = _run(command.split()[0], duel, *(a.format(out=tmp_path / "out.jsonl") for a in extra), "--store", url)
        assert done.exit_code == 1, (command, done.output)
        assert "Traceback" not in done.output and isinstance(done.exception, SystemExit), (command, done.exception)
        assert f"duel {duel}" in done.output and ("verif" in done.output or "anchor" in done.output), done.output
        assert FORGED not in done.output and "forged title" not in done.output, (command, done.output)


def test_load_is_the_services_read_and_verify_says_where_it_fails(tmp_path):
    """``Store.load(verified=False)`` (every command line read of a stored duel) refuses what the
    service refuses, naming where ``verify`` finds the change."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store)
        assert len(store.load(duel, verified=False).records) == 8
        _retime(url, duel, 6)
        with pytest.raises(VerificationError, match=f"duel {duel} fails verification at event 5"):
            store.load(duel, verified=False)


def test_the_tree_says_which_title_no_anchor_signs(tmp_path):
    """``ygoreplay tree`` names an altered family member's title as unsigned, as the service's
    tree does (``"signed": false``)."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        parent = _recorded(store, 4)
        branch = store.branch(parent, 3)
    _retitle(url, parent)
    done = _run("tree", branch, "--store", url)
    assert done.exit_code == 0, done.output
    root, child = done.output.splitlines()
    assert root.startswith(parent) and "forged title" in root and "does not hold" in root
    assert branch in child and "does not hold" not in child


# -- a round's tables -------------------------------------------------------------------------------

def _organiser(match_id, access) -> bool:
    """The store's owner: may know of every match (``rounds.match_details``'s reader)."""
    return True


def test_a_duels_table_is_not_said_from_an_altered_match(tmp_path):
    """An LP sheet says a duel's event, round and table from its match: not from a match whose
    header its anchors do not name (its seat, ``round_table``, is the match's, read only once the
    match reads vouched), on the command line as on the service."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        made = create_round(store, read_pairings("1,Ann,Bob\n"), RoundSettings("Regional", 3, "Advanced"))
        match = made.tables[0].match
        duel = _recorded(store)
        store.attach(duel, "match_game", {"id": match})
        assert match_details(store, duel, _organiser) == {"match": match, "event": "Regional", "round": 3,
                                              "format": "Advanced", "table": 1}
        assert "Regional" in _run("lp-sheet", duel, "--store", url).output
        _retitle(url, match)
        assert match_details(store, duel, _organiser) == {}
        with pytest.raises(VerificationError, match=f"match {match}: its header is not the one"):
            store.records_after(match)
    sheet = _run("lp-sheet", duel, "--store", url)
    assert sheet.exit_code == 0 and "Regional" not in sheet.output
