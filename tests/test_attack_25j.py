"""Attacks on a table's first append judged on the head its live duel's load held
(``Store.opened``, ``Records.append_records``) and on the verified load of an export or a branch
(``Store._read_vouched``), issue 25's seventh pass."""
from __future__ import annotations

import pytest

from ygoreplay.application import Records
from ygoreplay.events import from_dict
from ygoreplay.live import Hub
from ygoreplay.store import Store

from test_live_first_append import EVENTS
from test_store import fresh_url

#: a duel played at a table (witnessed): its setup (the duel, both decks, both opening hands),
#: then player 0's first turn, which player 0's device records (its own side: issue 23)
SETUP = [from_dict({**EVENTS[0].to_dict(), "witnessed": True}), *EVENTS[1:5]]
P0_TURN = EVENTS[5:12]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_players_own_side_is_not_refused_on_a_head_held_before_another_process_began(tmp_path, backend):
    """The attack: a witnessed table's spectators opened its live duel on one worker before the
    first event (the worker holds its head at 0 events); the setup was entered through another
    worker (or the organiser's command line). Player 0's device then sent its first turn, with
    no expected position, to the first worker: judged on the head held, at 0 events, as if it
    were the duel's first events and not a witnessed duel's, it was refused (403, "a p0 may not
    write"), though the stored duel is witnessed and the play is player 0's own side. What the
    user relied on: a player's device records its own side of a witnessed duel (issue 23), on
    whichever worker its request lands; before the held head, a head at 0 was always read again."""
    with fresh_url(backend, tmp_path / "x.sqlite", "ownside") as url, Store(url) as store, Store(url) as other:
        duel = other.record([], "table", attachments={"access": {"visibility": "private", "mode": "witnessed"}})[0]
        Hub(store).get(duel)                                       # held at 0 events on this worker
        Records(other).append_records(duel, SETUP, 0, "p1")        # the setup, through another worker
        written = Records(store).append_records(duel, P0_TURN[:4], None, "p0")[0]
        assert [r.position for r in written] == [5, 6, 7, 8]
        assert {r.event.entered_by for r in written} == {"p0"}


def test_a_verified_load_gives_what_the_stored_duel_holds(tmp_path):
    """What held (c9fa9e4): export and branch read a duel's header, events and card facts in one
    statement checked against its anchor at the verified count. On genuine records that is what
    reading them apart gave: a witnessed duel with an event a judge rolled back (its revert
    mark), a branch of a branch of a branch, a match's stream, a duel with no events."""
    import ygoreplay.match.live  # noqa: F401  (a match's events and stream kind: registered)
    from test_match_service import MATCHES, lines
    from test_store import REPLAYS
    from ygoreplay.jsonl import read_events
    with Store(str(tmp_path / "x.sqlite")) as store:
        records = Records(store)
        played = records.record(read_events(REPLAYS / "witnessed-illegal-play.jsonl"), "table").id
        duel = store.record(EVENTS[:20], "duel")[0]
        store.append(duel, EVENTS[20:40])
        grandchild = store.branch(records.branch(records.branch(duel, 30), 15), 5)
        match = store.record([from_dict(e) for e in lines(MATCHES / "two-nil.jsonl")][:5], "m", kind="match")[0]
        for stream in (played, grandchild, match, store.create_duel("empty")):
            vouched, apart = store.load(stream), store.load(stream, verified=False)
            assert (vouched.header, vouched.records, vouched.head) == (apart.header, apart.records, apart.head)
            assert vouched.cards.to_json_list() == apart.cards.to_json_list()
        assert any(r.reverted_by is not None for r in store.load(played).records)
