"""The card database a user installs: YGOPRODeck card JSON (a fixture in the API's own shape,
served here by a local HTTP server: there is no network) or a cards.cdb, converted, installed
whole or not at all, searched by name, and used by every command that needs names; and, with a
database made from the real duels' own card facts, `deck check` on every real deck it holds and
`log` of every real duel naming every card it knows."""
from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import shared_path
from ygoreplay import card_install
from ygoreplay.card_sources import CdbFile, card_lookup
from ygoreplay.cards import CardDB, CardType
from ygoreplay.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "ygoprodeck-cardinfo.json"


class Served:
    """A local HTTP server answering one path with the given bytes (and 404 elsewhere)."""

    def __init__(self, routes: dict[str, bytes], length: int | None = None) -> None:
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:                               # noqa: N802 (the stdlib's name)
                body = routes.get(self.path.split("?")[0])
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(length if length is not None else len(body)))
                self.end_headers()
                self.wfile.write(body)
                outer.hits += 1

            def log_message(self, *_args) -> None:
                pass

        self.hits = 0
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def api():
    served = Served({"/api/v7/cardinfo.php": FIXTURE.read_bytes(), "/page": b"<html>not cards</html>"})
    yield served
    served.close()


def run(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ygoreplay", *args], capture_output=True, text=True, input=stdin,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_the_api_fields_map_to_the_facts_of_the_bundled_cards(tmp_path):
    """Every kind of card (normal, effect, flip, tuner, pendulum, spirit, union, gemini, ritual,
    fusion, synchro, xyz, link, token, each spell and trap type) against the bundled set, whose
    facts were checked against public databases; an alternate artwork aliases its card; a Speed
    Duel skill is no card."""
    rows = card_install.ygoprodeck_rows(json.loads(FIXTURE.read_text())["data"])
    path = tmp_path / "cards.cdb"
    card_install.write_cdb(path, rows, {"cards": str(len(rows))})
    db, classic = CdbFile(path), CardDB.classic()
    fields = ("name", "type", "level", "lscale", "rscale", "atk", "defense", "race", "attribute", "link_markers")
    compared = 0
    for code in db:
        if code in classic:
            assert {f: getattr(db[code], f) for f in fields} == {f: getattr(classic[code], f) for f in fields}, code
            compared += 1
    assert compared == 28
    assert db[36996508].alias == 46986414 and db[36996508].name == "Dark Magician"
    assert 300302006 not in db, "a skill card is not installed"
    assert db[72989439].type & CardType.SPSUMMON, "'Cannot be Normal Summoned/Set' is SPSUMMON"


def test_update_status_find_and_names_in_a_duel_file(api, tmp_path):
    done = run("cards", "update", "--source", f"{api.url}/api/v7/cardinfo.php")
    assert done.returncode == 0, done.stderr
    assert "installed 30 cards" in done.stdout
    status = json.loads(run("cards", "status", "--json").stdout)["installed"]
    assert status["cards"] == 30 and status["url"].endswith("/cardinfo.php") and len(status["sha256"]) == 64
    assert Path(status["path"]).parent.name == "ygoreplay"
    found = run("cards", "find", "DÁRK magic")
    assert found.returncode == 0 and found.stdout.splitlines()[0].split()[0] == "46986414"
    assert "Dark Magician" in found.stdout and found.stdout.count("46986414") == 1, "one line per card"
    nothing = run("cards", "find", "no such card at all")
    assert nothing.returncode == 1 and "no card's name holds" in nothing.stderr
    # a scorekeeper writes names, not passcodes
    lines = (ROOT / "replays" / "won-by-damage.jsonl").read_text().splitlines()
    deck = next(i for i, line in enumerate(lines) if '"deck_registered"' in line)
    event = json.loads(lines[deck])
    event["main"] = ["dark magician" if code == 46986414 else code for code in event["main"]]
    lines[deck] = json.dumps(event)
    named = tmp_path / "named.jsonl"
    named.write_text("\n".join(lines) + "\n")
    checked = run("check", str(named), "--json")
    assert checked.returncode == 0, checked.stderr
    event["main"][0] = "Magician"                                   # nobody is named that
    lines[deck] = json.dumps(event)
    named.write_text("\n".join(lines) + "\n")
    refused = run("check", str(named))
    assert refused.returncode == 2 and f"named.jsonl:{deck + 1}" in refused.stderr
    assert "no card is named 'Magician'" in refused.stderr


def test_an_ambiguous_name_is_refused(tmp_path):
    rows = [card_install.Row(1, 0, 0x11, 100, 100, 4, 1, 1, "Twin"), card_install.Row(2, 0, 0x11, 200, 200, 4, 1, 1, "Twin"),
            card_install.Row(3, 1, 0x11, 100, 100, 4, 1, 1, "Twin Art")]
    card_install.write_cdb(tmp_path / "c.cdb", rows, {})
    lookup = card_lookup([str(tmp_path / "c.cdb")], environment={}, installs=[])
    with pytest.raises(KeyError, match="names 2 different cards"):
        lookup.resolve("twin")
    assert lookup.resolve("twin art").code == 1, "an artwork's name is its card's"


def test_a_failed_update_leaves_the_installed_database_as_it_was(api, tmp_path, monkeypatch):
    target = tmp_path / "cards.cdb"
    first = card_install.update(f"{api.url}/api/v7/cardinfo.php", target)
    before = target.read_bytes()
    for source, message in ((f"{api.url}/missing", "404"), (f"{api.url}/page", "neither a cards.cdb nor"),
                            ("http://127.0.0.1:9/cardinfo.php", "cannot be reached"),
                            (str(tmp_path / "nowhere.json"), "cannot read")):
        with pytest.raises(InputError, match=message):
            card_install.update(source, target)
        assert target.read_bytes() == before
    monkeypatch.setattr(card_install, "MAX_DOWNLOAD", 1000)
    with pytest.raises(InputError, match="announces"):
        card_install.update(f"{api.url}/api/v7/cardinfo.php", target)
    assert card_install.status(target).sha256 == first.sha256
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "no temporary file left"


def test_a_cards_cdb_source_is_checked_and_installed(tmp_path):
    goat = shared_path("cards", "goat-entries.cdb")
    target = tmp_path / "cards.cdb"
    installed = card_install.update(str(goat), target)
    assert installed.cards == 187 and installed.source == "cards.cdb"
    mine, theirs = CdbFile(target), CdbFile(goat)
    assert all(mine[code] == theirs[code] for code in theirs)
    broken = tmp_path / "broken.cdb"
    broken.write_bytes(goat.read_bytes()[:4096])
    with pytest.raises(InputError):
        card_install.update(str(broken), target)


# -- the real decks and duels, with a database of their own cards ------------------------------------------

_KIND_WORDS = [(CardType.NORMAL, "Normal"), (CardType.EFFECT, "Effect"), (CardType.FUSION, "Fusion"),
               (CardType.RITUAL, "Ritual"), (CardType.SPIRIT, "Spirit"), (CardType.UNION, "Union"),
               (CardType.GEMINI, "Gemini"), (CardType.TUNER, "Tuner"), (CardType.SYNCHRO, "Synchro"),
               (CardType.FLIP, "Flip"), (CardType.TOON, "Toon"), (CardType.XYZ, "Xyz"),
               (CardType.PENDULUM, "Pendulum"), (CardType.LINK, "Link")]


def api_entry(facts) -> dict:
    """A card as the API writes it, from its facts (the real duels carry them; not their names)."""
    from ygoreplay.cards import Attribute, LinkMarker, Race
    entry = {"id": facts.code, "name": f"Real card {facts.code}", "desc": ""}
    t = facts.type
    if t & CardType.SPELL or t & CardType.TRAP:
        subtype = {CardType.QUICKPLAY: "Quick-Play", CardType.CONTINUOUS: "Continuous", CardType.EQUIP: "Equip",
                   CardType.FIELD: "Field", CardType.RITUAL: "Ritual", CardType.COUNTER: "Counter"}
        kind = "Spell" if t & CardType.SPELL else "Trap"
        return {**entry, "type": f"{kind} Card", "frameType": kind.lower(),
                "race": next((word for bit, word in subtype.items() if t & bit), "Normal")}
    race = next((m.name.replace("_", " ").title() for m in Race if facts.race & m), "Warrior")
    entry.update(type="Token" if t & CardType.TOKEN else "Monster", frameType="token" if t & CardType.TOKEN else "",
                 race=race.replace("Beast Warrior", "Beast-Warrior").replace("Divine Beast", "Divine-Beast"),
                 attribute=next((m.name for m in Attribute if facts.attribute & m), "DARK"), atk=facts.atk,
                 typeline=[race] + [word for bit, word in _KIND_WORDS if t & bit])
    if t & CardType.LINK:
        entry.update(linkval=facts.level, linkmarkers=[m.name.replace("_", "-").title() for m in LinkMarker
                                                       if facts.link_markers & m])
    else:
        entry.update(level=facts.level, **({"def": facts.defense} if facts.defense is not None else {}))
    if t & CardType.PENDULUM:
        entry["scale"] = facts.lscale
    if t & CardType.SPSUMMON:
        entry["desc"] = "Cannot be Normal Summoned/Set."
    return entry


@pytest.fixture(scope="module")
def real_cards():
    from ygoreplay.yrpx import YrpxError, import_yrpx
    folder = shared_path("real-replays", "edopro")
    facts = {}
    for path in sorted(folder.glob("*.yrpX")):
        try:
            facts.update({code: result for code, result in import_yrpx(path).cards.items()})
        except YrpxError:
            continue
    return facts


def test_with_a_database_of_their_cards_every_real_deck_checks_and_every_real_duel_is_named(real_cards, tmp_path):
    from ygoreplay.decks import read_deck
    served = Served({"/cardinfo.php": json.dumps({"data": [api_entry(f) for f in real_cards.values()]}).encode()})
    home = tmp_path / "xdg"
    env = {"XDG_DATA_HOME": str(home)}
    try:
        assert run("cards", "update", "--source", f"{served.url}/cardinfo.php", env=env).returncode == 0
    finally:
        served.close()
    held = 0
    for deck in sorted(shared_path("real-decks", "edopro").glob("*.ydk")):
        written = read_deck(str(deck))
        if not all(code in real_cards for code in (*written.main, *written.extra, *written.side)):
            continue
        held += 1
        done = run("deck", "check", str(deck), env=env)
        assert done.returncode == 0, (deck.name, done.stdout)
    assert held >= 5, "some real decks are held whole by the database"
    for replay in sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[:25]:
        done = run("log", str(replay), env=env)
        if done.returncode == 2 and "cannot" in done.stderr:
            continue                                              # not importable (a tag duel, a puzzle)
        assert done.returncode == 0, done.stderr
        assert "Card " not in done.stdout, f"{replay.name}: every card is named"
