"""A claim is the first version of a row one writer only may have (``store._first_rows``): a
match's link to its duel (``append_records``' ``claims``) and an imported file's key
(``store.key_claim``, ``record``'s ``claims``) are made in the one place. An imported file's
key is stored as it always was (``ygoreplay/store/claim/<key>``, topic ``ygoreplay:claim``):
a claim written before still holds its key."""
from __future__ import annotations

import msgpack
import pytest
from eventsourcing.persistence import StoredEvent

from test_attack_25u import _judge_file

from ygoreplay.application import Records
from ygoreplay.errors import ConflictError
from ygoreplay.replay_file import dumps, loads
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store, key_claim, new_id


def test_an_imported_files_claim_is_stored_in_its_old_form(tmp_path):
    """The row an import's claim writes: its id, topic and data as before claims were one mechanism."""
    organiser = OrganiserKey.generate()
    replay = loads(dumps(_judge_file(), organiser))
    with Store(str(tmp_path / "s.sqlite")) as store:
        done = Records(store).import_replay(replay, None, [organiser.public])
        rows = store.events.select_events(f"ygoreplay/store/claim/ygr-{replay.head.hex()}")
        assert [(r.originator_version, r.topic, msgpack.unpackb(r.state)) for r in rows] == \
            [(0, "ygoreplay:claim", {"stream": done.id})]


def test_a_claim_written_the_old_way_still_holds_its_key(tmp_path):
    """A key claimed by a row the old ``record(claim=…)`` wrote: the one mechanism finds it
    taken (before and in the transaction), nothing written."""
    with Store(str(tmp_path / "s.sqlite")) as store:
        old = new_id()
        store._insert([StoredEvent("ygoreplay/store/claim/yrpx-00ff", 0, "ygoreplay:claim",
                                   msgpack.packb({"stream": old}))])
        stream_id = new_id()
        with pytest.raises(ConflictError, match="claimed by another writer"):
            store.record([], "again", stream_id=stream_id, claims=key_claim("yrpx-00ff", stream_id))
        assert stream_id not in {info.id for info in store.duels()}
        store._claimed = lambda rows: None       # read free: the recorder's unique row refuses it
        with pytest.raises(ConflictError):
            store.record([], "again", stream_id=stream_id, claims=key_claim("yrpx-00ff", stream_id))
        assert stream_id not in {info.id for info in store.duels()}


@pytest.mark.parametrize("key", ["", "a/b", "a b"])
def test_a_key_that_names_no_row_of_its_own_is_refused(key):
    """A key is one name: none, a path or a space would name another row than its claim's."""
    from ygoreplay.store import _first_rows
    with pytest.raises(ValueError):
        _first_rows(key_claim(key, "x"))
