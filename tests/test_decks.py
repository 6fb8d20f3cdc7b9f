""".ydk files, ydke:// URLs, lflist.conf banlists, the deck check and ``ygoreplay deck check``.

The real decks of ../shared/real-decks/edopro round-trip both formats. Their cards are mostly not in
the bundled classic set, so checking them must report those passcodes (CARD-01) and never guess
their type or name; a deck built from the classic set passes. One legal and one illegal case per
rule ID: DECK-01, 02, 03, 05, 06, 08, 10 and CARD-01.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SHARED, shared_path

from duel import fold, position
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.cli import main
from ygoreplay.decks import (
    Banlist, BanlistFormatError, Deck, DeckFormatError, Problem, check_deck, deck_problems,
    read_deck, read_lflist, read_ydk, read_ydke, write_ydk, write_ydke)

CARDS = CardDB.classic()
MAIN_POOL = sorted(c.code for c in CARDS.values() if not c.is_extra_deck and not c.is_token)
EXTRA_POOL = sorted(c.code for c in CARDS.values() if c.is_extra_deck)
DARK_MAGICIAN, BLUE_EYES, CELTIC, MST = 46986414, 89631139, 91152256, 5318639
STARDUST, DECODE_TALKER, SHEEP_TOKEN = 44508094, 1861629, 73915052
CHANGE_OF_HEART, POT, GRACEFUL, MIRROR_FORCE = 4031928, 55144522, 79571449, 44095762
UNKNOWN = 12345678  # not in the classic set
BANNED = {CHANGE_OF_HEART, POT, GRACEFUL, MIRROR_FORCE}  # on the 2005.4 GOAT list of LFLIST below
FREE_POOL = [c for c in MAIN_POOL if c not in BANNED]

REAL_DECKS = SHARED / "real-decks" / "edopro"
REAL_NAMES = sorted(p.name for p in REAL_DECKS.glob("*.ydk")) if REAL_DECKS.is_dir() else ["(absent)"]

# The example of shared/formats/CARD-AND-DECK-FORMATS.md.
DOC_DECK = Deck([46986414, 46986414, 89631139], [44508094], [5318639])
DOC_URL = "ydke://rvTMAq70zAKjqVcF!viOnAg==!7ydRAA==!"


def cards_of(pool: list[int], count: int) -> list[int]:
    """``count`` passcodes from ``pool``, three copies of each in turn (DECK-06 stays satisfied)."""
    return [code for code in pool for _ in range(3)][:count]


def legal_deck() -> Deck:
    """40 Main, 15 Extra, 15 Side, all classic cards, at most 3 of any name in all."""
    return Deck(cards_of(MAIN_POOL, 40), cards_of(EXTRA_POOL, 15), cards_of(MAIN_POOL[20:], 15))


def rules(problems: list[Problem]) -> list[str]:
    return [p.rule for p in problems]


def only(problems: list[Problem], rule: str) -> Problem:
    found = [p for p in problems if p.rule == rule]
    assert len(found) == 1, problems
    return found[0]


# -- .ydk ---------------------------------------------------------------------------------------

def test_ydk_sections_comments_and_blank_lines() -> None:
    deck = read_ydk("#created by someone\r\n#main\r\n46986414\r\n\r\n  089631139  \r\n"
                    "#a comment\r\n#extra\r\n44508094\r\n!side\r\n5318639\r\n")
    assert deck == Deck([46986414, 89631139], [44508094], [5318639])


def test_ydk_any_bang_line_starts_the_side_deck_and_markers_ignore_case() -> None:
    assert read_ydk("#MAIN\n1\n#Extra\n2\n!Side deck\n3\n") == Deck([1], [2], [3])
    assert read_ydk("1\n2\n") == Deck([1, 2])  # no marker: the Main Deck


def test_ydk_reads_paths_bytes_with_a_bom_and_utf16(tmp_path: Path) -> None:
    text = "#created by ygopro2\n#main\n46986414\n#extra\n44508094\n!side\n5318639\n"
    path = tmp_path / "odd name ★ [x].ydk"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert read_ydk(path) == read_ydk(str(path)) == Deck([46986414], [44508094], [5318639])
    assert read_ydk(("\ufeff" + text).encode("utf-16")) == read_ydk(path)
    assert read_ydk("#créé par é\n#main\n1\n".encode("latin-1")) == Deck([1])


def test_write_ydk_is_what_edopro_writes() -> None:
    assert write_ydk(DOC_DECK, created_by="me") == (
        "#created by me\n#main\n46986414\n46986414\n89631139\n#extra\n44508094\n!side\n5318639\n")
    assert read_ydk(write_ydk(Deck())) == Deck()


@pytest.mark.parametrize("text, fragment", [
    pytest.param("#main\n46986414\nDark Magician\n", "line 3: 'Dark Magician': not a passcode",
                 id="name-not-passcode"),
    pytest.param("#main\n46986414 --Dark Magician\n", "line 2:", id="trailing-comment"),
    pytest.param("#main\n1\n2\n-5\n", "line 4: '-5': not a passcode", id="negative"),
    pytest.param("#main\n0\n", "line 2: '0': passcode 0 is no card", id="zero"),
    pytest.param("#main\n99999999999\n", "line 2: '99999999999': out of the passcode range",
                 id="too-big"),
    pytest.param("#main\n４６９８６４１４\n", "line 2:", id="fullwidth-digits"),
])
def test_ydk_errors_name_the_line(text: str, fragment: str) -> None:
    with pytest.raises(DeckFormatError, match="^<text>: ") as err:
        read_ydk(text)
    assert fragment in str(err.value)


def test_ydk_missing_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(DeckFormatError, match="cannot read"):
        read_ydk(tmp_path / "nope.ydk")


# -- ydke:// ------------------------------------------------------------------------------------

def test_ydke_example_from_the_formats_doc() -> None:
    assert write_ydke(DOC_DECK) == DOC_URL
    assert read_ydke(DOC_URL) == DOC_DECK
    assert read_deck(DOC_URL) == DOC_DECK


def test_ydke_tolerates_missing_padding_whitespace_and_no_closing_bang() -> None:
    assert read_ydke("  ydke://rvTMAq70zAKjqVcF!viOnAg!7ydRAA  ") == DOC_DECK
    assert read_ydke("ydke://!!!") == Deck()


@pytest.mark.parametrize("url, fragment", [
    pytest.param("ydk://rvTMAq70zAKjqVcF!!!", "must start with 'ydke://'", id="prefix"),
    pytest.param("ydke://rvTMAq70zAKjqVcF!viOnAg==", "found 2 part(s)", id="too-few-parts"),
    pytest.param("ydke://rvTMA*q70zAKjqVcF!!!", "the main part has '*'", id="main-bad-char"),
    pytest.param("ydke://rvTMAq70zAKjqVcF!viOn=Ag==!!", "the extra part has '=' padding", id="extra-padding"),
    pytest.param("ydke://!!7ydRAA==AA!", "the side part", id="side-padding"),
    pytest.param("ydke://rvTMAq70zAKjqVc!!!", "the main part holds 11 bytes", id="main-not-u32"),
    pytest.param("ydke://!AAAAAA==!!", "the extra part has passcode 0", id="extra-zero"),
    pytest.param("ydke://!!!more", "after the side part", id="trailing"),
])
def test_ydke_errors_name_the_part(url: str, fragment: str) -> None:
    with pytest.raises(DeckFormatError, match="^ydke URL: ") as err:
        read_ydke(url)
    assert fragment in str(err.value)


def test_write_ydke_refuses_a_passcode_that_is_no_u32() -> None:
    with pytest.raises(DeckFormatError, match="passcode 4294967296"):
        write_ydke(Deck([2 ** 32]))


def test_read_deck_names_a_url_that_is_no_deck_format() -> None:
    with pytest.raises(DeckFormatError, match="https:// is no deck format"):
        read_deck("https://ygoprodeck.com/deck/1")


# -- the real decks of ../shared/real-decks/edopro -----------------------------------------------

@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_deck_round_trips_ydk_and_ydke(name: str) -> None:
    path = shared_path("real-decks", "edopro", name)
    deck = read_ydk(path)
    assert len(deck.main) > 0 and all(isinstance(c, int) and c > 0 for c in deck.codes())
    written = write_ydk(deck)
    assert read_ydk(written) == deck
    # Byte for byte what EDOPro wrote, apart from the '#created by' line (and one file's BOM).
    original = path.read_bytes().decode("utf-8-sig").splitlines()
    assert original[0].startswith("#created by")
    assert written.splitlines()[1:] == original[1:]
    url = write_ydke(deck)
    assert read_ydke(url) == deck
    assert write_ydke(read_ydke(url)) == url


@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_deck_check_reports_unknown_passcodes_and_guesses_nothing(name: str) -> None:
    deck = read_ydk(shared_path("real-decks", "edopro", name))
    problems = check_deck(deck, CARDS)
    unknown = {code for code in deck.codes() if code not in CARDS}
    card01 = [p for p in problems if p.rule == "CARD-01"]
    # Each unknown passcode once, with where it is and how often.
    assert len(card01) == len(unknown)
    for code in unknown:
        (problem,) = [p for p in card01 if f"passcode {code} " in p.message]
        assert "not guessed" in problem.message
    # The rest follows from the section sizes and copies alone, or from facts we do have.
    counts = Counter(deck.codes())
    expected = set()
    if not 40 <= len(deck.main) <= 60:
        expected.add("DECK-01")
    if len(deck.extra) > 15:
        expected.add("DECK-03")
    if len(deck.side) > 15:
        expected.add("DECK-05")
    if any(n > 3 for n in counts.values()):
        expected.add("DECK-06")
    others = [p for p in problems if p.rule != "CARD-01"]
    assert {p.rule for p in others} >= expected
    for p in others:
        assert p.rule in expected or any(f"({code})" in p.message for code in deck.codes()
                                         if code in CARDS), p
        assert not any(f"({code})" in p.message for code in unknown), p


def test_all_real_decks_read_and_their_oddities() -> None:
    folder = shared_path("real-decks", "edopro")
    decks = {p.name: read_ydk(p) for p in sorted(folder.glob("*.ydk"))}
    assert len(decks) >= 100
    # One file starts with a UTF-8 BOM; names hold '[', ']', '★', '&', "'" — all read.
    assert (folder / "AI_Salamangreat.ydk").read_bytes().startswith(b"\xef\xbb\xbf")
    assert decks["AI_Salamangreat.ydk"].main[0] == 97268402
    assert "[Tactical-Try_Deck]_Evil★Twin_the_Kaito_Pair.ydk" in decks
    # Not every real deck is tournament-sized: DECK-01/03/05 flag them on sizes alone.
    fleur = check_deck(decks["Perso_-_Fleur.ydk"], CARDS)
    assert {"DECK-03", "DECK-05"} <= set(rules(fleur))
    assert "16 cards" in only(fleur, "DECK-03").message and "25 cards" in only(fleur, "DECK-05").message
    assert "66 cards" in only(check_deck(decks["Perso_-_Cartes_memo.ydk"], CARDS), "DECK-01").message


def test_real_deck_cards_known_from_a_cards_cdb_are_judged(tmp_path: Path) -> None:
    """With facts, a real deck's cards are checked by type: here the classic cards of a Starter
    Deck, given through the classic set, and no CARD-01 for them."""
    deck = read_ydk(shared_path("real-decks", "edopro", "Starter_Deck_-_Yugi_Reloaded.ydk"))
    known = [c for c in deck.codes() if c in CARDS]
    assert known  # Dark Magician and friends
    problems = check_deck(deck, CARDS)
    assert not any(f"passcode {c} " in p.message for p in problems for c in known)


# -- lflist.conf --------------------------------------------------------------------------------

LFLIST = """\
#[2005.4 GOAT]
#[Traditional]
!2005.4 GOAT
#forbidden
4031928 0 --Change of Heart
55144522 0 --Pot of Greed
#limited
079571449 1 --Graceful Charity (leading zero)
44095762 2   -- Mirror Force, semi-limited
5318639 3
!My whitelist
$whitelist
46986414 3 --Dark Magician
89631139 1
91152256 5 --EDOPro takes any count

