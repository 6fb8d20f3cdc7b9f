"""Effect facts read from card scripts (``card_scripts``): the scripts here are this project's
own, written in the shape EDOPro/ProjectIgnis scripts have (third-party scripts are never kept
in the repository); they are parsed with a real Lua parser and never run."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ygoreplay import card_install, card_scripts
from ygoreplay.card_scripts import ScriptError, nesting, read_script, read_scripts
from ygoreplay.card_sources import card_lookup
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.errors import InputError

#: A Trap whose activation may be in the Damage Step, with a "you take no damage" it registers
#: while resolving, a once-per-turn optional "if" trigger and a mandatory one cloned from it.
TRAP = """--Test Guard
local s,id=GetID()
function s.initial_effect(c)
	--Activate
	local e1=Effect.CreateEffect(c)
	e1:SetCategory(CATEGORY_NEGATE+CATEGORY_DESTROY)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetProperty(EFFECT_FLAG_DAMAGE_STEP|EFFECT_FLAG_CARD_TARGET)
	e1:SetCode(EVENT_FREE_CHAIN)
	e1:SetOperation(s.activate)
	c:RegisterEffect(e1)
	--draw when sent to the GY
	local e2=Effect.CreateEffect(c)
	e2:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_TRIGGER_O)
	e2:SetProperty(EFFECT_FLAG_DELAY)
	e2:SetCode(EVENT_TO_GRAVE)
	e2:SetCountLimit(1,{id,1})
	c:RegisterEffect(e2)
	local e3=e2:Clone()
	e3:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_TRIGGER_F)
	e3:SetCode(EVENT_REMOVE)
	c:RegisterEffect(e3)
end
function s.activate(e,tp,eg,ep,ev,re,r,rp)
	local e1=Effect.CreateEffect(e:GetHandler())
	e1:SetType(EFFECT_TYPE_FIELD)
	e1:SetCode(EFFECT_AVOID_BATTLE_DAMAGE)
	e1:SetTargetRange(1,0)
	Duel.RegisterEffect(e1,tp)
end
"""

#: A monster's Quick Effect that answers an attack ("when ... you can": no EFFECT_FLAG_DELAY).
MONSTER = """local s,id=GetID()
function s.initial_effect(c)
	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_QUICK_O)
	e1:SetRange(LOCATION_HAND)
	e1:SetCode(EVENT_PRE_DAMAGE_CALCULATE)
	c:RegisterEffect(e1)
	local e2=Effect.CreateEffect(c)
	e2:SetType(EFFECT_TYPE_FIELD+EFFECT_TYPE_TRIGGER_O)
	e2:SetCode(EVENT_SUMMON_SUCCESS)
	e2:SetCountLimit(1)
	c:RegisterEffect(e2)
end
"""


def test_each_create_effect_is_read_with_its_type_code_flags_categories_and_limit():
    activate, if_trigger, mandatory, applied = read_script(TRAP)
    assert activate == EffectFact(("activate",), "EVENT_FREE_CHAIN", ("damage_step", "card_target"),
                                  ("negate", "destroy"), condition=False)
    assert activate.kind == "activate" and activate.in_damage_step
    assert if_trigger.kind == "trigger" and not if_trigger.when_optional and not if_trigger.mandatory
    assert (if_trigger.count_limit, if_trigger.count_code) == (1, "{id,1}")
    # a clone starts from its source's facts, then its own setters win
    assert mandatory.types == ("single", "trigger_f") and mandatory.code == "EVENT_REMOVE" and mandatory.mandatory
    assert mandatory.properties == ("delay",) and mandatory.count_limit == 1 and mandatory.initial
    # an effect created while the card resolves is what it applies, not an effect of its own
    assert not applied.initial and applied.applies("EFFECT_AVOID_BATTLE_DAMAGE")


def test_a_quick_effect_answering_damage_calculation_and_a_when_trigger():
    quick, when = read_script(MONSTER)
    assert quick.kind == "quick" and quick.in_damage_step and not quick.mandatory
    assert when.kind == "trigger" and when.when_optional and when.count_limit == 1 and when.count_code == ""


#: A Pendulum Spirit monster: shared procedures declare some of its effects, the engine's calls none.
HELPED = """local s,id=GetID()
function s.initial_effect(c)
	Pendulum.AddProcedure(c)
	Spirit.AddProcedure(c,EVENT_SUMMON_SUCCESS)
	c:EnableReviveLimit()
	Duel.AddCustomActivityCounter(id,ACTIVITY_CHAIN,aux.FALSE)
	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_IGNITION)
	e1:SetCondition(aux.TargetBoolFunction(Card.IsFaceup))
	c:RegisterEffect(e1)
end
function s.helper(c)
	aux.AddUnionProcedure(c)
