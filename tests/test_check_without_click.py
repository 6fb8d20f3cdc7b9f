"""``ygoreplay check FILE`` (``--json``) is run by the launcher without importing click (issue 25)
only where click would print the very same bytes: stdout, stderr and the exit code are compared
with click's own for every sample duel (legal, illegal, witnessed, a view's), files click or the
reader refuses, files of other formats, names that need escaping, in every language and in
several environments, on a closed pipe and a full disk."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_help_page import CLICK, LANGUAGES, LAUNCHER, environment, run

REPLAYS = ROOT / "replays"
#: Every JSON Lines sample: legal, illegal, witnessed, a view's record, matches (click's command).
SAMPLES = sorted([*REPLAYS.glob("*.jsonl"), *REPLAYS.glob("illegal/*.jsonl"), *REPLAYS.glob("matches/*.jsonl")])
SAMPLES_OF = {folder: [s for s in SAMPLES if s.parent == folder] for folder in {s.parent for s in SAMPLES}}


def both(args: list, env: dict[str, str], cwd: Path = ROOT) -> tuple[tuple[bytes, bytes, int], tuple[bytes, bytes, int]]:
    """What the launcher and click alone print and exit with for ``ygoreplay check ARGS``."""
    argv = ["check", *args]
    results = []
    for side in (LAUNCHER, CLICK):
        done = subprocess.run([*side, *argv], cwd=cwd, env=env, capture_output=True, timeout=120)
        results.append((done.stdout, done.stderr, done.returncode))
    return results[0], results[1]


def imported(args: list[str]) -> set[bytes]:
    """The modules ``ygoreplay ARGS`` imports (the command ends without the interpreter's
    teardown: the import log says)."""
    _, err, _ = run([sys.executable, "-X", "importtime", *LAUNCHER[1:], *args], environment())
    return {line.split(b"|")[-1].strip() for line in err.splitlines() if line.startswith(b"import time:")}


def test_check_of_a_json_lines_file_imports_no_click_and_no_inspect():
    sample = str(REPLAYS / "won-by-damage.jsonl")
    for args in (["check", sample], ["check", "--json", sample], ["check", sample, "--json"],
                 ["check", str(REPLAYS / "illegal" / "second-normal-summon.jsonl")]):
        modules = imported(args)
        assert b"dataclasses" in modules and not modules & {b"click", b"inspect"}, args
    for args in (["check", sample, "--lang", "ja"], ["check", str(REPLAYS / "won-by-damage.judge.ygr")],
                 ["check", str(REPLAYS)], ["check", sample, "--cards", sample]):
        assert b"click" in imported(args), args


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: str(p.relative_to(REPLAYS)))
def test_every_sample_is_checked_as_click_checks_it(sample):
    """Each sample as text and as JSON; the option after the file as well, for the first sample
    of each folder (where it goes does not change what is read, only how it is parsed)."""
    env = environment(LANG="ja_JP.UTF-8")
    first = sample == min(SAMPLES_OF[sample.parent])
    for args in ([str(sample)], ["--json", str(sample)], *([[str(sample), "--json"]] if first else [])):
        ours, clicks = both(args, env)
        assert ours == clicks, args


@pytest.mark.parametrize("language", LANGUAGES)
def test_check_speaks_as_click_does_in_every_language(language):
    for sample in ("won-by-damage.jsonl", "illegal/hand-over-the-limit.jsonl", "witnessed-illegal-play.jsonl"):
        ours, clicks = both([str(REPLAYS / sample)], environment(YGOREPLAY_LANG=language))
        assert ours == clicks, sample
        assert ours[0]                                    # something was said


@pytest.mark.parametrize("changes", [
    {"LANG": "zh_TW.UTF-8"}, {"LANGUAGE": "ko:en", "LANG": "C"}, {"LANG": "C"}, {"YGOREPLAY_LANG": "nonsense"},
    {"PYTHONIOENCODING": "latin-1"}, {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "utf-8:strict"},
    {"_YGOREPLAY_COMPLETE": "bash_complete", "COMP_WORDS": "ygoreplay check", "COMP_CWORD": "1"},
])
def test_check_answers_as_click_in_any_environment(changes):
    for sample in ("won-by-damage.jsonl", "illegal/wrong-battle-damage.jsonl"):
        ours, clicks = both([str(REPLAYS / sample)], environment(**changes))
        assert ours == clicks, sample


def test_files_refused_or_of_other_formats_are_answered_as_click_answers_them(tmp_path):
    sample = (REPLAYS / "witnessed-illegal-play.jsonl").read_bytes()
    files = {"empty.jsonl": b"", "comments.jsonl": b"# nothing\n", "bad.jsonl": b'{"kind": \n',
             "garbage.jsonl": bytes(range(256)), "half.jsonl": sample[: len(sample) // 2],
             "ansi\x1b[31m\u202e.jsonl": sample, "check": sample}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    odd = os.fsencode(tmp_path) + b"/undecodable\xff.jsonl"
    Path(os.fsdecode(odd)).write_bytes(sample)
    shutil.copy(REPLAYS / "won-by-damage.judge.ygr", tmp_path / "replay.jsonl")   # a replay, misnamed
    (tmp_path / "folder.jsonl").mkdir()
    env = environment(LANG="ko_KR.UTF-8")
    cases = [[name] for name in files] + [
        [odd], ["replay.jsonl"], ["folder.jsonl"], ["missing.jsonl"], ["-"], [""], ["--json"], ["check", "check"],
        ["--json", "--json", "check"], ["--", "check"], ["check", "--lang", "ja"],
        [str(REPLAYS / "won-by-damage.judge.ygr")], [str(REPLAYS / "matches" / "duels")]]
    for args in cases:
        ours, clicks = both(args, env, cwd=tmp_path)
        assert ours == clicks, args

def test_a_reader_that_left_or_a_full_disk_ends_it_as_click_does():
    sample = str(REPLAYS / "won-by-damage.jsonl")
    results = []
    for side in (LAUNCHER, CLICK):
        read, write = os.pipe()
        os.close(read)
        process = subprocess.Popen([*side, "check", sample], cwd=ROOT, env=environment(), stdout=write,
                                   stderr=subprocess.PIPE)
        os.close(write)
        closed = (process.stderr.read(), process.wait(timeout=120))
        with open("/dev/full", "wb") as full:
            done = subprocess.run([*side, "check", sample], cwd=ROOT, env=environment(), stdout=full,
                                  stderr=subprocess.PIPE, timeout=120)
        results.append((closed, (done.stderr, done.returncode)))
    assert results[0] == results[1]
    assert results[0][1][1] == 2                          # cannot write the output


#: ``ygoreplay ARGS`` by the launcher (``launcher``) or by click alone, with Ctrl-C pressed as the
#: module ``sys.argv[1]`` is imported.
_INTERRUPTED_AT_IMPORT = """import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == sys.argv[1]:
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupt())
if sys.argv[2] == "launcher":
    from ygoreplay.launcher import run
    run(sys.argv[3:], "ygoreplay")
else:
    from ygoreplay.cli import main
    main(sys.argv[3:], prog_name="ygoreplay")
"""


@pytest.mark.parametrize("module", ["dataclasses", "ygoreplay.checking", "ygoreplay.jsonl"])
def test_ctrl_c_while_check_imports_what_it_needs_is_answered_as_click_answers_it(module):
    sample = str(REPLAYS / "won-by-damage.jsonl")
    ours, clicks = (run([sys.executable, "-c", _INTERRUPTED_AT_IMPORT, module, side, "check", sample], environment())
                    for side in ("launcher", "click"))
    assert ours == clicks == (b"", b"interrupted\n", 130)
