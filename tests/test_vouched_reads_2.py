"""Every read of stored rows goes through the store's one decision of what its signed anchors
vouch for (issue 25, tenth pass: "a second way in skips the checks of the first"), continued
from ``test_vouched_reads``: each alteration is made in a real store's rows, and what it must
not show or count is asked of every face that reads it."""
from __future__ import annotations

import json

import msgpack
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_live_vouched import _retitle
from test_search import ADMIN, COUNTERS, _code_of, first, found, recorded
from test_store import _set_state, _state, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import VerificationError
from ygoreplay.library_search import card_stats
from ygoreplay.replay_file import dumps, loads
from ygoreplay.service import create_app
from ygoreplay.store import Store


# -- a card's numbers -------------------------------------------------------------------------------

def test_a_cards_numbers_leave_out_an_altered_public_duel_and_its_branch_as_the_search_does(store_url):
    """``/cards/{code}/stats`` counts a duel only where ``Store.listed`` (the search's and the
    list of duels' decision) names it: not a public duel whose header was altered in the
    database, nor its public branch (whose first events are that duel's)."""
    position, event = first(COUNTERS, "activated")
    code = _code_of(COUNTERS, event.card)
    with Store(store_url, CARDS) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        altered, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        branch = Records(store).branch(altered, position)             # public, as its parent, with the activation
        one = card_stats(store, code)       # a branch is a judge's what-if, no duel played: never counted
        assert one["duels"] == 2 and one["activated"] == 2 and one["won_by_user"] + one["lost_by_user"] == 2
        _retitle(store_url, altered)
        stats = client.get(f"/cards/{code}/stats").json()
        assert {k: stats[k] for k in ("duels", "activated")} == {"duels": 1, "activated": 1}
        # the card is activated once in each duel
        assert stats["activations"] * 2 == one["activations"] and stats["won_by_user"] + stats["lost_by_user"] == 1
        assert branch not in {r["id"] for r in client.get("/search", params={"card": str(code)}).json()["results"]}


# -- the library index, built again ---------------------------------------------------------------

def _reactivate(url: str, duel: str, position: int, card: str) -> None:
    """The stored event at ``position`` (an activation) said to activate another card: it still
    decodes and folds, its hash no longer holds."""
    envelope = msgpack.unpackb(_state(url, duel, position + 1))
    assert envelope["e"]["kind"] == "activated"
    envelope["e"]["card"] = card
    _set_state(url, duel, position + 1, msgpack.packb(envelope))


def test_a_reindex_indexes_only_the_events_the_anchors_vouch_for(store_url):
    """``search --reindex`` (and a store's first open without its index) folds each stream as
    ``Store.opened`` shows it: an event altered in the database (an activation said of another
    card) was indexed as stored, and the search and the card's numbers then counted it of a duel
    the list of duels names (its header and last anchor hold)."""
    position, event = first(COUNTERS, "activated")
    forged = _code_of(COUNTERS, "p0.m4")                 # summoned later in the duel, never activated
    assert forged != _code_of(COUNTERS, event.card)
    with Store(store_url, CARDS) as store:
        duel, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        assert card_stats(store, forged)["activations"] == 0
    _reactivate(store_url, duel, position, "p0.m4")
    done = CliRunner().invoke(main, ["search", "--store", store_url, "--reindex", "--json", "--card", str(forged),
                                     "--action", "activated"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output.splitlines()[-1])["results"] == []
    with Store(store_url, CARDS) as store:
        assert store.listed([duel])                        # the list of duels still names it
        stats = card_stats(store, forged)
        assert stats["activations"] == 0 == stats["activated"] and stats["duels"] == stats["summoned"] == 1
        assert found(store, card=str(forged), action="activated") == []
        # one anchor signs the whole duel (one write): no event of it is vouched, the other's all are
        assert found(store, card=str(forged), action="summoned") == [other]


# -- an import's "imported before" ----------------------------------------------------------------

def test_a_file_is_said_imported_before_only_by_a_header_its_anchors_sign(tmp_path):
    """A judge file imported again is answered ``skipped`` with the duel it was imported as
    (the CLI's ``import`` and an upload alike, ``Records.import_replay``): not by a header
    altered in the database (its ``file_head`` is then anyone's to claim), which pointed every
    later import of the file at the altered duel instead of recording it."""
    url = str(tmp_path / "x.sqlite")
    with Store(url, CARDS) as store:
        records = Records(store)
        judge = loads(dumps(records.export(recorded(store, COUNTERS)), store.key))
        first_import = records.import_replay(judge, None, [store.key.public])
        again = records.import_replay(judge, None, [store.key.public])
        assert not first_import.skipped and again.skipped and again.id == first_import.id
    _retitle(url, first_import.id)
    with Store(url, CARDS) as store:
        records = Records(store)
        anew = records.import_replay(judge, None, [store.key.public])
        assert not anew.skipped and anew.id != first_import.id
        assert records.import_replay(judge, None, [store.key.public]).id == anew.id


# -- a receipt --------------------------------------------------------------------------------------

def test_a_receipt_signs_the_head_the_anchors_vouch_for_never_a_row_altered_in_the_database(tmp_path):
    """``Records.receipt`` (``GET /duels/{id}/receipt``, a judge's viewer) signs with the
    organiser's key the chain hash its signed anchor names (``Store.vouched_hash``): it signed
    the last event row's own hash as stored, so a row rewritten there (between the route's
    verification and this read, or with no route before it) got the organiser's signature; and
    of a duel whose header no anchor names, it signs nothing."""
    url = str(tmp_path / "x.sqlite")
    with Store(url, CARDS) as store:
        duel = recorded(store, COUNTERS)
        genuine = Records(store).receipt(duel)
    count = genuine.events
    envelope = msgpack.unpackb(_state(url, duel, count))
    envelope["h"] = bytes(32)
    _set_state(url, duel, count, msgpack.packb(envelope))
    with Store(url, CARDS) as store:
        again = Records(store).receipt(duel)
        assert again.valid and (again.events, again.head) == (count, genuine.head)
    _retitle(url, duel)
    with Store(url, CARDS) as store, pytest.raises(VerificationError, match=f"duel {duel}: no signed anchor"):
        Records(store).receipt(duel)
