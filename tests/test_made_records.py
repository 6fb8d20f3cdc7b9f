"""``lazy_dataclass.made``: the records every append makes, built with their fields at once
(issue 25, twenty-first pass), are the very records their ``__init__`` makes, and a field
missing or unknown is refused as the ``__init__`` refuses it."""
from __future__ import annotations

import dataclasses

import pytest

from ygoreplay.lazy_dataclass import made
from ygoreplay.library import EventRow, HeadRow, Seen
from ygoreplay.store import Head, Record


def _cases() -> list[tuple[type, dict]]:
    seen = Seen(turn=3, at=1_700_000_000_000, cards=(("activated", 89631139, 0),), flagged=True, back_to=None,
                rollback=False, meta=None)
    return [
        (Record, dict(position=4, event=None, recorded="2026-12-07T00:00:00.000+00:00", prev_hash=b"p" * 32,
                      hash=b"h" * 32, reverted_by=None)),
        (Head, dict(count=5, hash=b"h" * 32, header=b"d" * 32, cards=b"c" * 32, status={"turn": 2, "lp": [8000, 7000]},
                    key=b"k" * 32, signature=b"", effects=None, mac=b"m" * 32, path=None, left=0)),
        (EventRow, dict(originator_id="duel", originator_version=5, topic="activated", state=b"row", seen=seen,
                        follows=b"f" * 32)),
        (HeadRow, dict(originator_id="duel/head", originator_version=5, topic="head", state=b"anchor",
                       status={"turn": 2})),
        (Seen, dataclasses.asdict(seen) | {"cards": seen.cards}),
    ]


@pytest.mark.parametrize("cls, fields", _cases(), ids=lambda case: getattr(case, "__name__", ""))
def test_a_made_record_is_the_one_its_init_makes(cls, fields):
    built, init = made(cls, **fields), cls(**fields)
    assert type(built) is cls
    assert built == init and repr(built) == repr(init)
    assert vars(built) == vars(init)
    assert dataclasses.astuple(built) == dataclasses.astuple(init)
    assert dataclasses.replace(built) == init
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, next(iter(fields)), None)          # still frozen


def test_a_made_head_signs_and_copies_as_one_made_by_its_init():
    _cls, fields = _cases()[1]
    built, init = made(Head, **fields), Head(**fields)
    assert built.signed(b"s" * 64, b"p" * 32, 1) == init.signed(b"s" * 64, b"p" * 32, 1)
    assert built.to_dict() == init.to_dict() and built.message("duel") == init.message("duel")


@pytest.mark.parametrize("change", ["missing", "unknown"])
def test_a_field_missing_or_unknown_is_refused_naming_the_class(change):
    fields = dict(_cases()[0][1])
    if change == "missing":
        del fields["reverted_by"]
    else:
        fields["colour"] = "red"
    with pytest.raises(TypeError, match="Record"):
        made(Record, **fields)
