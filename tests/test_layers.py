"""The layers as a contract (issue 21): ``lint-imports`` checks pyproject.toml's import-linter
contracts on the package as it is (faces -> application -> store, files, importers -> rules ->
events, state; the store's modules: reading -> verifying, listing, postgres -> committing ->
writing -> opening -> records; no import cycles between the modules of a package), so a face that reaches past
the application, or a module that imports its way back up, fails the suite."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_hold():
    linter = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}           # this checkout's package, not an installed one
    result = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    contracts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").count("[[tool.importlinter.contracts]]")
    assert contracts >= 3                                   # the layers, the store's own layers, no cycles
    assert f"Contracts: {contracts} kept, 0 broken." in result.stdout
