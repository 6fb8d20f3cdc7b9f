"""Fold every real EDOPro replay of a folder with the effect facts of the card scripts, and report
what the rules that read them (``rules.effects``, ``rules.timing``) called.

Run from the repository root, with a local scripts folder (an EDOPro install's ``script/`` or a
CardScripts checkout: never part of this repository)::

    python bench/effects_real.py --scripts ~/ProjectIgnis/script            # ../shared/real-replays/edopro
    python bench/effects_real.py --scripts DIR some/folder -v               # list each call
    python bench/effects_real.py --scripts DIR --quick                      # the first 5 files (CI)

Only the scripts of the cards the replays hold are read. An imported duel is stored without
effect facts (``import`` judges it with the card facts alone); this folds it again with them, as
``check --cards`` folds a JSON Lines duel, so a rule that reads them and calls a play the engine
allowed shows here. Prints the files, the activations, the cards with facts, the violations by
rule with and without the facts, and the time spent reading scripts and folding.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

from ygoreplay.card_scripts import ScriptError, read_script
from ygoreplay.rules import audit
from ygoreplay.yrpx import YrpxError, import_yrpx

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "real-replays" / "edopro"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--scripts", type=Path, required=True, help="a folder of cNNNN.lua card scripts")
    parser.add_argument("-v", "--verbose", action="store_true", help="list each violation")
    parser.add_argument("--quick", action="store_true", help="the first 5 files: does it run (CI)")
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    scripts = {int(p.stem[1:]): p for p in args.scripts.rglob("c*.lua") if p.stem[1:].isdigit()}
    imported = []
    for path in sorted(args.folder.iterdir())[:5 if args.quick else None]:
        try:
            imported.append((path.name, import_yrpx(path)))
        except YrpxError:
            continue
    start = time.perf_counter()
    alias = {code: result.cards[code].alias for _, result in imported for code in result.cards}
    codes = set(alias)
    facts = {}
    for code in sorted(codes):
        path = scripts.get(code) or scripts.get(alias[code])
        try:
            found = read_script(path.read_text(encoding="utf-8", errors="replace")) if path else ()
        except ScriptError:
            found = ()
        if found:
            facts[code] = found
    read = time.perf_counter() - start
    start = time.perf_counter()
    without, with_facts, activations, listed = collections.Counter(), collections.Counter(), 0, []
    for name, result in imported:
        activations += sum(1 for e in result.events if e.kind == "activated")
        without.update(v.rule for v in audit(result.events, result.cards).violations)
        report = audit(result.events, result.cards.with_effects({c: f for c, f in facts.items() if c in result.cards}))
        with_facts.update(v.rule for v in report.violations)
        listed += [(name, v.index, v.rule, v.message) for v in report.violations]
    folded = time.perf_counter() - start
    print(f"files {len(imported)}, activations {activations}, cards {len(codes)}, with effect facts {len(facts)}")
    print(f"violations without the facts: {dict(without) or 'none'}")
    print(f"violations with the facts:    {dict(with_facts) or 'none'}")
    print(f"scripts read in {read:.1f} s, folded twice in {folded:.1f} s")
    if args.verbose:
        for name, index, rule, message in listed:
            print(f"{name} #{index} {rule} {message}")
    return 1 if with_facts else 0


if __name__ == "__main__":
    sys.exit(main())
