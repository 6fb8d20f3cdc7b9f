"""Attacks on issue 25's eleventh pass (``attack25u``): what the merged caches, import claims and
rules changes let through.

* ``import --unsigned`` of a copy of a real judge file (the same events, so the same head hash),
  signed by no trusted key: the genuine file, signed by the organiser's trusted key, was then
  answered "skipped: it is duel X", X the unverified copy, and could never be recorded: what an
  unverified file says is its maker's word (``Records.sources`` already ignores it for an EDOPro
  replay's digest), yet ``Records.imported_as`` and the head's claim took it as the store's.
  Now an unverified import neither stands for the head nor holds its claim; a verified import
  of the file is skipped as before, and so is an unverified one once any import of it stands.
* The claim an import writes with its duel (``attack25t``) outlived the duel's standing: once the
  duel's header was altered in the database (no anchor signs it; ``imported_as`` and ``sources``
  rightly no longer answer with it), every later import of the file met the claim and no duel
  to skip to, and was refused with a conflict, forever (``test_vouched_reads_2``'s
  ``test_a_file_is_said_imported_before_only_by_a_header_its_anchors_sign`` failed on main for
  a judge file; an EDOPro replay the same, below). A claim no vouched duel answers for is no
  one's: the file is recorded without it (``Records._claimed``).
"""
from __future__ import annotations

import secrets

import pytest

from test_device_names import WON
from test_live_vouched import _retitle

from ygoreplay.application import Records
from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.exchange import make_replay
from ygoreplay.replay_file import dumps, loads
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store


def _judge_file() -> object:
    events = [from_dict(e) for e in WON]
    times = [f"2026-01-01T00:00:{i % 60:02d}.000+00:00" for i in range(len(events))]
    return make_replay(events, times, CardDB.classic(), "judge", secrets.token_bytes(32), secrets.token_bytes(32),
                       {"title": "round 3, table 7"}, {}, times[0])


def test_an_unverified_copy_of_a_judge_file_does_not_stand_for_the_signed_one(tmp_path):
    """The organiser's judge file (signed by its trusted key) and a copy of it signed by anyone
    (imported ``--unsigned``: unverified). The copy imported first made the genuine file's import
    answer "skipped", the unverified duel for it, forever (its claim on the head held too). Now
    the genuine file is recorded beside it; importing it again, or the copy again, is skipped
    as the verified duel."""
    organiser, anyone = OrganiserKey.generate(), OrganiserKey.generate()
    replay = _judge_file()
    genuine, copy = loads(dumps(replay, organiser)), loads(dumps(replay, anyone))
    assert genuine.head == copy.head
    with Store(str(tmp_path / "s.sqlite")) as store:
        records = Records(store)
        unverified = records.import_replay(copy, None, [organiser.public], unsigned=True)
        assert unverified.id and not unverified.skipped
        assert store.info(unverified.id).source.get("unverified")
        done = records.import_replay(genuine, None, [organiser.public])
        assert not done.skipped and done.id != unverified.id, "the signed file is recorded, not answered by the copy"
        assert not store.info(done.id).source.get("unverified")
        again = records.import_replay(genuine, None, [organiser.public])
        assert again.skipped and again.id == done.id
        copied = records.import_replay(copy, None, [organiser.public], unsigned=True)
        assert copied.skipped and copied.id == done.id


def test_an_unverified_import_again_is_skipped_as_the_first(tmp_path):
    """With no verified import of the file, importing the same unverified file twice records it
    once: the second is answered as the first (no second duel, no conflict error)."""
    replay = _judge_file()
    copy = loads(dumps(replay, OrganiserKey.generate()))
    with Store(str(tmp_path / "s.sqlite")) as store:
        records = Records(store)
        first = records.import_replay(copy, None, [], unsigned=True)
        second = records.import_replay(copy, None, [], unsigned=True)
        assert not first.skipped and second.skipped and second.id == first.id


def test_an_edopro_replay_whose_duel_was_altered_in_the_database_is_imported_again(tmp_path):
    """A real EDOPro replay imported, then its duel's header altered in the database: the store
    no longer vouches for that duel, so the replay is not "stored" (``sources``); importing it
    again met the first import's claim and was refused ("written by another writer first"),
    now and at every later try. Now it is recorded anew, and then known by its digest."""
    from conftest import SHARED
    real = SHARED / "real-replays" / "edopro" / "GG_DW_vs_Cyberse.yrpX"
    if not real.exists():
        pytest.skip(f"{real} is not here")
    url = str(tmp_path / "s.sqlite")
    with Store(url) as store:
        first, _agreement = Records(store).import_yrpx(real, None, None)
        assert not first.skipped
    _retitle(url, first.id)
    with Store(url) as store:
        records = Records(store)
        anew, _agreement = records.import_yrpx(real, None, None)
        assert not anew.skipped and anew.id != first.id
        again, _agreement = records.import_yrpx(real, None, None)
        assert again.skipped and again.id == anew.id
