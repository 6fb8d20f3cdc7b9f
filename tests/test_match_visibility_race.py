"""A duel made private while a public match links it (issue 25, attack 25bj's race, twenty-third pass).

``Records.set_visibility`` checked that the duel was in no match wider than the change, then wrote
its access record; ``match.commands.record`` judged the duel's access, then wrote the link. With
both reads before both writes a private duel was a game of a public match, whose file and follow
show its events to everyone. The link now writes the next version of the duel's access (the one
it judged) in its transaction, so the later of the two writes meets the store's unique (stream,
version): a change of visibility reads the match again and is refused, a link judges the duel again
and is refused. Each test forces one order of the four steps, on one store.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ygoreplay.access import Access
from ygoreplay.application import Records
from ygoreplay.errors import ConflictError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.live import Hub
from ygoreplay.match import commands
from ygoreplay.match.application import match_stream
from ygoreplay.store import Store

OPENING = read_events(Path(__file__).resolve().parent.parent / "replays" / "matches" / "two-nil.jsonl")[:3]
ORGANISER = commands.Writer("organiser")
STARTED = {"kind": "game_started", "game": 1, "first_player": 0, "chosen_by": 0}


def _public(store: Store) -> tuple[str, str]:
    """A public match and a public duel free to link into it."""
    spec, _tokens = match_stream(list(OPENING), "M", "public")
    match = str(store.record(**spec)[0])
    duel = store.create_duel("table 1")
    store.attach(duel, "access", Access("public").to_dict())
    return match, duel


def _link(store: Store, match: str, duel: str):
    return commands.record(Hub(store), match, ORGANISER, [from_dict({**STARTED, "duel": duel}, "ev")], 3)


def _never_private_in_public(store: Store, match: str, duel: str) -> None:
    visibility = Access.from_dict(store.attachment(duel, "access")).visibility
    assert not (store.match_of(duel) == match and visibility == "private"), \
        "a private duel is a game of a public match: its events shown to everyone"


def test_a_link_written_between_the_checks_and_the_write_of_a_change_to_private_refuses_the_change(tmp_path,
                                                                                                    monkeypatch):
    """set_visibility read no match, the link landed, then set_visibility wrote: refused now."""
    with Store(str(tmp_path / "s.sqlite")) as store:
        match, duel = _public(store)
        insert, linked = store._insert, []

        def linked_first(rows, *args, **kwargs):       # just before set_visibility writes its access
            if not linked and str(rows[0].originator_id).endswith("/access"):
                linked.append(_link(store, match, duel))
            return insert(rows, *args, **kwargs)

        monkeypatch.setattr(store, "_insert", linked_first)
        with pytest.raises(ConflictError, match="never narrower than its match"):
            Records(store).set_visibility(duel, "private")
        assert isinstance(linked[0], commands.Written) and store.match_of(duel) == match
        _never_private_in_public(store, match, duel)


def test_a_change_to_private_written_between_a_links_check_and_its_write_refuses_the_link(tmp_path, monkeypatch):
    """The link judged the duel public, set_visibility wrote private, then the link wrote: refused now."""
    with Store(str(tmp_path / "s.sqlite")) as store:
        match, duel = _public(store)
        checked, changed = commands.linkable, []

        def private_after(hub, writer, duel_id, against):   # just after the link judged the duel
            found = checked(hub, writer, duel_id, against)
            if not changed:
                changed.append(Records(store).set_visibility(duel_id, "private"))
            return found

        monkeypatch.setattr(commands, "linkable", private_after)
        with pytest.raises(commands.Refused) as refused:
            _link(store, match, duel)
        assert refused.value.where == "duel" and "private" in refused.value.message
        assert store.match_of(duel) is None
        _never_private_in_public(store, match, duel)
