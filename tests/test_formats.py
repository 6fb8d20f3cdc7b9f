"""The format registry (issue 24): one conformance test runs over every registered format.

Each format's samples are found by ``find_format`` from a path (under their own name, renamed
``.bin``, renamed with another format's suffix) and from their bytes, read, and checked; a
truncated and a garbled file of each format gets a clear error that names the file, from the
reader and from the command line (exit 2, no traceback). Sniffing is bounded: a huge file, a pipe
or a file of one endless line is never read whole to say what it is."""
from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import ROOT, SHARED
from test_release import ORGANISER, client, store  # noqa: F401  (the service's fixtures)
from test_replay_file import file_of
from test_yrpx import replay as generated_yrpx
from ygoreplay import formats
from ygoreplay.card_sources import card_lookup
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.formats import EDOPRO, FORMATS, JSONL, LOOK, MATCH, YGR, FormatError, by_suffix, find_format

REPLAYS = ROOT / "replays"
REAL = SHARED / "real-replays" / "edopro" / "GG_DW_vs_Cyberse.yrpX"


def match_ygr() -> bytes:
    from ygoreplay.match.files import match_replay, open_match
    from ygoreplay.replay_file import dumps
    from ygoreplay.signing import OrganiserKey
    key = OrganiserKey.generate()
    return dumps(match_replay(open_match(REPLAYS / "matches" / "two-nil.jsonl", card_lookup(())), key), key)


#: (format, sample name, the file's suffix, its bytes): every format's samples; a real EDOPro
#: replay where the shared data is, skipped cleanly where it is not.
SAMPLES = [
    (EDOPRO, "generated", ".yrpX", generated_yrpx),
    (EDOPRO, "real", ".yrpX", lambda: REAL.read_bytes() if REAL.exists() else pytest.skip(f"not available: {REAL}")),
    (YGR, "generated", ".ygr", lambda: file_of("won-by-damage")),
    (YGR, "spectator sample", ".ygr", lambda: (REPLAYS / "won-by-damage.spectator.ygr").read_bytes()),
    (JSONL, "sample", ".jsonl", lambda: (REPLAYS / "won-by-damage.jsonl").read_bytes()),
    (MATCH, "JSON Lines", ".jsonl", lambda: (REPLAYS / "matches" / "two-nil.jsonl").read_bytes()),
    (MATCH, "generated .ygr", ".ygr", match_ygr),
]
IDS = [f"{fmt.name}-{name}" for fmt, name, _, _ in SAMPLES]


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_registered_format_has_samples_here():
    assert {fmt for fmt, *_ in SAMPLES} == set(FORMATS)
    assert len({f.name for f in FORMATS}) == len(FORMATS)


def test_the_magic_bytes_are_the_readers_own():
    from ygoreplay.replay_file import MAGIC
    from ygoreplay.yrpx import YRP1, YRP2, YRPX
    assert set(EDOPRO.magic) == {struct.pack("<I", ident) for ident in (YRP1, YRP2, YRPX)}
    assert YGR.magic == (MAGIC,)


@pytest.mark.parametrize("fmt,name,suffix,data", SAMPLES, ids=IDS)
def test_each_format_is_found_read_and_checked(tmp_path, fmt, name, suffix, data):
    data = data()
    names = card_lookup(())
    path = tmp_path / f"sample{suffix}"
    path.write_bytes(data)
    assert find_format(path) is fmt and find_format(data) is fmt
    for other in (".bin", "", *(s for f in FORMATS for s in f.suffixes if not f.has_suffix(path))):
        renamed = tmp_path / f"renamed{other}"                    # by content, whatever its name
        renamed.write_bytes(data)
        assert find_format(renamed) is fmt, renamed.name
    loaded = fmt.read(path, names)
    assert loaded.format is fmt and loaded.events
    assert [e.to_dict() for e in fmt.read(data, names).events] == [e.to_dict() for e in loaded.events]
    checked = fmt.check(loaded)
    assert checked.ok and not checked.violations, checked.violations[:3]