end
"""


def test_a_shared_procedure_initial_effect_calls_is_kept_as_a_helper_fact():
    """The effects a procedure declares are in a shared file the reader does not follow: the call
    is kept (kind ``helper``), so a rule knows the card may have more effects than it sees."""
    pendulum, spirit, ignition = read_script(HELPED)
    assert (pendulum.kind, pendulum.code) == ("helper", "Pendulum.AddProcedure")
    assert (spirit.kind, spirit.code) == ("helper", "Spirit.AddProcedure") and spirit.initial
    assert ignition.kind == "ignition"


def test_a_folder_of_scripts_and_what_could_not_be_read(tmp_path):
    (tmp_path / "official").mkdir()
    (tmp_path / "official" / "c1001.lua").write_text(TRAP)
    (tmp_path / "c1002.lua").write_text(MONSTER)
    (tmp_path / "c1003.lua").write_text("function s.initial_effect(c) local e1=\n")   # not Lua
    (tmp_path / "constant.lua").write_text("EFFECT_TYPE_ACTIVATE=0x10\n")              # not a card
    reading = read_scripts(tmp_path)
    assert (reading.files, reading.parsed, reading.effect_count) == (3, 2, 6)
    assert set(reading.effects) == {1001, 1002}
    assert [name for name, _ in reading.failed] == ["c1003.lua"] and "not Lua" in reading.failed[0][1]
    with pytest.raises(InputError, match="not a folder"):
        read_scripts(tmp_path / "c1002.lua")


def test_the_reader_is_bounded_in_size_nesting_and_time(tmp_path, monkeypatch):
    deep = "x = " + "(" * 200 + "1" + ")" * 200
    assert nesting(deep) == 200 and nesting(MONSTER) <= 3
    assert nesting("-- ((((( a comment\nx = '((('") == 0, "strings and comments do not nest"
    with pytest.raises(ScriptError, match="nested 200 deep"):
        read_script(deep)
    with pytest.raises(ScriptError, match="larger than"):
        read_script("-- " + "x" * card_scripts.MAX_SCRIPT_BYTES)
    (tmp_path / "c1.lua").write_text(MONSTER)
    (tmp_path / "c2.lua").write_text(MONSTER)
    stopped = read_scripts(tmp_path, deadline=-1)
    assert stopped.files == 0 and "2 script(s) unread" in stopped.stopped


def test_effect_facts_are_stored_with_the_installed_database_and_read_back(tmp_path):
    target = tmp_path / "cards.cdb"
    card_install.write_cdb(target, [card_install.Row(1001, 0, 0x4, 0, 0, 0, 0, 0, "Test Guard"),
                                    card_install.Row(1011, 1001, 0x4, 0, 0, 0, 0, 0, "Test Guard")], {"cards": "2"})
    scripts = tmp_path / "script"
    scripts.mkdir()
    (scripts / "c1001.lua").write_text(TRAP)
    installed, reading = card_install.add_scripts(scripts, target)
    assert installed.effects == 4 and installed.scripts == str(scripts.resolve()) and reading.parsed == 1
    lookup = card_lookup([str(target)], environment={}, installs=[])
    assert lookup.effects(1001) == read_script(TRAP)
    assert lookup.effects(1011) == read_script(TRAP), "an alternate artwork has its original's effects"
    assert lookup.effects(5) == () and lookup.subset([1001]).effects(1001) == read_script(TRAP)
    with sqlite3.connect(target) as conn:
        assert conn.execute("select count(*) from effects").fetchone() == (4,)
    # a database stored before conditions and ranges were read keeps its other facts; those are unknown
    with sqlite3.connect(target) as conn:
        conn.execute("alter table effects drop column condition")
        conn.execute("alter table effects drop column ranges")
    older = card_lookup([str(target)], environment={}, installs=[]).effects(1001)
    assert older == tuple(replace(fact, condition=None, ranges=()) for fact in read_script(TRAP))


def test_without_an_installed_database_scripts_are_refused_and_nothing_is_written(tmp_path):
    with pytest.raises(InputError, match="no card database is installed"):
        card_install.add_scripts(tmp_path, tmp_path / "cards.cdb")
    assert list(tmp_path.iterdir()) == []


def test_cards_update_scripts_on_the_command_line(tmp_path):
    home = tmp_path / "home"
    target = home / "ygoreplay" / "cards.cdb"
    card_install.write_cdb(target, [card_install.Row(1001, 0, 0x4, 0, 0, 0, 0, 0, "Test Guard")], {"cards": "1"})
    scripts = tmp_path / "script"
    scripts.mkdir()
    (scripts / "c1001.lua").write_text(TRAP)
    (scripts / "c1003.lua").write_text("local = =")
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "cards", "update", "--scripts", str(scripts)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "read 1 of 2 card scripts" in done.stdout and "4 effects of 1 cards" in done.stdout
    assert "not read: c1003.lua" in done.stdout
    status = subprocess.run([sys.executable, "-m", "ygoreplay", "cards", "status"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert "4 effect facts from the card scripts" in status.stdout


def test_a_card_db_gives_its_effects_and_keeps_them_when_merged():
    facts = read_script(MONSTER)
    db = CardDB([CardFacts(code=7, name="Seven", type=0x21, level=4)]).with_effects({7: facts})
    assert db.effects(7) == facts and db.effects(8) == ()
    assert db.merged(CardDB([CardFacts(code=8, name="Eight", type=0x11, level=4)])).effects(7) == facts


#: A Normal Trap that answers an attack declaration: no EFFECT_FLAG_DAMAGE_STEP.
WALL = """local s,id=GetID()
function s.initial_effect(c)
	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetCode(EVENT_ATTACK_ANNOUNCE)
	e1:SetCondition(function(e,tp) return Duel.GetTurnPlayer()~=tp end)
	e1:SetCategory(CATEGORY_DESTROY)
	c:RegisterEffect(e1)
