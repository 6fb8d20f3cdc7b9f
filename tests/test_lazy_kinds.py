"""A duel's event kinds are made the first time they are used (``events._lazy``, issue 25: making
all 45 was a tenth of a fresh ``show DUEL --at N``, which meets five or so): importing the fold,
the log's sentences, the board and the store makes none; a seek makes the kinds it folds; and a
kind, however it is first asked for (by its class's name, by its kind, all of them), is one class
for good, which behaves as it did."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import pytest

from conftest import ROOT
from ygoreplay import events, read_events
from ygoreplay.kinds import PerKind
from ygoreplay.store import Store

#: Run in a fresh interpreter: what a command that shows a stored board imports, then the board.
_SHOW = """
import json, sys
from ygoreplay import events
from ygoreplay.cli import boards
from ygoreplay.render import render
from ygoreplay.rules import History
from ygoreplay.source import stored_board
from ygoreplay.store import Store
from ygoreplay import sentences
classes = {kind: "".join(w.capitalize() for w in kind.split("_")) for kind in events.kind_names()}
on_import = [kind for kind, name in classes.items() if name in vars(events)]
with Store(sys.argv[1], readonly=True) as store:
    at, event, state = stored_board(store, sys.argv[2], int(sys.argv[3]))
    render(state, "", width=80)
made = [kind for kind, name in classes.items() if name in vars(events)]
print(json.dumps([on_import, made, len(classes)]))
"""

_THREADS = """
import threading
from ygoreplay import events
got = []
start = threading.Barrier(8)
def ask(i):
    start.wait()
    got.append(events.kind_class("card_moved") if i % 2 else getattr(events, "CardMoved"))
threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
assert len(got) == 8 and len({id(cls) for cls in got}) == 1, got
assert got[0] is events.EVENT_TYPES["card_moved"] is events.CardMoved
print("ok")
"""


def _run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT), "YGOREPLAY_RESIDENT": "off"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_seek_makes_only_the_kinds_it_folds(tmp_path):
    sample = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    store = str(tmp_path / "duels.sqlite")
    with Store(store) as st:
        duel, count, _ = st.record(sample, "won")
    on_import, made, every = json.loads(_run(_SHOW, store, duel, str(count - 3)))
    assert on_import == []
    assert made and set(made) <= {ev.kind for ev in sample} and len(made) < every


def test_two_threads_asking_for_a_kind_get_one_class():
    assert _run(_THREADS).strip() == "ok"


def test_a_kind_is_one_class_however_it_is_first_asked_for():
    cls = events.kind_class("card_moved")
    assert cls is events.CardMoved is events.EVENT_TYPES["card_moved"] is events.made("card_moved")
    assert cls.__qualname__ == "CardMoved" and cls.__module__ == "ygoreplay.events"
    assert events.DuelStarted.wire_version.__qualname__ == "DuelStarted.wire_version"
    ev = events.from_dict({"kind": "card_moved", "card": "p0.m1", "to": [0, "gy"], "reason": "destroyed"})
    assert type(ev) is cls and pickle.loads(pickle.dumps(ev)) == ev and repr(ev).startswith("CardMoved(")
    assert list(events.EVENT_TYPES) == events.kind_names() and events.is_kind("card_moved")
    assert events.kind_class("no_such_kind") is None and not events.is_kind("no_such_kind")
    with pytest.raises(AttributeError):
        events.NoSuchKind                    # noqa: B018
    with pytest.raises(events.EventFormatError, match="unknown event kind 'no_such_kind'"):
        events.from_dict({"kind": "no_such_kind"})


def test_a_table_by_kind_name_takes_only_kinds():
    table = PerKind("test", known=events.is_kind)

    @table("card_moved", events.PhaseEntered)
    def handler(state, ev):
        return None
    assert table["card_moved"] is handler and table["phase_entered"] is handler
    with pytest.raises(TypeError, match="'card_mooved' names no event kind"):
        table("card_mooved")
    with pytest.raises(TypeError, match="names no event kind"):
        PerKind("no names")("card_moved")


def test_the_kind_names_are_a_copy_their_caller_may_change():
    """``kind_names`` gives a list of its own to each caller: one that sorts, extends or empties
    it (a schema, a help text) changes no other caller's list, nor which kinds there are."""
    names = events.kind_names()
    before = list(names)
    assert events.kind_names() is not names
    names.append("no_such_kind")
    names.remove("card_moved")
    names.reverse()
    assert events.kind_names() == before
    names.clear()
    assert events.kind_names() == before and list(events.EVENT_TYPES) == before
    assert events.is_kind("card_moved") and not events.is_kind("no_such_kind")