def _truncated(data: bytes) -> bytes:
    """Cut inside a line (text) or halfway (binary): never a whole file of fewer events."""
    if data.lstrip()[:1] == b"{":
        return data[:data.index(b'"', len(data) // 2)]
    return data[:len(data) // 2]


def _garbled(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0xA5 for b in data[middle:middle + 64]) + data[middle + 64:]


@pytest.mark.parametrize("damage", [_truncated, _garbled], ids=["truncated", "garbled"])
@pytest.mark.parametrize("fmt,name,suffix,data", SAMPLES, ids=IDS)
def test_a_damaged_file_of_each_format_gets_a_clear_error(tmp_path, fmt, name, suffix, data, damage):
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(damage(data()))
    with pytest.raises(InputError) as caught:
        found = find_format(path)
        found.check(found.read(path, card_lookup(())))
    assert str(path) in str(caught.value)
    result = run("check", path)
    assert result.exit_code == 2, result.output
    assert str(path) in result.output and "Traceback" not in result.output


def test_a_file_of_no_format_says_what_was_expected(tmp_path):
    for content, said in ((b"", "empty"), (b"PK\x03\x04 a zip", "50 4b 03 04"), (b"plain words\n", "70 6c 61")):
        path = tmp_path / "notes.txt"
        path.write_bytes(content)
        with pytest.raises(FormatError, match=rf"notes\.txt: .*{said}.*expected an EDOPro replay \(\.yrpX \.yrp"):
            find_format(path)
        result = run("check", path)
        assert result.exit_code == 2 and "notes.txt" in result.output and "Traceback" not in result.output
    with pytest.raises(FormatError, match="the upload: empty"):
        find_format(b"", name="the upload")


def test_the_name_decides_only_when_the_content_does_not(tmp_path):
    damaged = tmp_path / "broken.yrpX"                 # no magic: its reader says what is wrong
    damaged.write_bytes(b"\x01\x02\x03\x04" * 40)
    assert find_format(damaged) is EDOPRO
    with pytest.raises(InputError, match=r"broken\.yrpX.*not a YGOPro/EDOPro replay"):
        EDOPRO.read(damaged)
    assert by_suffix("x.YRPX") is EDOPRO and by_suffix("x.ygr") is YGR and by_suffix("x.json") is JSONL
    assert by_suffix("x.bin") is None and by_suffix("a-duel-id") is None
    bad_magic = tmp_path / "no-suffix"                 # a damaged .ygr magic is still a .ygr's
    bad_magic.write_bytes(b"\x89YGR\n\r\x1a\n" + bytes(40))
    assert find_format(bad_magic) is YGR


# -- hostile files: sniffing is bounded -------------------------------------------------------------

class Counting:
    """A file that records how far it was read."""

    def __init__(self, f):
        self.f, self.furthest = f, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def seek(self, offset: int) -> None:
        self.f.seek(offset)

    def read(self, n: int) -> bytes:
        data = self.f.read(n)
        self.furthest = max(self.furthest, self.f.tell())
        return data


@pytest.mark.parametrize("start,expected", [
    (b"yrpX", EDOPRO), (b"\x89YGR\r\n\x1a\n" + struct.pack("<HHI", 3, 0, 1 << 30), YGR),
    (b'{"kind": "duel_started", "note": "' + b"x" * (4 << 20), JSONL),
    (b"#" * (8 << 20), None), (b" \n" * (4 << 20), None)], ids=["yrpX", "ygr", "a huge line", "a huge comment",
                                                             "blank lines"])
def test_sniffing_reads_at_most_look_bytes_of_a_huge_file(tmp_path, monkeypatch, start, expected):
    path = tmp_path / "huge.bin"
    with path.open("wb") as f:
        f.write(start)
        f.truncate(1 << 32)                             # 4 GiB, sparse
    opened: list[Counting] = []
    real = os.fdopen
    monkeypatch.setattr(formats.os, "fdopen", lambda fd, mode: opened.append(Counting(real(fd, mode))) or opened[-1])
    if expected is None:
        with pytest.raises(FormatError, match="huge.bin: not a file ygoreplay reads"):
            find_format(path)
    else:
        assert find_format(path) is expected
    assert opened and max(c.furthest for c in opened) <= LOOK


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_refused_not_waited_on(tmp_path):
    pipe = tmp_path / "duel.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(FormatError, match="duel.jsonl: not a regular file"):
        find_format(pipe)


def test_bytes_are_sniffed_from_their_start_only():
    assert find_format(b"yrp1" + bytes(64 << 20)) is EDOPRO
    assert find_format(b'{"kind": "match_started", ' + b" " * (1 << 20)) is MATCH


def test_deciding_a_json_lines_file_imports_no_reader():
    """``check`` of a JSON Lines file starts without the EDOPro importer or the replay file
    reader (issue 25): the registry names them by module path, imported when first used."""
    code = ("import sys; from ygoreplay.formats import find_format; "
            "assert find_format('replays/won-by-damage.jsonl').name == 'jsonl'; "
            "print(sorted(m for m in sys.modules if m.startswith(('ygoreplay.yrpx', 'ygoreplay.replay_file', "
            "'ygoreplay.match', 'ygoreplay.formats.'))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# -- the doors: a file is what its content says -----------------------------------------------------

def test_the_command_line_reads_a_renamed_file_as_what_it_is(tmp_path):
    ygr = tmp_path / "really-a-replay.jsonl"
    ygr.write_bytes(file_of("won-by-damage"))
    result = run("check", ygr)
    assert result.exit_code == 0 and "legal; 89 events" in result.output, result.output
    edopro = tmp_path / "duel.bin"
    edopro.write_bytes(generated_yrpx())
    result = run("show", edopro)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "renamed.dat").write_bytes(generated_yrpx())
    (folder / "notes.txt").write_text("not a replay\n")
    result = run("import", folder, "-o", tmp_path / "out", "-j", "1", "--json")
    assert result.exit_code == 0, result.output
    assert '"file": "renamed.dat"' in result.output and "notes.txt" not in result.output
    match = tmp_path / "match.txt"
    match.write_bytes((REPLAYS / "matches" / "two-nil.jsonl").read_bytes())
    assert run("import", match).output.count("a match file, not a duel replay") == 1
    duel = tmp_path / "duel.ygr"
    duel.write_bytes((REPLAYS / "won-by-damage.jsonl").read_bytes())
    result = run("verify", duel)
    assert result.exit_code == 2 and "a JSON Lines file has no hash chain" in result.output


def test_an_upload_is_told_by_its_magic_bytes(client):
    text = client.post("/uploads", content=(REPLAYS / "won-by-damage.jsonl").read_bytes(), headers=ORGANISER)
    assert text.status_code == 400 and "JSON Lines events, not a replay to import" in text.json()["error"]
    garbage = client.post("/uploads", content=b"PK\x03\x04", headers=ORGANISER)
    assert garbage.status_code == 400 and "the uploaded file: not a file ygoreplay reads" in garbage.json()["error"]
    edopro = client.post("/uploads", content=generated_yrpx(), headers=ORGANISER)
    assert edopro.status_code == 201, edopro.text


def test_record_names_a_file_of_another_format_and_the_command_that_takes_it(tmp_path, monkeypatch):
    """``record`` takes JSON Lines events; a ``.ygr`` or an EDOPro replay given to it (whatever its
    name) is named as what it is, with ``import``, not reported as text that is not UTF-8."""
    monkeypatch.setenv("YGOREPLAY_STORE", str(tmp_path / "store.db"))
    ygr = tmp_path / "duel.jsonl"
    ygr.write_bytes(file_of("won-by-damage"))
    edopro = tmp_path / "duel.yrpX"
    edopro.write_bytes(generated_yrpx())
    for path, what in ((ygr, "a ygoreplay file"), (edopro, "an EDOPro replay")):
        result = run("record", path)
        assert result.exit_code == 2, result.output
        assert f"{path}: {what}, not JSON Lines events (import it: ygoreplay import {path})" in result.output
        assert "UTF-8" not in result.output and "Traceback" not in result.output
    assert not (tmp_path / "store.db").exists() or run("list").output.count("\n") <= 1
