"""Import every real EDOPro replay in a folder, fold it through the rules engine, and report.

Run from the repository root::

    python bench/import_real.py                          # ../shared/real-replays/edopro
    python bench/import_real.py some/folder -v           # also list each violation and note

Per file: the number of events, whether both players' final LP and the winner agree with the
replay's own messages (EDOPro's LP after its last LP message, its MSG_WIN), whether the board
agrees with the engine's own state packets at every one of them (``ygoreplay.yrpx.engine_check``: the
share of zones agreeing, and the first divergence), and the violations the audit found, by rule
ID. Files that cannot be imported (puzzles, hand tests, legacy .yrp, corrupt data) are listed
with the reason. Totals and the wall time come last: files whose board agrees with the engine
everywhere, zones agreeing, and the basic rules that cited card effects set aside (GEN-01), by
rule ID; ``-v`` also lists each such cite.

The wall time is split as ``ygoreplay import FOLDER -o OUT`` spends it, each phase timed with
``time.perf_counter``: *read* (``read_yrpx``: header, LZMA, packets, the embedded YRP1), *map*
(``import_yrpx(..., check=True)``: the message stream to our events and card facts, and the one
fold that cites what the engine allowed, audits and compares the board with every state packet),
*check* (``fold_and_compare``: that fold's figures, LP and winner) and *write* (the signed judge ``.ygr``,
written as the command writes it, to a temporary folder: under a temporary name, committed
with the batch's others every ``COMMIT_EVERY`` files, ``files.commit``). Right before each file is imported, a stdlib decode of it is timed (``stdlib_decode``:
read, LZMA, the packets split, the embedded YRP1 decompressed: what any reader must do); ``import -o``
÷ that, over the files both read, is issue 25's figure (goal at most 2x), printed with read + map
alone ÷ the same (the file read and mapped to events as every import does, cites included, no
state packet compared: ``import_yrpx`` without ``check``, timed on its own right before the
import). *Decode* is read + map: turning the
file into our events; the line gives files/s and each phase's share of the total (#12: at least
60 files/s, decode at least 40%), the next the process's CPU time over the same spans. Both are
one process, as ``import -o -j 1`` runs (the cyclic collector set as it sets it for a batch,
``application._few_collections``). The last times the same folder imported as ``ygoreplay
import FOLDER -o OUT`` does by default, by ``application.import_replay_files`` in ``--jobs``
worker processes (default: one per CPU), wall clock from the first file to the last outcome
(worker start-up included), each file's outcome checked against the one process's, and ÷ a
stdlib decode of the folder in one process timed right before and after it (the command's
default against the same baseline: on 2 cores at best about half the one-process ratio).
``--jobs 1`` leaves it out.

``--before DIR`` measures a tree before side by side with this one: this script runs ``-j 1`` in
a process of its own for each tree in turn (``PYTHONPATH`` the tree, the order alternating each
round, ``--rounds`` of them), and prints each run's ``import -o`` ÷ stdlib decode, wall and CPU
time, their medians before → after, and whether every fidelity figure (LP, winner, the boards,
violations, cited exceptions) is the same in every run.
"""
from __future__ import annotations

import argparse
import collections
import lzma
import os
import re
import secrets
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ygoreplay.yrpx import engine_check
from ygoreplay.application import cpus, import_replay_files
from ygoreplay.yrpx.engine_check import EngineAgreement
from ygoreplay.exchange import make_replay
from ygoreplay.application import COMMIT_EVERY, _few_collections
from ygoreplay.files import commit
from ygoreplay.replay_file import write_pending
from ygoreplay.signing import OrganiserKey
from ygoreplay.yrpx import ImportResult, YrpxError, import_yrpx, read_yrpx

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "real-replays" / "edopro"


def check(result: ImportResult) -> tuple[bool, bool, collections.Counter, list, str | None, list,
                                         EngineAgreement]:
    """(LP agree, winner agree, violations by rule, violations, engine error, cited overrides,
    agreement with the engine's state packets), from one fold."""
    try:
        engine, report = engine_check.check(result)
    except Exception as exc:                      # an engine crash is reported, not hidden
        return False, False, collections.Counter(), [], f"{type(exc).__name__}: {exc}", [], EngineAgreement()
    state = report.state
    lp_ok = tuple(side.lp for side in state.sides) == result.expected.lp
    winner_ok = (state.ended == (result.expected.reason is not None)
                 and state.winner == result.expected.winner)
    return (lp_ok, winner_ok, collections.Counter(v.rule for v in report.violations), report.violations, None,
            list(state.overrides), engine)


PHASES = ("read", "map", "check", "write")
IMPORT_LIMIT = 2.0                                # import -o at most 2x a stdlib decode (issue 25)


