"""A stored board is read without ``pathlib`` and ``urllib.parse`` (issue 25: the two imports were
6% of a fresh ``show DUEL --at N``): the store's file, its URI and the organiser key's path are
made as text (``files.path_text``, ``expand_user``, ``file_uri``, ``store._plain_file``), each the
very text ``pathlib`` and ``urlparse`` give, compared here over many made-up paths and URLs."""
from __future__ import annotations

import random
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from conftest import ROOT
from test_check_without_click import imported

from ygoreplay import read_events
from ygoreplay.files import expand_user, file_uri, path_text
from ygoreplay.store import Store, _plain_file

_PIECES = ["/", "//", "///", ".", "..", "a", "b c", "~", "~root", "é", "", "x.db"]
_URL_PIECES = ["sqlite:", "file:", "SQLITE:", "postgresql:", "/", "//", "///", "a", "é", ":", "%41", "?", "#", ";",
               "[", "]", " ", "\t", "~", ".", "x.db", "host:5", "@", "\x00"]


def _pathlib_or_error(make):
    try:
        return make()
    except RuntimeError as exc:
        return str(exc)


def test_paths_are_pathlibs_text():
    rng = random.Random(25)
    for _ in range(20_000):
        parts = ["".join(rng.choice(_PIECES) for _ in range(rng.randrange(6))) for _ in range(rng.randrange(1, 4))]
        assert path_text(*parts) == str(PurePosixPath(*parts)), parts
        text = path_text(parts[0])
        assert (_pathlib_or_error(lambda: expand_user(text))
                == _pathlib_or_error(lambda: str(Path(text).expanduser()))), text
        absolute = path_text("/", *parts)
        assert file_uri(absolute) == Path(absolute).as_uri(), absolute


def test_a_plain_store_url_names_the_file_urlparse_finds():
    rng = random.Random(25)
    plain = 0
    for _ in range(50_000):
        url = "".join(rng.choice(_URL_PIECES) for _ in range(rng.randrange(7)))
        named = _plain_file(url)
        if named is None:                    # read by urlparse, as before
            continue
        plain += 1
        parsed = urlparse(url)
        assert parsed.port is None and parsed.scheme in ("", "sqlite", "file"), url
        assert named == (unquote(parsed.path) if parsed.scheme in ("sqlite", "file") else url), url
    assert plain > 5_000
    for url in ("sqlite:////tmp/a.db", "sqlite:///tmp/a.db", "file:/tmp/a.db", "duels.sqlite", "~/a.db"):
        assert _plain_file(url) is not None, url
    for url in ("sqlite://host/a.db", "postgresql://x/y", "a%20b.db", "a.db?mode=ro", "C:/a.db", "//host/a.db"):
        assert _plain_file(url) is None, url


def test_a_stored_board_is_read_without_pathlib_or_urllib(tmp_path):
    store = tmp_path / "duels.sqlite"
    with Store(str(store)) as st:
        duel, count, _ = st.record(read_events(ROOT / "replays" / "won-by-damage.jsonl"), "won")
        assert st.name == str(store)
    for args in (["show", duel, "--at", "40", "--store", str(store)], ["show", duel, "--store", f"sqlite:///{store}"]):
        modules = imported(args)
        assert b"ygoreplay.store" in modules and b"ygoreplay.render" in modules, args
        assert not modules & {b"pathlib", b"urllib.parse"}, (args, modules & {b"pathlib", b"urllib.parse"})
