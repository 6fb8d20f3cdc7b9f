"""Issue 24 attacked: the format registry, stored effect facts, the trusted decode path, the
deflated snapshots and per-process caches, the card-script reader. Each test is an attack that
broke something, kept once fixed (what held is said in the report, not tested twice)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ygoreplay.card_scripts import ScriptError, read_script, read_scripts

ROOT = Path(__file__).resolve().parent.parent


# -- the card-script reader ------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "x = a" + ".b" * 1000 + "\n",                         # no bracket nor block: nesting() says 0
    "function s.initial_effect(c)\n local e1=Effect.CreateEffect(c)\n e1:SetCode(a" + ".b" * 1000 + ")\nend\n",
])
def test_a_script_whose_expression_chains_deeper_than_the_reader_recurses_is_refused_by_name(text):
    """``a.b.b.b...`` parses (the parser loops over suffixes) but nests one node per ``.b``: the
    reader's walk recursed into it and raised RecursionError, a traceback out of ``cards update
    --scripts``, not a script listed as unreadable."""
    with pytest.raises(ScriptError, match="nested too deep"):
        read_script(text)


def test_a_folder_with_one_such_script_keeps_the_others(tmp_path):
    (tmp_path / "c1.lua").write_text("x = a" + ".b" * 1000 + "\n")
    (tmp_path / "c2.lua").write_text("function s.initial_effect(c)\n local e1=Effect.CreateEffect(c)\n"
                                     " e1:SetType(EFFECT_TYPE_IGNITION)\n c:RegisterEffect(e1)\nend\n")
    reading = read_scripts(tmp_path)
    assert [name for name, _why in reading.failed] == ["c1.lua"] and set(reading.effects) == {2}