def stdlib_decode(path: Path) -> list[tuple[int, bytes]]:
    """The baseline: the file decoded with the standard library alone, as far as any reader of a
    ``.yrpX`` must: read, its LZMA body decompressed, the players' names skipped and the message
    stream split into its packets (id, payload), the embedded YRP1's own body decompressed too;
    no message is interpreted. (Flag bits and sizes as in EDOPro's ``gframe/replay.h``.)"""
    data = path.read_bytes()
    packets, body, flags = [], _stdlib_body(data), struct.unpack_from("<I", data, 8)[0]
    pos = 0
    for _team in range(2):
        count = struct.unpack_from("<I", body, pos)[0] if flags & 0x20 else (2 if flags & 0x2 else 1)
        pos += (4 if flags & 0x20 else 0) + 40 * count
    pos += 8 if flags & 0x100 else 4
    while pos + 5 <= len(body):
        mid, length = struct.unpack_from("<BI", body, pos)
        payload = body[pos + 5:pos + 5 + length]
        if mid == 231:                            # OLD_REPLAY_MODE: the embedded YRP1
            _stdlib_body(payload)
        packets.append((mid, payload))
        pos += 5 + length
    return packets


def _stdlib_body(data: bytes) -> bytes:
    _ident, _version, flags, _seed, size, _hash, props = struct.unpack_from("<6I8s", data, 0)
    start = 72 if flags & 0x200 else 32
    if not flags & 0x1:
        return data[start:]
    stream = props[:5] + struct.pack("<Q", size) + data[start:]
    return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(stream, max_length=size)


def write_judge_file(result: ImportResult, folder: Path, key: OrganiserKey) -> tuple[str, Path]:
    """The signed judge file ``import -o`` writes for one import (same call, same arguments),
    pending until its batch is committed (``files.commit``)."""
    return write_pending(folder / (Path(result.path or "replay").stem + ".ygr"),
          make_replay(result.events, result.times, result.cards, "judge", secrets.token_bytes(32),
                      secrets.token_bytes(32), {"title": Path(result.path or "replay").name,
                                                "players": list(result.players)},
                      {"format": "yrpX", "file": Path(result.path or "replay").name}), key)


def parallel(files: list[Path], key: OrganiserKey, jobs: int, expected: dict[str, tuple]) -> tuple[float, float, bool]:
    """The folder imported as ``import -o -j JOBS`` does it: wall seconds; the stdlib decode of
    the same files (those it reads) in this one process, wall seconds, the mean of one timed
    right before and one right after (what the command's default, every core, is compared
    with); and whether each file's outcome (events, LP, winner, violations, the engine's
    figures) is the one-process run's."""
    with tempfile.TemporaryDirectory(prefix="import_real-j-") as out:
        before = _stdlib_folder(files)
        start = time.perf_counter()
        outcomes = list(import_replay_files(files, [Path(out) / (p.stem + ".ygr") for p in files], None, None,
                                            key=key, jobs=jobs))
        wall = time.perf_counter() - start
        after = _stdlib_folder(files)
    got = {o.file: (o.events_read, o.lp, o.winner, [v.rule for v in o.violations], o.engine)
           for o in outcomes if not o.error}
    return wall, (before + after) / 2, got == expected


