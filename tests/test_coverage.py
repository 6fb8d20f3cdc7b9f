"""The coverage table (ygoreplay/rules/coverage.py) stays true to the code, the tests and RULES.md.

The conventions checked here are stated in the table module's docstring: the code raises an ID
when a string constant in the package is exactly that ID; a test cites an ID by its name
(``test_sum_04_...``, ``test_win_01_02_04_...``, ``test_dmg_01_to_09_...``) or its docstring
(``SUM-04``, ``DMG-01..09``); the illegal test spells the ID as a string.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, shared_path
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.rules import coverage
from ygoreplay.rules.coverage import ENFORCED, ID_PATTERN, RULES, STATUSES, TABLE

PACKAGE = ROOT / "ygoreplay"
TESTS = ROOT / "tests"
SECTIONS = {rule.section for rule in TABLE}
_DOC_ID = re.compile(r"\b([A-Z]+)-(\d{2})(?:\.\.(\d{2}))?\b")


def _spelled(node: ast.AST) -> set[str]:
    """Every string constant under ``node`` that is exactly a rule ID."""
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and ID_PATTERN.fullmatch(n.value)}


@cache
def raised() -> dict[str, frozenset[str]]:
    """Rule ID -> the package modules (relative to ygoreplay/) whose code spells it."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module in ("rules/coverage.py", "yrpx/authority.py"):   # the table; the rules an effect sets aside
            continue
        for rule_id in _spelled(ast.parse(path.read_text(encoding="utf-8"))):
            found.setdefault(rule_id, set()).add(module)
    return {rule_id: frozenset(modules) for rule_id, modules in found.items()}


def name_cites(name: str) -> set[str]:
    """IDs a test name carries: ``sum_04``, ``win_01_02_04`` (one prefix, several numbers),
    ``dmg_01_to_09`` (a range)."""
    words, ids = name.split("_"), set()
    prefix, last, i = None, None, 0
    while i < len(words):
        word = words[i]
        if word.upper() in SECTIONS:
            prefix, last = word.upper(), None
        elif prefix and re.fullmatch(r"\d{2}", word):
            last = int(word)
            ids.add(f"{prefix}-{word}")
        elif prefix and word == "to" and last is not None and i + 1 < len(words) \
                and re.fullmatch(r"\d{2}", words[i + 1]):
            end = int(words[i + 1])
            ids.update(f"{prefix}-{n:02d}" for n in range(last, end + 1))
            last, i = end, i + 1
        else:
            prefix, last = None, None
        i += 1
    return ids


def doc_cites(doc: str | None) -> set[str]:
    """IDs a docstring names: ``SUM-04``, or a range ``DMG-01..09``."""
    ids = set()
    for prefix, first, last in _DOC_ID.findall(doc or ""):
        ids.update(f"{prefix}-{n:02d}" for n in range(int(first), int(last or first) + 1))
    return ids


@dataclass(frozen=True)
class CitedTest:
    name: str
    spelled: frozenset[str]
    cites: frozenset[str]


