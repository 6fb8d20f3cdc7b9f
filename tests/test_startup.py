"""Start-up (issue 25): a command imports only what it uses, and the match's kinds are known
wherever a match is read, whatever was imported first. Nothing here is timed (``bench/startup.py``
measures it); each test looks at which modules a fresh process has loaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT

HEAVY = ("ygoreplay.events", "ygoreplay.rules", "ygoreplay.store", "ygoreplay.service", "ygoreplay.match.events",
         "ygoreplay.signing", "rich", "textual", "fastapi", "msgpack", "eventsourcing", "cryptography")


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (this checkout's package)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_help_loads_no_service_ui_signing_store_or_event_vocabulary():
    loaded = loaded_after("from ygoreplay.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    assert "click" in loaded
    assert not {name for name in loaded if name.split(".")[0] in HEAVY or name in HEAVY}


def test_importing_the_package_loads_nothing_until_a_name_is_used():
    loaded = loaded_after("import ygoreplay")
    assert not {name for name in loaded if name.startswith("ygoreplay.")}
    loaded = loaded_after("from ygoreplay import CardDB")
    assert "ygoreplay.cards" in loaded and "ygoreplay.match.stream" in loaded


def test_check_of_a_duel_loads_no_store_service_or_terminal_ui():
    loaded = loaded_after("from ygoreplay.cli import main\ntry:\n    main(['check', 'replays/won-by-damage.jsonl'])\n"
                          "except SystemExit as exit:\n    assert exit.code in (0, None), exit.code")
    assert "ygoreplay.rules" in loaded
    assert not {"ygoreplay.service", "ygoreplay.tui", "textual", "fastapi", "uvicorn"} & loaded


def test_match_kinds_are_known_to_whatever_reads_a_match_first():
    # a match file read by the command line, the public API, and the match modules: each registers the kinds itself
    for code in ("import json\nfrom ygoreplay import from_dict\n"
                 "from_dict(json.loads(open('replays/matches/time-phase-end-ocg.jsonl').readlines()[1]))",
                 "from ygoreplay.match.files import open_match\nfrom ygoreplay.cards import CardDB\n"
                 "open_match('replays/matches/time-phase-end-ocg.jsonl', CardDB.classic())",
                 "import ygoreplay.match.application, ygoreplay.store\n"
                 "assert 'match' in ygoreplay.store.KINDS"):
        loaded_after(code)
