"""What stands for a file already imported (``application.Imports``): one rule and one scan of
the store's duels for a judge file's head and an EDOPro replay's digest alike."""
from __future__ import annotations

import secrets

from test_device_names import WON

from ygoreplay.application import Records
from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.exchange import make_replay
from ygoreplay.replay_file import dumps, loads
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store


def _file(source: dict, signer: OrganiserKey):
    events = [from_dict(e) for e in WON]
    times = [f"2026-01-01T00:00:{i % 60:02d}.000+00:00" for i in range(len(events))]
    return loads(dumps(make_replay(events, times, CardDB.classic(), "judge", secrets.token_bytes(32),
                                   secrets.token_bytes(32), {"title": "t"}, source, times[0]), signer))


def test_a_files_source_whose_digest_is_no_string_names_no_replay(tmp_path):
    """A file's ``source`` is its maker's word: a ``sha256`` that is a list or a map (no digest)
    is kept as written, and every later import still answers (the imports are read in one map,
    its keys the digests: an unhashable one broke every import after it)."""
    organiser, anyone = OrganiserKey.generate(), OrganiserKey.generate()
    with Store(str(tmp_path / "s.sqlite")) as store:
        records = Records(store)
        odd = [records.import_replay(_file({"sha256": [1, 2]}, anyone), None, [], unsigned=True),
               records.import_replay(_file({"sha256": {"a": 1}}, organiser), None, [organiser.public])]
        assert all(done.id and not done.skipped for done in odd)
        replay = _file({}, organiser)
        first = records.import_replay(replay, None, [organiser.public])
        again = records.import_replay(replay, None, [organiser.public])
        assert not first.skipped and again.skipped and again.id == first.id
        assert records.imports().get(replay.head) is not None