def _stdlib_folder(files: list[Path]) -> float:
    """Wall seconds of ``stdlib_decode`` of each file (a file it cannot read costs what it took)."""
    start = time.perf_counter()
    for path in files:
        try:
            stdlib_decode(path)
        except (lzma.LZMAError, struct.error, OSError):
            pass
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("-v", "--verbose", action="store_true", help="list each violation and import note")
    parser.add_argument("-j", "--jobs", type=int, default=cpus(),
                        help="worker processes for the parallel timing (default: one per CPU; 1: none)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI): the first 5 files")
    parser.add_argument("--before", type=Path, help="a tree before (its checkout's folder), measured side by side")
    parser.add_argument("--rounds", type=int, default=3, help="with --before: runs of each tree (default 3)")
    args = parser.parse_args(argv)
    if args.before is not None:
        return side_by_side(args.folder, args.before, args.rounds, args.quick)
    files = sorted(p for p in args.folder.iterdir() if p.suffix.lower() in (".yrpx", ".yrp"))
    files = files[:5] if args.quick else files
    if not files:
        print(f"no replays in {args.folder}")
        return 1
    key = OrganiserKey.generate()
    out = tempfile.TemporaryDirectory(prefix="import_real-")
    spent = dict.fromkeys(PHASES, 0.0)
    clock, cpu = time.perf_counter, time.process_time
    cpu_spent = 0.0                               # this process's CPU time in the four phases
    start = clock()
    totals: collections.Counter = collections.Counter()
    cited: collections.Counter = collections.Counter()
    skipped: list[tuple[str, str]] = []
    crashes: list[tuple[str, str]] = []
    imported = lp_agree = winner_agree = events = 0
    engines: list[EngineAgreement] = []
    outcomes: dict[str, tuple] = {}               # per file, to check the parallel run against
    width = max(len(p.name) for p in files)
    print(f"{'file'.ljust(width)}  events  LP   winner  engine    violations")
    baseline = both = alone = 0.0                 # the stdlib decode, import -o and read + map alone, of the files both read
    baseline_cpu = both_cpu = 0.0                 # the same two in this process's CPU time
    pending: list[tuple[str, Path]] = []          # written, committed every COMMIT_EVERY files
    with _few_collections():                      # the collector as the command sets it for a batch
        for path in files:
            s0, sc = clock(), cpu()
            try:
                stdlib_decode(path)
            except (lzma.LZMAError, struct.error, OSError):
                stdlib = None
            else:
                stdlib, stdlib_cpu = clock() - s0, cpu() - sc
            s1 = clock()
            try:
                import_yrpx(path)                     # read + map alone
            except YrpxError:
                pass
            decoded = clock() - s1
            c0 = cpu()
            t0 = t1 = clock()
            try:
                replay = read_yrpx(path)
                t1 = clock()
                result = import_yrpx(replay, check=True)
            except YrpxError as err:                  # a refusal costs what it took to refuse
                spent["read"] += t1 - t0
                spent["map"] += clock() - t1
                cpu_spent += cpu() - c0
                skipped.append((path.name, err.detail))
                continue
            t2 = clock()
            spent["read"] += t1 - t0
            spent["map"] += t2 - t1
            result.path = str(path)
            lp_ok, winner_ok, rules, violations, crash, overrides, engine = check(result)
            t3 = clock()
            spent["check"] += t3 - t2
            pending.append(write_judge_file(result, Path(out.name), key))
            if len(pending) == COMMIT_EVERY:
                commit(pending)
                pending = []
            t4 = clock()
            spent["write"] += t4 - t3
            c4 = cpu()
            cpu_spent += c4 - c0
            if stdlib is not None:
                baseline += stdlib
                both += t4 - t0
                alone += decoded
                baseline_cpu += stdlib_cpu
                both_cpu += c4 - c0
            imported += 1
            events += len(result.events)
            outcomes[path.name] = (len(result.events), lp_ok, winner_ok, [v.rule for v in violations], engine.to_dict())
            lp_agree += lp_ok
            winner_agree += winner_ok
            engines.append(engine)
            totals.update(rules)
            cited.update(o.rule for o in overrides)
            if crash:
                crashes.append((path.name, crash))
            shown = "ENGINE ERROR" if crash else (", ".join(f"{r}×{n}" for r, n in sorted(rules.items())) or "-")
            board = "ok" if engine.ok and not crash else f"{100 * engine.ratio:.3f}%"
            print(f"{path.name.ljust(width)}  {len(result.events):6}  {'ok ' if lp_ok else 'NO '}  "
                  f"{'ok    ' if winner_ok else 'NO    '}  {board:8}  {shown}")
            if not engine.ok:
                print(f"    first divergence: {engine.first}")
            if args.verbose:
                for v in violations:
                    source = result.sources[v.index] if v.index < len(result.sources) else -1
                    print(f"    #{v.index} (packet {source}) {v.rule}: {v.message}")
                for o in overrides:
                    print(f"    cite #{o.index} {o.rule}: {o.cite.card} ({o.cite.effect})")
                for note in result.notes:
                    print(f"    note: {note}")
        t5, c5 = clock(), cpu()
        commit(pending)                           # the last files of the batch
        spent["write"] += clock() - t5
        both += clock() - t5
        both_cpu += cpu() - c5
        cpu_spent += cpu() - c5
    out.cleanup()
    elapsed = sum(spent.values())
    print()
    print(f"files {len(files)}, imported {imported}, events {events}, {clock() - start:.1f} s "
          "(with printing)")
    shares = ", ".join(f"{name} {spent[name]:.2f} s ({100 * spent[name] / elapsed:.0f}%)" for name in PHASES)
    decode = spent["read"] + spent["map"]
    print(f"import -o (1 process): {len(files) / elapsed:.1f} files/s ({elapsed:.2f} s for {len(files)} files): "
          f"{shares}; decode (read + map) {100 * decode / elapsed:.0f}% of the total")
    print(f"  the same in CPU time: {cpu_spent:.2f} s, {len(files) / cpu_spent:.1f} files/s (a busy machine slows the "
          "wall clock more)")
    if baseline:
        ratio = both / baseline
        print(f"import -o / stdlib decode {ratio:.1f}x over the files both read "
              f"({ratio / IMPORT_LIMIT:.2f} of the {IMPORT_LIMIT:g}x limit: {'met' if ratio <= IMPORT_LIMIT else 'OVER'}); "
              f"read + map alone / stdlib decode {alone / baseline:.1f}x")
        print(f"import -o / stdlib decode in CPU time {both_cpu / baseline_cpu:.2f}x over the same files "
              "(the steadier figure on a shared machine)")
    if args.jobs > 1:
        wall, stdlib, same = parallel(files, key, args.jobs, outcomes)
        ratio = wall / stdlib
        print(f"import -o -j {args.jobs} ({args.jobs} processes, wall clock): {len(files) / wall:.1f} files/s "
              f"({wall:.2f} s for {len(files)} files); outcomes {'the same' if same else 'DIFFER'}; "
              f"/ stdlib decode in one process (timed before and after) {ratio:.1f}x "
              f"({ratio / IMPORT_LIMIT:.2f} of the {IMPORT_LIMIT:g}x limit: {'met' if ratio <= IMPORT_LIMIT else 'OVER'})")
    if imported:
        print(f"LP agreement     {lp_agree}/{imported} ({100 * lp_agree / imported:.1f}%)")
        print(f"winner agreement {winner_agree}/{imported} ({100 * winner_agree / imported:.1f}%)")
        board = engine_check.summary(engines)
        print(f"board agrees with the engine at every state packet: {board['files_agreeing']}/{imported} files; "
              f"zones agreeing {board['zones_agreeing']}/{board['zones']} ({100 * board['agreement']:.4f}%)")
    print("violations by rule: " + (", ".join(f"{r} {n}" for r, n in totals.most_common()) or "none"))
    print("cited exceptions by rule: " + (", ".join(f"{r} {n}" for r, n in cited.most_common()) or "none"))
    for name, why in crashes:
        print(f"engine error: {name}: {why}")
    for name, why in skipped:
        print(f"not imported: {name}: {why}")
    return 0


