"""A fresh ``show DUEL --at N`` compiles no source text (issue 25): a process's first ``compile``
builds the interpreter's AST types (4% of the command), and ``typing.NamedTuple`` called it for
each field's annotation (a string, with ``from __future__ import annotations``); the named tuples
on a seek's path are ``collections.namedtuple``'s, and behave as before. ``Source`` and the
signing classes write their methods when first used (``lazy_dataclass``), as the others do, and
the state's copier is written on a process's first copy.
Nothing here is timed (``bench/README.md`` measures it)."""
from __future__ import annotations

from conftest import ROOT
from test_lazy_kinds import _run
from ygoreplay import read_events
from ygoreplay.store import Store

#: Run in a fresh interpreter: what a command that shows a stored board imports, then the board,
#: with every ``compile`` of a text recorded (not the import system's of a module's bytes: this machine
#: may set ``PYTHONDONTWRITEBYTECODE``).
_SHOW = """
import builtins, sys
compiled = []
real = builtins.compile
def compile(source, *args, **kwargs):
    if isinstance(source, str):
        compiled.append(source)
    return real(source, *args, **kwargs)
builtins.compile = compile
from ygoreplay.cli import boards, dataclasses_without_inspect
dataclasses_without_inspect()
from ygoreplay.render import render
from ygoreplay.source import stored_board
from ygoreplay.store import Store
with Store(sys.argv[1], readonly=True) as store:
    at, event, state = stored_board(store, sys.argv[2], int(sys.argv[3]))
    render(state, "", width=80)
assert compiled == [], compiled
print("ok")
"""

#: A seek, then a copy of its state: the copier is written by the copy, not before.
_COPY = """
import sys
from ygoreplay import state as states
from ygoreplay.source import stored_board
from ygoreplay.store import Store
with Store(sys.argv[1], readonly=True) as store:
    at, event, state = stored_board(store, sys.argv[2], int(sys.argv[3]))
assert states._assign_state.__name__ == "_assign_state", states._assign_state
copied = state.copy()
assert states._assign_state.__name__ == "assign" and copied.to_data() == state.to_data()
copied.become(state)
assert copied.to_data() == state.to_data()
print("ok")
"""


def _stored(tmp_path) -> tuple[str, str, str]:
    """A store holding the sample duel: its URL, the duel, an event near its end."""
    sample = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    store = str(tmp_path / "duels.sqlite")
    with Store(store) as st:
        duel, count, _ = st.record(sample, "won")
    return store, duel, str(count - 3)


def test_a_seek_compiles_no_source_text(tmp_path):
    assert _run(_SHOW, *_stored(tmp_path)).strip() == "ok"


def test_a_seek_writes_no_state_copier_and_a_copy_is_whole(tmp_path):
    assert _run(_COPY, *_stored(tmp_path)).strip() == "ok"


def test_the_named_tuples_of_a_seek_behave_as_typing_s():
    import pickle
    from ygoreplay.decks import Problem
    from ygoreplay.events import Loc, Opening
    from ygoreplay.rules.summon import Material
    from ygoreplay.store import Vouched, _Row
    expected = {Loc: ("controller", "zone", "index"), Opening: ("card", "code", "nonce"),
                Problem: ("rule", "message"), Vouched: ("header", "status"),
                _Row: ("originator_id", "originator_version", "topic", "state"),
                Material: ("id", "name", "zone", "controller", "face_up", "level", "tuner", "token", "link_rating",
                           "unknown")}
    for cls, fields in expected.items():
        assert cls._fields == fields and tuple(cls.__annotations__) == fields
        assert not hasattr(cls(*range(len(fields))), "__dict__")
        # typing.NamedTuple made each a ForwardRef, compiled at import
        assert all(type(value) is str for value in cls.__annotations__.values())
    assert Loc(0, "hand") == (0, "hand", None) and Loc(0, "hand").to_wire() == [0, "hand"]
    assert Opening("p0.h1", 5) == ("p0.h1", 5, "") and Material._field_defaults == {"unknown": False}
    assert repr(Loc(1, "mzone", 2)) == "Loc(controller=1, zone='mzone', index=2)"
    assert pickle.loads(pickle.dumps(Loc(1, "mzone", 2))) == Loc(1, "mzone", 2)
    assert type(pickle.loads(pickle.dumps(Opening("a", 1)))) is Opening
    assert Loc(1, "mzone")._replace(index=3) == Loc(1, "mzone", 3) and str(Problem("DECK-01", "x")) == "DECK-01 x"


def test_source_and_the_signing_classes_write_their_methods_when_first_used():
    from ygoreplay import lazy_dataclass, signing, source
    code = """
from ygoreplay import lazy_dataclass, signing, source
print(all(isinstance(vars(cls).get("__eq__"), lazy_dataclass._Deferred)
          for cls in (source.Source, signing.PublicKey)))
"""
    assert _run(code).strip() == "True"
    for cls in (source.Source, signing.PublicKey):
        assert getattr(cls, "dataclass", None) is None and "__dataclass_params__" in vars(cls)
    assert signing.dataclass is source.dataclass is lazy_dataclass.dataclass
