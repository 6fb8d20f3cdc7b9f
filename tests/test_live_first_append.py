"""A table's first append through the service: the live duel's load (``Store.opened``) is the one
read of the duel; the head the append is judged on and the access it is checked by come from it
(issue 25, seventh pass). What that must not change: a head that another process has moved on
since is judged again on the stored head, the organiser's access settings written in between
count, and a card a later append names first is still shown."""
from __future__ import annotations

import pytest

from ygoreplay.application import Records
from ygoreplay.errors import ConflictError, InputError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.live import Hub
from ygoreplay.passcodes import referenced_codes
from ygoreplay.store import Store, new_id

from test_store import DAMAGE, REPLAYS, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)
#: its opening: every event up to the first that names cards (the decks)
OPENING = next(i for i, e in enumerate(EVENTS) if referenced_codes([e])) + 1
#: the same duel as played at a table (its duel_started says so)
WITNESSED = [from_dict({**EVENTS[0].to_dict(), "witnessed": True}), *EVENTS[1:]]


def _counted(store: Store, monkeypatch) -> list[str]:
    """The store's reads from now on: its one-statement reads by their first stream, and ``select_events``."""
    reads: list[str] = []
    parts, select = store._parts, store.events.select_events
    monkeypatch.setattr(store, "_parts", lambda query, owners: reads.append(f"statement {owners[0]}") or parts(query, owners))
    monkeypatch.setattr(store.events, "select_events",
                        lambda stream, *a, **k: reads.append(stream) or select(stream, *a, **k))
    return reads


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_tables_first_append_reads_the_duel_once(tmp_path, backend, monkeypatch):
    """The live duel's load read header, access, cards and anchors; the append read the header,
    anchor and cards again in a statement of its own (``_load_head``) and the access once more
    (``check_mode``): a round trip, an Ed25519 check and ~0.3 ms of CPU each. The head it is
    judged on is now the one the load read and checked as ``_load_head`` checks it."""
    with fresh_url(backend, tmp_path / "x.sqlite", "first") as url, Store(url) as store, Store(url) as creator:
        duel = creator.record([], "table", attachments={"access": {"visibility": "private"}})[0]   # another worker
        hub, records = Hub(store), Records(store)
        reads = _counted(store, monkeypatch)
        live = hub.get(duel)                                     # the caller's check: the live duel's load
        assert reads == [f"statement {duel}"]
        reads.clear()
        written = hub.appending(duel, lambda: records.append_records(duel, EVENTS[:OPENING], 0, "recorder")[0])
        assert reads == [], "the append judged on the head the live duel's load read"
        monkeypatch.undo()
        assert [r.position for r in written] == list(range(OPENING)) and live.count == OPENING
        assert store.verify(duel).ok
        assert store.witnessed(duel, fresh=True)[:2] == (OPENING, False)


def test_a_head_another_process_moved_on_is_judged_again_on_the_stored_head(tmp_path):
    """The live duel was loaded at 0 events; another process then recorded the duel's first
    events (played at a table). An append with no expected position was judged as the duel's
    first events (not witnessed, nobody's entry stamped): it is written at 0 only, and judged
    again on the stored head when that is taken: stamped as a witnessed duel's recorder's entry."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store, Store(url) as other:
        duel = other.create_duel("table")
        hub, records = Hub(store), Records(store)
        hub.get(duel)                                            # held at 0 events here
        Records(other).append_records(duel, WITNESSED[:OPENING], 0, "recorder")
        written = hub.appending(duel, lambda: records.append_records(duel, [EVENTS[OPENING]], None, "recorder")[0])
        assert [r.position for r in written] == [OPENING]
        assert written[0].event.entered_by == "recorder"         # judged as the witnessed duel it is
        # an expected position past the 0 held here is the stored head's to judge
        more = records.append_records(duel, [EVENTS[OPENING + 1]], OPENING + 1, "recorder")[0]
        assert [r.position for r in more] == [OPENING + 1] and more[0].event.entered_by == "recorder"
        with pytest.raises(ConflictError):                       # and one before it is refused
            records.append_records(duel, [EVENTS[OPENING + 2]], 0, "recorder")


def test_access_the_organiser_wrote_after_the_live_duels_load_counts_at_the_first_append(tmp_path):
    """The head held carries the access read with it; the organiser's settings written after
    the live duel's load (a witnessed duel, here) still decide the first append."""
    with Store(str(tmp_path / "x.sqlite")) as store:
        duel = store.record([], "table", attachments={"access": {"visibility": "private"}})[0]
        hub, records = Hub(store), Records(store)
        hub.get(duel)
        store.attach(duel, "access", {"visibility": "private", "mode": "witnessed"})
        with pytest.raises(InputError, match="witnessed"):
            records.append_records(duel, EVENTS[:OPENING], 0, "recorder")
        written = records.append_records(duel, WITNESSED[:OPENING], 0, "recorder")[0]
        assert len(written) == OPENING and written[0].event.witnessed


def test_access_written_with_streams_together_is_held_with_their_heads(tmp_path):
    """Streams recorded together (an organiser's round) have their access written beside them
    in the same transaction: the heads held after it carry it, so a duel created witnessed that
    way still refuses a machine's first events."""
    with Store(str(tmp_path / "x.sqlite")) as store:
        duel = new_id()
        store.record_together([{"events": [], "title": "table", "stream_id": duel}],
                              {duel: {"access": {"visibility": "private", "mode": "witnessed"}}})
        with pytest.raises(InputError, match="witnessed"):
            Records(store).append_records(duel, EVENTS[:OPENING], 0, "recorder")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_card_a_later_append_names_first_is_shown(tmp_path, backend):
    """The cards an append adds are worked out once (``referenced_codes``) for its facts and
    its card record; a card that only a later append names reaches the live duel and its views."""
    with fresh_url(backend, tmp_path / "x.sqlite", "later") as url, Store(url) as store:
        duel = store.create_duel("table")
        hub, records = Hub(store), Records(store)
        live = hub.get(duel)
        hub.appending(duel, lambda: records.append_records(duel, EVENTS[:OPENING], 0, "recorder")[0])
        judge = live.view("judge")
        later = next(i for i, e in enumerate(EVENTS) if any(c not in live.cards for c in referenced_codes([e])))
        new = [c for c in referenced_codes([EVENTS[later]]) if c not in live.cards]
        hub.appending(duel, lambda: records.append_records(duel, EVENTS[OPENING:later + 1], OPENING, "recorder")[0])
        assert all(c in live.cards for c in new)
        assert live.cards.to_json_list() == store.cards_of(duel)[0].to_json_list()
        assert {f["code"] for step in live.view("judge").steps for f in step.cards} >= set(new)
        assert judge is live.view("judge") and len(judge.steps) == later + 1