#: What a run prints of its fidelity: the same in every run of every tree, or the trees differ.
_FIDELITY = re.compile(r"^(?:LP agreement|winner agreement|board agrees|violations by rule|cited exceptions|"
                       r"not imported).*$", re.MULTILINE)
_WALL = re.compile(r"^import -o / stdlib decode ([\d.]+)x over", re.MULTILINE)
_CPU = re.compile(r"^import -o / stdlib decode in CPU time ([\d.]+)x", re.MULTILINE)


def side_by_side(folder: Path, before: Path, rounds: int, quick: bool) -> int:
    """``--before``: this script, ``-j 1``, for each tree in turn, the order alternating."""
    script = Path(__file__).resolve()
    trees = {"before": before.resolve(), "this tree": script.parent.parent}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    fidelity: set[tuple[str, ...]] = set()
    for round_ in range(rounds):
        for name in (list(trees) if round_ % 2 == 0 else list(reversed(trees))):
            done = subprocess.run([sys.executable, str(script), str(folder), "-j", "1", *(["--quick"] if quick else [])],
                                  env={**os.environ, "PYTHONPATH": str(trees[name])}, capture_output=True, text=True)
            wall, cpu = _WALL.search(done.stdout), _CPU.search(done.stdout)
            if done.returncode or wall is None or cpu is None:
                print(f"{name} ({trees[name]}) failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
                return 1
            runs[name].append((float(wall[1]), float(cpu[1])))
            fidelity.add(tuple(_FIDELITY.findall(done.stdout)))
            print(f"round {round_ + 1}, {name}: import -o / stdlib decode {wall[1]}x wall, {cpu[1]}x CPU")
    (b_wall, b_cpu), (a_wall, a_cpu) = ((statistics.median(r[0] for r in runs[name]),
                                         statistics.median(r[1] for r in runs[name])) for name in trees)
    print(f"before → after (medians of {rounds}): import -o / stdlib decode {b_wall:.1f}x → {a_wall:.1f}x wall, "
          f"{b_cpu:.2f}x → {a_cpu:.2f}x CPU (after ÷ before {a_cpu / b_cpu:.3f}; the {IMPORT_LIMIT:g}x limit: "
          f"{a_cpu / IMPORT_LIMIT:.2f} of it in CPU time)")
    print("fidelity: " + ("the same in every run" if len(fidelity) == 1 else "DIFFERS between runs"))
    for line in sorted(fidelity)[0] if len(fidelity) == 1 else ():
        print("  " + line)
    return 0 if len(fidelity) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