!Empty list
"""


def test_lflist_several_lists_whitelist_leading_zeros_and_comments() -> None:
    lists = read_lflist(LFLIST)
    assert list(lists) == ["2005.4 GOAT", "My whitelist", "Empty list"]
    goat = lists["2005.4 GOAT"]
    assert goat == Banlist("2005.4 GOAT", {CHANGE_OF_HEART: 0, POT: 0, GRACEFUL: 1,
                                           MIRROR_FORCE: 2, MST: 3})
    assert not goat.whitelist
    white = lists["My whitelist"]
    assert white.whitelist and white.limits == {DARK_MAGICIAN: 3, BLUE_EYES: 1, CELTIC: 5}
    assert lists["Empty list"] == Banlist("Empty list", {}, False)


def test_lflist_reads_files_crlf_and_a_later_entry_wins(tmp_path: Path) -> None:
    path = tmp_path / "lflist.conf"
    path.write_bytes(b"\xef\xbb\xbf!A\r\n1 0\r\n1 2\r\n")
    assert read_lflist(path) == {"A": Banlist("A", {1: 2})}


def test_banlist_matches_on_code_then_alias() -> None:
    original = CardFacts(code=1000, name="Card", type=0x2)
    alt_art = CardFacts(code=1001, name="Card", type=0x2, alias=1000)
    listed_alt = Banlist("x", {1000: 1, 1001: 2})
    assert Banlist("x", {1000: 1}).limit(alt_art) == 1
    assert listed_alt.limit(alt_art) == 2 and listed_alt.limit(original) == 1
    assert Banlist("x", {}).limit(original) is None and Banlist("x", {7: 0}).limit(7) == 0


@pytest.mark.parametrize("text, fragment", [
    pytest.param("1 0\n!A\n", "line 1: '1 0': an entry before any !name list", id="entry-first"),
    pytest.param("$whitelist\n!A\n", "line 1: '$whitelist': $whitelist before any", id="whitelist-first"),
    pytest.param("!A\n4031928\n", "line 2: '4031928': expected 'passcode count'", id="no-count"),
    pytest.param("!A\nChange of Heart 0\n", "line 2:", id="name-not-passcode"),
    pytest.param("!A\n4031928 one\n", "line 2:", id="word-count"),
    pytest.param("!A\n4031928 -1\n", "line 2: '4031928 -1': count -1 is negative", id="negative"),
    pytest.param("!A\n0 1\n", "passcode 0 is no card", id="zero"),
    pytest.param("!A\n$blacklist\n", "line 2: '$blacklist': unknown directive", id="directive"),
    pytest.param("!A\n$\n", "line 2: '$': unknown directive", id="bare-dollar"),
    pytest.param("!\n", "line 1: '!': a list needs a name", id="no-name"),
    pytest.param("!A\n1 0\n!A\n", "line 3: '!A': the list 'A' was already started on line 1",
                 id="twice"),
])
def test_lflist_errors_name_the_line(text: str, fragment: str) -> None:
    with pytest.raises(BanlistFormatError, match="^<text>: ") as err:
        read_lflist(text)
    assert fragment in str(err.value)


# -- check_deck: legal ----------------------------------------------------------------------------

def test_a_classic_deck_passes() -> None:
    deck = legal_deck()
    assert deck.sizes() == {"main": 40, "extra": 15, "side": 15}
    assert check_deck(deck, CARDS) == []
    assert check_deck(deck, CARDS, Banlist("no limits")) == []


@pytest.mark.parametrize("deck", [
    pytest.param(Deck(cards_of(MAIN_POOL, 60)), id="main-60"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), cards_of(EXTRA_POOL, 15)), id="extra-15"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], cards_of(MAIN_POOL[20:], 15)), id="side-15"),
    # MAIN_POOL[13] is in the Main Deck once: two more in the Side Deck make exactly 3.
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], [MAIN_POOL[13]] * 2), id="3-with-side"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [STARDUST, DECODE_TALKER]), id="synchro-link-extra"),
])
def test_legal_edges_pass(deck: Deck) -> None:
    assert check_deck(deck, CARDS) == []


def test_banlist_allows_up_to_its_count() -> None:
    main = cards_of(FREE_POOL, 37)
    deck = Deck(main + [GRACEFUL, MIRROR_FORCE, MIRROR_FORCE])
    assert check_deck(deck, CARDS, read_lflist(LFLIST)["2005.4 GOAT"]) == []


def test_whitelist_allows_listed_cards() -> None:
    deck = Deck([DARK_MAGICIAN] * 3 + [BLUE_EYES] + [CELTIC] * 3)
    white = read_lflist(LFLIST)["My whitelist"]
    assert rules(check_deck(deck, CARDS, white)) == ["DECK-01"]  # 7 cards; nothing else


# -- check_deck: illegal, one per rule ID -----------------------------------------------------------

@pytest.mark.parametrize("deck, rule, fragment", [
    pytest.param(Deck(cards_of(MAIN_POOL, 39)), "DECK-01", "39 cards", id="main-39"),
    pytest.param(Deck(cards_of(MAIN_POOL, 61)), "DECK-01", "61 cards", id="main-61"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40) + [STARDUST]), "DECK-02",
                 "Stardust Dragon (44508094) may not be in the Main Deck", id="synchro-in-main"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), cards_of(EXTRA_POOL, 16)), "DECK-03", "16 cards",
                 id="extra-16"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [CELTIC]), "DECK-03",
                 "Celtic Guardian (91152256) is not an Extra Deck monster", id="main-monster-in-extra"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], cards_of(MAIN_POOL[20:], 16)), "DECK-05", "16 cards",
                 id="side-16"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], [MAIN_POOL[0]]), "DECK-06",
                 "4 copies of", id="4-across-main-and-side"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [STARDUST] * 4), "DECK-06", "4 copies of Stardust Dragon",
                 id="4-in-extra"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40) + [SHEEP_TOKEN]), "DECK-10",
                 "Sheep Token (73915052) is a Token and cannot be in any deck (found in the Main Deck)",
                 id="token-in-main"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [SHEEP_TOKEN]), "DECK-10", "(found in the Extra Deck)",
                 id="token-in-extra"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], [SHEEP_TOKEN]), "DECK-10", "(found in the Side Deck)",
                 id="token-in-side"),
    pytest.param(Deck(cards_of(MAIN_POOL, 39) + [UNKNOWN]), "CARD-01",
                 f"passcode {UNKNOWN} is unknown: no card facts for it (Main Deck)", id="unknown"),
    pytest.param(Deck(cards_of(MAIN_POOL, 38) + [UNKNOWN] * 2, [], [UNKNOWN]), "CARD-01",
                 "(Main Deck x2, Side Deck)", id="unknown-twice-and-in-side"),
])
def test_illegal_decks_name_the_rule(deck: Deck, rule: str, fragment: str) -> None:
    problems = check_deck(deck, CARDS)
    assert fragment in only(problems, rule).message
    assert rules(problems) == sorted(rules(problems))


def test_deck_10_a_token_made_in_the_duel_needs_no_deck() -> None:
    """DECK-10: a deck of real cards passes; a Token comes from an effect during the duel, not from a deck."""
    assert check_deck(legal_deck(), CARDS) == []
    made = {"kind": "token_created", "card": "p0.sheep", "code": SHEEP_TOKEN, "zone": 2, "cause": "scapegoat"}
    state = fold(position(), made, cards=CARDS)
    assert state.cards["p0.sheep"].is_token and state.sides[0].mzone[2] == "p0.sheep"


def test_a_token_is_deck_10_only_not_also_deck_02_or_03() -> None:
    problems = check_deck(Deck(cards_of(MAIN_POOL, 40) + [SHEEP_TOKEN], [SHEEP_TOKEN]), CARDS)
    assert rules(problems) == ["DECK-10", "DECK-10"]


def test_copies_of_a_misplaced_card_are_one_problem_with_the_count() -> None:
    problems = check_deck(Deck(cards_of(MAIN_POOL, 58) + [STARDUST] * 3), CARDS)
    assert [str(p) for p in problems] == [
        "DECK-01 the Main Deck has 61 cards; it must have 40 to 60",
        "DECK-02 Stardust Dragon (44508094) may not be in the Main Deck (3 copies)"]


def test_unknown_cards_count_toward_sizes_and_copies_but_are_not_typed() -> None:
    deck = Deck(cards_of(MAIN_POOL, 36) + [UNKNOWN] * 4, [UNKNOWN + 1])
    problems = check_deck(deck, CARDS)
    assert rules(problems) == ["CARD-01", "CARD-01", "DECK-06"]  # no DECK-01, no DECK-03
    assert f"4 copies of passcode {UNKNOWN} (unknown card)" in only(problems, "DECK-06").message


def test_deck_06_same_name_by_alias_and_by_equal_names() -> None:
    """DECK-06 counts one name: alternate artworks (alias) and reprints with the same name."""
    original = CardFacts(code=1000, name="Card A", type=0x2)
    alt_art = CardFacts(code=1001, name="Card A", type=0x2, alias=1000)
    renamed_print = CardFacts(code=2000, name="Card B", type=0x2)
    same_name = CardFacts(code=3000, name="Card B", type=0x2)
    db = CardDB([*CARDS.values(), original, alt_art, renamed_print, same_name])
    base = cards_of(MAIN_POOL, 37)
    assert check_deck(Deck(base + [1000, 1001, 2000], [], [1001, 3000, 3000]), db) == []
    problems = check_deck(Deck(base + [1000, 1000, 1001], [], [1001, 2000, 3000, 3000, 2000]), db)
    assert [p.message for p in problems] == [
        "4 copies of Card A; at most 3 across Main, Extra and Side",
        "4 copies of Card B; at most 3 across Main, Extra and Side"]


@pytest.mark.parametrize("extra_cards, fragment", [
    pytest.param([CHANGE_OF_HEART], "1 copy of Change of Heart; the list '2005.4 GOAT' allows 0 (Forbidden)",
                 id="forbidden"),
    pytest.param([GRACEFUL, GRACEFUL], "2 copies of Graceful Charity; the list '2005.4 GOAT' allows 1 (Limited)",
                 id="limited"),
    pytest.param([MIRROR_FORCE] * 3, "3 copies of Mirror Force; the list '2005.4 GOAT' allows 2 (Semi-Limited)",
                 id="semi-limited"),
])
def test_deck_08_banlist_counts_across_main_extra_and_side(extra_cards: list[int], fragment: str) -> None:
    main = cards_of(FREE_POOL, 40)
    deck = Deck(main[:40 - len(extra_cards) + 1] + extra_cards[:1], [], extra_cards[1:])
    problems = check_deck(deck, CARDS, read_lflist(LFLIST)["2005.4 GOAT"])
    assert only(problems, "DECK-08").message == fragment


def test_deck_08_whitelist_forbids_unlisted_cards() -> None:
    white = read_lflist(LFLIST)["My whitelist"]
    problems = check_deck(Deck([DARK_MAGICIAN] * 2 + [BLUE_EYES] * 2 + [MST]), CARDS, white)
    assert [str(p) for p in problems if p.rule == "DECK-08"] == [
        "DECK-08 Mystical Space Typhoon (5318639) is not on the list 'My whitelist', a whitelist: "
        "unlisted cards are forbidden",
        "DECK-08 2 copies of Blue-Eyes White Dragon; the list 'My whitelist' allows 1 (Limited)"]


def test_deck_08_matches_an_alternate_artwork_on_its_alias() -> None:
    alt_pot = CardFacts(code=55144523, name="Pot of Greed (alt)", type=0x2, alias=POT)
    db = CardDB([*CARDS.values(), alt_pot])
    deck = Deck(cards_of(FREE_POOL, 39) + [alt_pot.code])
    problems = check_deck(deck, db, read_lflist(LFLIST)["2005.4 GOAT"])
    assert only(problems, "DECK-08").message.startswith("1 copy of Pot of Greed (alt)")


def test_deck_08_an_unknown_passcode_is_judged_only_when_listed() -> None:
    main = cards_of(MAIN_POOL, 38) + [UNKNOWN, UNKNOWN + 1]
    banlist = Banlist("x", {UNKNOWN: 0})
    problems = check_deck(Deck(main), CARDS, banlist)
    assert rules(problems) == ["CARD-01", "CARD-01", "DECK-08"]
    assert f"passcode {UNKNOWN} (unknown card)" in only(problems, "DECK-08").message
    whitelist = Banlist("w", {c: 3 for c in MAIN_POOL}, whitelist=True)
    assert rules(check_deck(Deck(main), CARDS, whitelist)) == ["CARD-01", "CARD-01"]


# -- registration and deck check agree --------------------------------------------------------

def test_deck_registration_shares_the_check() -> None:
    from ygoreplay.rules import setup
    assert setup.deck_problems is deck_problems


# -- the command line -------------------------------------------------------------------------------

def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def legal_ydk(tmp_path: Path) -> Path:
    path = tmp_path / "legal.ydk"
    path.write_text(write_ydk(legal_deck()))
    return path


@pytest.fixture
def lflist(tmp_path: Path) -> Path:
    path = tmp_path / "lflist.conf"
    path.write_text(LFLIST)
    return path


def test_cli_legal_deck_exits_0(legal_ydk: Path) -> None:
    result = run("deck", "check", legal_ydk)
    assert result.exit_code == 0, result.output
    assert result.output == f"{legal_ydk}: legal; Main 40, Extra 15, Side 15\n"


def test_cli_prints_rule_and_message_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "bad.ydk"
    path.write_text(write_ydk(Deck(cards_of(MAIN_POOL, 39) + [UNKNOWN], [], [SHEEP_TOKEN])))
    result = run("deck", "check", path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"CARD-01 passcode {UNKNOWN} is unknown")
    assert lines[1].startswith("DECK-10 Sheep Token (73915052) is a Token")
    assert lines[-1] == f"{path}: 2 problem(s); Main 40, Extra 0, Side 1"


def test_cli_json_shape(lflist: Path) -> None:
    url = write_ydke(Deck([CHANGE_OF_HEART] + cards_of(FREE_POOL, 39), [CELTIC]))
    result = run("deck", "check", url, "--banlist", lflist, "--list", "2005.4 GOAT", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert set(data) == {"deck", "sizes", "legal", "banlist", "problems"}
    assert data["deck"] == "ydke URL" and data["legal"] is False
    assert data["sizes"] == {"main": 40, "extra": 1, "side": 0}  # as written: Celtic Guardian under Extra
    goat = read_lflist(lflist)["2005.4 GOAT"]
    assert data["banlist"] == {"file": str(lflist), "list": "2005.4 GOAT", "whitelist": False,
                               "hash": goat.content_hash()}
    assert {"rule": "DECK-03", "message": "Celtic Guardian (91152256) is not an Extra Deck monster"} in data["problems"]
    assert {"rule": "DECK-08", "message": "1 copy of Change of Heart; the list '2005.4 GOAT' allows 0 "
                                          "(Forbidden)"} in data["problems"]
    assert all(set(p) == {"rule", "message"} for p in data["problems"])


def test_cli_json_legal(legal_ydk: Path) -> None:
    result = run("deck", "check", legal_ydk, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["legal"] is True and data["problems"] == []
    assert data["banlist"] is None


def test_cli_judges_sections_as_written(tmp_path: Path) -> None:
    """DECK-02/03: a card in the wrong section is a problem, as registration finds it, not moved."""
    deck = legal_deck()
    path = tmp_path / "mixed.ydk"
    path.write_text(write_ydk(Deck(deck.main[:39] + deck.extra[:1], deck.extra[1:] + deck.main[39:], deck.side)))
    result = run("deck", "check", path)
    assert result.exit_code == 1, result.output
    assert "DECK-02" in result.stdout and "may not be in the Main Deck" in result.stdout
    assert "DECK-03" in result.stdout and "is not an Extra Deck monster" in result.stdout
    assert result.stdout.endswith("2 problem(s); Main 40, Extra 15, Side 15\n")


def test_cli_banlist_choice(lflist: Path, legal_ydk: Path, tmp_path: Path) -> None:
    several = run("deck", "check", legal_ydk, "--banlist", lflist)
    assert several.exit_code == 2 and "pick one with --list" in several.output
    missing = run("deck", "check", legal_ydk, "--banlist", lflist, "--list", "2099.1")
    assert missing.exit_code == 2 and "no list named '2099.1'" in missing.output
    assert "'2005.4 GOAT'" in missing.output
    assert run("deck", "check", legal_ydk, "--list", "x").exit_code == 2  # --list needs --banlist
    one = tmp_path / "one.conf"
    one.write_text("!Only\n$whitelist\n")
    whitelist = run("deck", "check", legal_ydk, "--banlist", one)
    assert whitelist.exit_code == 1 and "not on the list 'Only', a whitelist" in whitelist.output
    assert run("deck", "check", legal_ydk, "--banlist", lflist, "--list", "empty list").exit_code == 0


@pytest.mark.parametrize("make, fragment", [
    pytest.param(lambda p: str(p / "nope.ydk"), "cannot read", id="missing-deck"),
    pytest.param(lambda p: (p / "bad.ydk").write_text("#main\nxyz\n") and str(p / "bad.ydk"),
                 "line 2: 'xyz': not a passcode", id="bad-line"),
    pytest.param(lambda p: "ydke://rvTMAq70zAKjqVc!!!", "the main part holds 11 bytes", id="bad-url"),
])
def test_cli_unreadable_deck_exits_2(tmp_path: Path, make, fragment: str) -> None:
    result = run("deck", "check", make(tmp_path))
    assert result.exit_code == 2 and fragment in result.output
    assert "Traceback" not in result.output


def test_cli_unreadable_banlist_or_cards_exit_2(legal_ydk: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text("!A\nnot an entry\n")
    result = run("deck", "check", legal_ydk, "--banlist", bad)
    assert result.exit_code == 2 and "line 2" in result.output
    empty = tmp_path / "empty.conf"
    empty.write_text("# nothing\n")
    assert run("deck", "check", legal_ydk, "--banlist", empty).exit_code == 2
    assert run("deck", "check", legal_ydk, "--cards", tmp_path / "nope.cdb").exit_code == 2


def test_cli_cards_cdb_makes_passcodes_known(tmp_path: Path) -> None:
    goat = CardDB.from_cdb(shared_path("cards", "goat-entries.cdb"))
    main_cards = sorted(c.code for c in goat.values() if not c.is_extra_deck and not c.is_token)
    path = tmp_path / "goat.ydk"
    path.write_text(write_ydk(Deck(cards_of(main_cards, 40))))
    without = run("deck", "check", path)
    assert without.exit_code == 1 and "CARD-01" in without.output
    with_cards = run("deck", "check", path, "--cards", shared_path("cards", "goat-entries.cdb"))
    assert with_cards.exit_code == 0, with_cards.output


def test_cli_real_deck_with_an_odd_name() -> None:
    path = shared_path("real-decks", "edopro", "[Tactical-Try_Deck]_Evil★Twin_the_Kaito_Pair.ydk")
    result = run("deck", "check", path, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["sizes"] == {"main": 40, "extra": 10, "side": 0}
    assert data["problems"] and {p["rule"] for p in data["problems"]} == {"CARD-01"}


# -- one verdict, two routes: `deck check` and deck registration (DECK-01..10) -------------------

def _registered(deck: Deck, cards: CardDB, banlist: Banlist | None = None) -> set[tuple[str, str]]:
    """What registering ``deck`` in a duel finds: (rule, message) of every violation."""
    from ygoreplay.events import BanlistRef, DeckRegistered, DuelStarted
    from ygoreplay.rules import RuleViolation, apply
    from ygoreplay.state import DuelState
    state = DuelState(cards)
    state.violations = []
    ref = None if banlist is None else BanlistRef(banlist.name, banlist.content_hash(),
                                                  tuple(sorted(banlist.limits.items())), banlist.whitelist)
    apply(state, DuelStarted(first_player=0, banlist=ref))
    try:
        apply(state, DeckRegistered(player=0, main=tuple(deck.main), extra=tuple(deck.extra), side=tuple(deck.side)))
    except RuleViolation as refused:
        return {(refused.rule, refused.message)}
    return {(v.rule, v.message) for v in state.violations}


def _checked(deck: Deck, cards: CardDB, banlist: Banlist | None = None) -> set[tuple[str, str]]:
    """What ``deck check`` finds, one problem per card and message (its '(N copies)' aside)."""
    return {(p.rule, re.sub(r" \(\d+ copies\)$", "", p.message)) for p in check_deck(deck, cards, banlist)}


def _sample_decks() -> list[Deck]:
    from ygoreplay.jsonl import read_events
    root = Path(__file__).resolve().parent.parent / "replays"
    return [Deck(e.main, e.extra, e.side) for path in sorted(root.glob("*.jsonl")) if ".public" not in path.name
            for e in read_events(path) if e.kind == "deck_registered"]


def _both_routes_agree(deck: Deck, cards: CardDB, banlist: Banlist | None = None) -> None:
    registered, checked = _registered(deck, cards, banlist), _checked(deck, cards, banlist)
    if any(code not in cards for code in deck.codes()):       # registration stops at the unknown card
        assert {r for r, _ in registered} == {"CARD-01"} and "CARD-01" in {r for r, _ in checked}
        known = Deck(*([c for c in getattr(deck, s) if c in cards] for s in ("main", "extra", "side")))
        registered, checked = _registered(known, cards, banlist), _checked(known, cards, banlist)
    assert registered == checked


@pytest.fixture(scope="module")
def every_card() -> CardDB:
    goat = SHARED / "cards" / "goat-entries.cdb"
    return CARDS.merged(CardDB.from_cdb(goat)) if goat.is_file() else CARDS


def test_deck_check_and_registration_agree_on_every_real_and_sample_deck(every_card: CardDB) -> None:
    """The same verdict, rule by rule and card by card, from ``deck check`` and from
    ``deck_registered``: on every real deck and every sample duel's deck, as written, and under a
    banlist that forbids one of its cards and limits another (DECK-08)."""
    decks = _sample_decks()
    if REAL_DECKS.is_dir():
        decks += [read_ydk(p) for p in sorted(REAL_DECKS.glob("*.ydk"))]
    assert decks
    flagged = 0
    for deck in decks:
        _both_routes_agree(deck, every_card)
        known = [c for c in dict.fromkeys(deck.main) if c in every_card]
        banlist = Banlist("test", {known[0]: 0, known[-1]: 1} if known else {})
        _both_routes_agree(deck, every_card, banlist)
        flagged += bool(_checked(deck, every_card, banlist))
    assert flagged >= len(decks) // 2


@pytest.mark.parametrize("deck, rule", [
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [DARK_MAGICIAN]), "DECK-03", id="main-monster-under-extra"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40) + [STARDUST]), "DECK-02", id="extra-monster-under-main"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [SHEEP_TOKEN]), "DECK-10", id="token-under-extra"),
    pytest.param(Deck(cards_of(MAIN_POOL, 40), [], [SHEEP_TOKEN]), "DECK-10", id="token-in-side"),
])
def test_both_routes_judge_a_misplaced_card_alike(deck: Deck, rule: str) -> None:
    assert {r for r, _ in _registered(deck, CARDS)} == {r for r, _ in _checked(deck, CARDS)} == {rule}


# -- DECK-08: the banlist a duel is played under, carried with it ----------------------------------

def _goat() -> Banlist:
    return read_lflist(LFLIST)["2005.4 GOAT"]


def _duel_under(banlist: Banlist, **changes) -> dict:
    ref = {"name": banlist.name, "hash": banlist.content_hash(),
           "limits": sorted([code, n] for code, n in banlist.limits.items()), **changes}
    return {"kind": "duel_started", "first_player": 0, "banlist": ref}


def test_deck_08_registration_is_judged_against_the_duel_s_banlist() -> None:
    from duel import fold
    legal = {"kind": "deck_registered", "player": 0, "main": cards_of(FREE_POOL, 40)}
    state = fold(_duel_under(_goat()), legal)
    assert state.banlist[0] == "2005.4 GOAT" and state.sides[0].registered
    one_pot = {**legal, "main": [POT] + cards_of(FREE_POOL, 39)}
    fold({"kind": "duel_started", "first_player": 0}, one_pot)          # no banlist named: 3 copies allowed
    from duel import refused
    v = refused(_duel_under(_goat()), one_pot)
    assert v.rule == "DECK-08" and "Pot of Greed; the list '2005.4 GOAT' allows 0 (Forbidden)" in v.message


def test_deck_08_the_banlist_travels_in_the_record_and_its_hash_is_checked() -> None:
    from duel import refused
    from ygoreplay.events import from_dict
    event = from_dict(_duel_under(_goat()))
    assert event.to_dict()["v"] == 3 and from_dict(event.to_dict()) == event
    assert event.banlist.hash == _goat().content_hash()
    assert Banlist("renamed", dict(_goat().limits)).content_hash() == _goat().content_hash()   # content, not name
    v = refused(_duel_under(_goat(), limits=[[POT, 3]]))
    assert v.rule == "LOG-05" and "does not hold what its hash" in v.message


def test_a_duel_started_of_version_2_still_loads_without_a_banlist() -> None:
    from ygoreplay.events import from_dict
    old = from_dict({"kind": "duel_started", "v": 2, "first_player": 1, "options": ["starting_lp"],
                     "starting_lp": 4000})
    assert old.banlist is None and old.to_dict()["v"] == 2