@cache
def indexed_tests() -> dict[str, CitedTest]:
    """``tests/FILE::NAME`` -> what the test cites and spells. A ``parametrize`` list bound to a
    module-level name counts as part of the test that uses it."""
    found: dict[str, CitedTest] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {target.id: _spelled(node) for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                spelled = _spelled(node)
                for decorator in node.decorator_list:
                    for n in ast.walk(decorator):
                        if isinstance(n, ast.Name):
                            spelled |= named.get(n.id, set())
                cites = name_cites(node.name) | doc_cites(ast.get_docstring(node))
                found[f"tests/{path.name}::{node.name}"] = CitedTest(node.name, frozenset(spelled), frozenset(cites))
    return found


# -- the conventions themselves -----------------------------------------------------------------

def test_test_names_and_docstrings_cite_ids_as_the_convention_says() -> None:
    assert name_cites("test_sum_04_tributes_by_level") == {"SUM-04"}
    assert name_cites("test_win_01_02_04_the_duel_ends") == {"WIN-01", "WIN-02", "WIN-04"}
    assert name_cites("test_dmg_01_to_03_table") == {"DMG-01", "DMG-02", "DMG-03"}
    assert name_cites("test_log_04_log_07_chain") == {"LOG-04", "LOG-07"}
    assert name_cites("test_nis_03_battle_11_log_05_refused") == {"NIS-03", "BATTLE-11", "LOG-05"}
    assert name_cites("test_two_turns_in_a_row_04") == set()          # a number needs its prefix
    assert doc_cites("DMG-01..03, SUM-04: text") == {"DMG-01", "DMG-02", "DMG-03", "SUM-04"}
    assert doc_cites(None) == set()


def test_the_scan_finds_the_ids_the_rules_raise() -> None:
    found = raised()
    assert found["SUM-04"] == {"rules/summon.py"}
    assert found["DECK-01"] == {"decks.py", "rules/setup.py"}
    assert "CONF-01" not in found                       # named in comments only, never raised


# -- the table against the code -----------------------------------------------------------------

def test_every_id_the_code_raises_has_an_enforced_row_naming_its_modules() -> None:
    problems = []
    for rule_id, modules in sorted(raised().items()):
        rule = RULES.get(rule_id)
        where = " ".join(sorted(modules))
        if rule is None:
            problems.append(f"{rule_id}: raised in {where} but has no row; add enforced({rule_id!r}, ...)")
        elif rule.status != ENFORCED:
            problems.append(f"{rule_id}: raised in {where} but its row says {rule.status!r}")
        elif set(rule.where) != modules:
            problems.append(f"{rule_id}: raised in {where}, but its row names {' '.join(rule.where)}")
    assert not problems, "\n".join(problems)


def test_every_enforced_row_is_raised_somewhere() -> None:
    found = raised()
    stale = [rule.id for rule in TABLE if rule.status == ENFORCED and rule.id not in found]
    assert not stale, f"enforced rows no code raises: {stale}"


def test_every_enforced_row_names_a_legal_and_an_illegal_test() -> None:
    known, problems = indexed_tests(), []
    for rule in TABLE:
        if rule.status != ENFORCED:
            continue
        legal, illegal = known.get(rule.legal), known.get(rule.illegal)
        if legal is None:
            problems.append(f"{rule.id}: legal test {rule.legal} does not exist")
        elif rule.id not in legal.cites:
            problems.append(f"{rule.id}: legal test {rule.legal} does not cite it (name or docstring)")
        elif "refuse" in legal.name:
            problems.append(f"{rule.id}: legal test {rule.legal} is named as a refusal")
        if illegal is None:
            problems.append(f"{rule.id}: illegal test {rule.illegal} does not exist")
        elif rule.id not in illegal.spelled:
            problems.append(f"{rule.id}: illegal test {rule.illegal} never spells {rule.id!r} (the violation it expects)")
        if rule.legal == rule.illegal:
            problems.append(f"{rule.id}: one test {rule.legal} is named as both the legal and the illegal one")
    assert not problems, "\n".join(problems)


def test_rows_are_well_formed() -> None:
    assert len(RULES) == len(TABLE), "an ID has two rows"
    for rule in TABLE:
        assert ID_PATTERN.fullmatch(rule.id), rule.id
        assert rule.status in STATUSES, rule
        assert rule.summary and "\n" not in rule.summary and rule.summary.endswith("."), rule.id
        if rule.status == ENFORCED:
            assert rule.where and not rule.why and rule.legal and rule.illegal, rule.id
            assert all((PACKAGE / module).is_file() for module in rule.where), rule.where
        else:
            assert rule.why and not rule.where and not rule.legal and not rule.illegal, rule.id
    assert {rule.id for rule in TABLE if rule.status == coverage.CHOICE} == \
        {rule.id for rule in TABLE if rule.section == "CONF"}, "choice rows are the CONF-nn entries"


# -- the table against RULES.md -----------------------------------------------------------------

def catalogue_ids(text: str) -> list[str]:
    """Every ID RULES.md defines: a bullet ``- **SUM-04**`` or a table row ``| **DMG-01** ...``."""
    return re.findall(r"^\s*(?:-|\|)\s*\*\*([A-Z]+-\d{2})\b", text, flags=re.MULTILINE)


def test_every_catalogue_id_has_a_row_and_no_row_is_unknown() -> None:
    defined = catalogue_ids(shared_path("rules", "RULES.md").read_text(encoding="utf-8"))
    assert len(defined) == len(set(defined)) and len(defined) > 250
    rows = [rule.id for rule in TABLE if rule.section not in coverage.OWN_SECTIONS]
    missing = [rule_id for rule_id in defined if rule_id not in RULES]
    unknown = [rule_id for rule_id in rows if rule_id not in set(defined)]
    assert not missing, f"RULES.md IDs without a row: {missing}"
    assert not unknown, f"rows naming no RULES.md ID: {unknown}"
    assert rows == defined, "rows follow the order of RULES.md"


def test_catalogue_ids_reads_bullets_and_table_rows() -> None:
    text = "- **GEN-01** — a rule\n| **DMG-01** ATK > ATK | x |\n- see GEN-02 later\n  - **SUB-01** nested\n"
    assert catalogue_ids(text) == ["GEN-01", "DMG-01", "SUB-01"]


# -- the README ---------------------------------------------------------------------------------

def test_the_readme_list_of_rules_is_generated_from_the_table() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert coverage.readme_section() in text, \
        "README.md is out of date: run `python -m ygoreplay.rules.coverage --readme`"


def test_the_readme_generator_rewrites_only_its_section(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{coverage.README_BEGIN}\nold list\n{coverage.README_END}\n\n## After\n")
    assert coverage.main(["--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# Title\n\n") and text.endswith("\n\n## After\n") and "old list" not in text
    assert coverage.readme_section() in text and "**Enforced** (" in text
    assert coverage.rewrite_readme(readme) is False              # already up to date
    readme.write_text("# no markers\n")
    with pytest.raises(InputError, match="no rules coverage markers"):
        coverage.rewrite_readme(readme)
    assert coverage.main(["--readme", str(readme)]) == 2 and readme.read_text() == "# no markers\n"
    assert coverage.main([]) == 2


# -- ygoreplay rules ----------------------------------------------------------------------------

def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_rules_command_explains_one_rule() -> None:
    result = run("rules", "sum-04")
    assert result.exit_code == 0
    line, = result.output.splitlines()
    assert line.startswith("SUM-04 Tributes by Level") and "enforced in rules/summon.py" in line
    assert "tests/test_rules_summon.py::test_sum_04_tributes_by_level" in line
    not_checked = run("rules", "CONF-05").output
    assert "choice:" in not_checked and "CONF-05" in not_checked


def test_rules_command_lists_a_section_or_everything() -> None:
    section = run("rules", "SUM").output.splitlines()
    assert [line.split()[0] for line in section] == [r.id for r in TABLE if r.section == "SUM"]
    everything = run("rules")
    assert everything.exit_code == 0
    lines = everything.output.splitlines()
    assert len(lines) == len(TABLE) + 1 and lines[-1].startswith(f"{len(TABLE)} rules: ")
    assert f"{coverage.counts()[ENFORCED]} enforced" in lines[-1]


def test_rules_command_json() -> None:
    data = json.loads(run("rules", "DECK-08", "--json").output)
    assert data == {"rules": [RULES["DECK-08"].to_dict()], "counts": coverage.counts()}
    assert data["rules"][0]["where"] == ["decks.py"] and data["rules"][0]["status"] == "enforced"
    why = json.loads(run("rules", "DECK-14", "--json").output)["rules"][0]
    assert why["status"] == "outside the record" and why["why"] and "where" not in why


def test_rules_command_refuses_an_unknown_id() -> None:
    for query in ("SUM-99", "NOPE"):
        result = run("rules", query)
        assert result.exit_code == 2
        assert f"no rule {query!r}" in result.output and "Traceback" not in result.output


def test_check_points_at_the_rules_command() -> None:
    result = run("check", str(ROOT / "replays" / "illegal" / "summon-without-tributes.jsonl"))
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == "what a rule says and where it is checked: ygoreplay rules SUM-04"
    legal = run("check", str(ROOT / "replays" / "won-by-damage.jsonl"))
    assert "ygoreplay rules" not in legal.output