end
"""


def test_check_reads_the_effect_facts_of_the_database_it_is_given(tmp_path):
    """BATTLE-09 from a script: ``check --cards`` with a database holding effect facts calls a
    Trap activated in the Damage Step that its script keeps out of it; without them, undecided."""
    import json
    plain, scripted = tmp_path / "plain.cdb", tmp_path / "scripted.cdb"
    for target in (plain, scripted):
        card_install.write_cdb(target, [card_install.Row(1002, 0, 0x4, 0, 0, 0, 0, 0, "Test Wall")], {"cards": "1"})
    (tmp_path / "script").mkdir()
    (tmp_path / "script" / "c1002.lua").write_text(WALL)
    card_install.add_scripts(tmp_path / "script", scripted)
    vorse, ox = 14898066, 5053103
    deck = [vorse] * 10
    events = [{"kind": "position_set_up", "turn": 2, "turn_player": 0, "phase": "battle", "step": "battle",
               "sides": [{"deck": deck, "mzone": [{"code": vorse, "id": "vorse", "position": "attack"}]},
                         {"deck": deck, "mzone": [{"code": ox, "id": "ox", "position": "attack"}],
                          "szone": [{"code": 1002, "id": "wall", "position": "set"}]}]},
              {"kind": "attack_declared", "player": 0, "attacker": "vorse", "target": "ox"},
              {"kind": "step_entered", "step": "damage"},
              {"kind": "activated", "player": 1, "card": "wall"}]
    duel = tmp_path / "duel.jsonl"
    duel.write_text("".join(json.dumps(e) + "\n" for e in events))
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "home")}
    runs = {name: subprocess.run([sys.executable, "-m", "ygoreplay", "check", str(duel), "--cards", str(cdb)],
                                 capture_output=True, text=True, env=env, timeout=120)
            for name, cdb in (("plain", plain), ("scripted", scripted))}
    assert runs["plain"].returncode == 0, runs["plain"].stdout + runs["plain"].stderr
    assert runs["scripted"].returncode == 1 and "#3 BATTLE-09" in runs["scripted"].stdout, runs["scripted"].stdout


#: Effects a shared procedure makes and the card registers, and one with a cost.
MADE = """local s,id=GetID()
function s.initial_effect(c)
	local e1=Fusion.CreateSummonEff(c,nil,nil,s.fextra)
	e1:SetCountLimit(1,id)
	c:RegisterEffect(e1)
	c:RegisterEffect(Ritual.CreateProc({handler=c,lvtype=RITPROC_GREATER}))
	local e2=Effect.CreateMysteruneQPEffect(c,id,CATEGORY_DRAW)
	c:RegisterEffect(e2)
	local e3=Effect.CreateEffect(c)
	e3:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_TRIGGER_F)
	e3:SetCode(EVENT_TO_GRAVE)
	e3:SetCost(s.cost)
	c:RegisterEffect(e3)
	local ge1=Effect.GlobalEffect()
	ge1:SetType(EFFECT_TYPE_FIELD+EFFECT_TYPE_CONTINUOUS)
end
"""


def test_an_effect_a_shared_procedure_makes_is_kept_as_a_helper_fact():
    """``local e1=Fusion.CreateSummonEff(...)``, ``c:RegisterEffect(Ritual.CreateProc(...))``: the
    effect is the procedure's, not read; a cost, like a condition, may keep an effect back."""
    facts = read_script(MADE)
    assert [(f.kind, f.code) for f in facts if f.kind == "helper"] == [
        ("helper", "Fusion.CreateSummonEff"), ("helper", "Ritual.CreateProc"), ("helper", "Effect.CreateMysteruneQPEffect")]
    mandatory, = facts[3:]                       # a global effect is the duel's, not the card's
    assert mandatory.mandatory and mandatory.condition is True
