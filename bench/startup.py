"""Start-up benchmark (issue 25): what a command costs before it does anything, as a ratio to a
bare interpreter.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/startup.py``
(``-r`` rounds, default 11; ``--quick`` 3). It prints figures and never fails on them.

Each round runs, in a fresh process each and in an order that rotates from round to round, a bare
``python -c pass`` and the commands ``ygoreplay --help``, ``check``, ``show`` and ``log`` of
``replays/won-by-damage.jsonl``; each command's time is divided by the bare interpreter's of the
same round, so that load on the shared machine hits both alike. The median of those per-round
ratios is printed with its spread, and as a fraction of the issue's limit (``--help`` ≤ 3×,
``check`` ≤ 6×; ``show`` and ``log`` have no limit of their own and are shown for scale), with
each command's median wall time, the same ratio in CPU time (user + system, which the machine's
load disturbs less than the wall clock) and its peak memory (max RSS of the process). ``check``,
``show`` and ``log`` run a second time in each round answered by a resident helper (``ygoreplay
resident start``, started in a folder of its own before the rounds and stopped after): their CPU
is the command's own process only (the resident's work is not in it); their wall is what the
caller waits.

The command is the ``ygoreplay`` script installed next to this interpreter (what a user runs)
when it is the launcher's and every tree measured has the launcher's ``main``, else ``python -m
ygoreplay`` (which also imports ``runpy`` and ``importlib.util``: some 3 ms); either imports the
checkout this script is in (``PYTHONPATH``). Every process runs with its bytecode cached, as an
installed package's is (``pip`` compiles it; a checkout caches it on first use):
``PYTHONDONTWRITEBYTECODE``, which this machine sets, would have every command
compile all of ygoreplay's modules anew while the interpreter's own and the dependencies' come
precompiled (a third of ``check``'s time, compiling alone). The cache is a folder of its own
(``PYTHONPYCACHEPREFIX``), filled by an untimed first run of each command.

``--before DIR`` measures a second checkout (the tree before a change: ``git worktree add`` or
``git archive``) side by side: each round then also runs the plain commands of that tree, in
the same rotating order, alternating processes, each tree on its own ``PYTHONPATH``, both run
the same way (the script, unless the tree before has no launcher), and prints
the two trees' ratios, before → after; ``check``, ``show`` and ``log`` answered by a resident of
each tree's own code too.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "replays/won-by-damage.jsonl"
#: name -> (arguments after the command, the issue's limit as a multiple of a bare interpreter)
COMMANDS: dict[str, tuple[tuple[str, ...], float | None]] = {
    "--help": (("--help",), 3.0),
    "check": (("check", SAMPLE), 6.0),
    "show": (("show", SAMPLE), None),
    "log": (("log", SAMPLE), None),
}
#: The commands also timed answered by a resident helper.
RESIDENT = ("check", "show", "log")


def command(*trees: Path) -> list[str]:
    """How to run ``ygoreplay`` with this interpreter: its script, if it is the launcher's (one
    installed before the launcher existed goes straight to click: no resident would answer it;
    ``pip install -e .`` makes it anew) and each of ``trees`` has the launcher's ``main``, which
    the script imports from the tree on ``PYTHONPATH``; else ``python -m ygoreplay``."""
    script = Path(sys.executable).parent / "ygoreplay"
    if script.is_file() and "ygoreplay.launcher" in script.read_text(errors="replace") and all(
            (tree / "ygoreplay" / "launcher.py").is_file()
            and "\ndef main(" in (tree / "ygoreplay" / "launcher.py").read_text(errors="replace") for tree in trees):
        return [str(script)]
    return [sys.executable, "-m", "ygoreplay"]


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, float, float]:
    """Wall time and CPU time (user + system, ms) and peak memory (MiB) of one run of ``argv``;
    it must exit 0."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {process.returncode}:\n{error}")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-r", "--rounds", type=int, help="interleaved rounds (default 11; quick 3)")
    parser.add_argument("--quick", action="store_true", help="a few rounds: does it run (CI)")
    parser.add_argument("--before", type=Path, metavar="DIR",
                        help="a checkout of the tree before, measured side by side (alternating processes)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 11)
    ygoreplay = command(ROOT, *([args.before.resolve()] if args.before else []))
    runs = {"bare": [sys.executable, "-c", "pass"],
            **{name: [*ygoreplay, *arguments] for name, (arguments, _) in COMMANDS.items()},
            **{f"{name} (resident)": [*ygoreplay, *COMMANDS[name][0]] for name in RESIDENT}}
    before = args.before.resolve() if args.before else None
    if before:
        runs.update({f"{name} (before)": [*ygoreplay, *arguments] for name, (arguments, _) in COMMANDS.items()})
        runs.update({f"{name} (resident, before)": [*ygoreplay, *COMMANDS[name][0]] for name in RESIDENT})
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    memory: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="ygoreplay-pycache-") as cache, \
            tempfile.TemporaryDirectory(prefix="ygr") as running, tempfile.TemporaryDirectory(prefix="ygr") as empty, \
            tempfile.TemporaryDirectory(prefix="ygr") as running_before:
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPYCACHEPREFIX": cache,
               "PYTHONPATH": str(ROOT),                     # the script imports no working folder's package
               "YGOREPLAY_RESIDENT_DIR": empty,            # made 0700: nobody runs there, in-process
               "YGOREPLAY_RESIDENT": "off"}                # and no command starts one there
        resident = {**env, "YGOREPLAY_RESIDENT_DIR": running}
        envs = {name: resident if name.endswith("(resident)") else env for name in names}
        trees = {name: ROOT for name in names}
        residents = [(ROOT, resident)]
        if before:
            envs.update({name: {**env, "PYTHONPATH": str(before)} for name in names if name.endswith("(before)")})
            trees.update({name: before for name in names if name.endswith("(before)")})
            envs.update({name: {**env, "PYTHONPATH": str(before), "YGOREPLAY_RESIDENT_DIR": running_before}
                         for name in names if name.endswith("(resident, before)")})
            trees.update({name: before for name in names if name.endswith("(resident, before)")})
            residents.append((before, envs[f"{RESIDENT[0]} (resident, before)"]))
        for tree, where in residents:       # `python -m` imports the package of its working folder first
            subprocess.run([*ygoreplay, "resident", "start", "--idle", "600"], cwd=tree, env=where, check=True,
                           stdout=subprocess.DEVNULL)
        try:
            for name in names:                  # once each, untimed: files and bytecode in the cache
                timed(runs[name], envs[name], trees[name])
            for round_ in range(rounds):
                for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                    elapsed, used, peak = timed(runs[name], envs[name], trees[name])
                    times[name].append(elapsed)
                    cpu[name].append(used)
                    memory[name].append(peak)
            for tree, where in residents:       # else its rows would be in-process figures
                status = subprocess.run([*ygoreplay, "resident", "status"], cwd=tree, env=where, capture_output=True,
                                        text=True).stdout
                if f"; {len(RESIDENT) * (rounds + 1)} command(s) answered" not in status:
                    print(f"note: the resident of {tree} did not answer every command sent to it: {status.strip()}")
        finally:
            for tree, where in residents:
                subprocess.run([*ygoreplay, "resident", "stop"], cwd=tree, env=where, stdout=subprocess.DEVNULL)
    bare = times["bare"]
    print(f"start-up of {' '.join(ygoreplay)}: {rounds} interleaved rounds, each command against a bare "
          f"`python -c pass` of the same round, bytecode cached" + (f"; the tree before: {before}" if before else ""))
    print(f"  {'bare python':<12} wall median {statistics.median(bare):6.1f} ms, CPU "
          f"{statistics.median(cpu['bare']):6.1f} ms, {statistics.median(memory['bare']):5.1f} MiB")
    for name, (arguments, limit) in COMMANDS.items():
        ratios = [t / b for t, b in zip(times[name], bare)]
        cpu_ratios = [t / b for t, b in zip(cpu[name], cpu["bare"])]
        ratio, cpu_ratio = statistics.median(ratios), statistics.median(cpu_ratios)
        against = f"limit {limit:g}x: {ratio / limit:.2f} of its limit" if limit else "no limit"
        print(f"  {name:<12} wall median {statistics.median(times[name]):6.1f} ms, ratio {ratio:5.2f}x "
              f"spread {min(ratios):.2f}-{max(ratios):.2f} ({against}); CPU ratio {cpu_ratio:5.2f}x; "
              f"{statistics.median(memory[name]):5.1f} MiB")
        if before:
            label = f"{name} (before)"
            was = [t / b for t, b in zip(times[label], bare)]
            was_cpu = [t / b for t, b in zip(cpu[label], cpu["bare"])]
            print(f"  {'':<12} before → after: ratio {statistics.median(was):5.2f}x → {ratio:5.2f}x, CPU ratio "
                  f"{statistics.median(was_cpu):5.2f}x → {cpu_ratio:5.2f}x, wall median "
                  f"{statistics.median(times[label]):6.1f} → {statistics.median(times[name]):6.1f} ms, "
                  f"{statistics.median(memory[label]):5.1f} → {statistics.median(memory[name]):5.1f} MiB")
    for name in RESIDENT:
        label = f"{name} (resident)"
        ratios = [t / b for t, b in zip(times[label], bare)]
        cpu_ratios = [t / b for t, b in zip(cpu[label], cpu["bare"])]
        print(f"  {name:<12} answered by a resident: wall median {statistics.median(times[label]):6.1f} ms, ratio "
              f"{statistics.median(ratios):5.2f}x spread {min(ratios):.2f}-{max(ratios):.2f}; the command's own CPU "
              f"ratio {statistics.median(cpu_ratios):5.2f}x; {statistics.median(memory[label]):5.1f} MiB")
        if before:
            was = [t / b for t, b in zip(times[f"{name} (resident, before)"], bare)]
            was_cpu = [t / b for t, b in zip(cpu[f"{name} (resident, before)"], cpu["bare"])]
            print(f"  {'':<12} before → after: ratio {statistics.median(was):5.2f}x → {statistics.median(ratios):5.2f}x, "
                  f"the command's own CPU ratio {statistics.median(was_cpu):5.2f}x → {statistics.median(cpu_ratios):5.2f}x")
    spread = max(bare) / min(bare)
    if spread > 1.4:
        print(f"note: the bare interpreter's times differ {spread:.1f}x between rounds (the machine is busy): "
              "compare the ratios, not the times")
    return 0


if __name__ == "__main__":
    sys.exit(main())
