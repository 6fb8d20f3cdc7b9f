"""Card facts: the curated set, the cards.cdb loader and the JSON round trip."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import shared_path

from ygoreplay.cards import (Attribute, CardDB, CardDBError, CardFacts, CardType, LinkMarker,
                             Race)
from ygoreplay.effect_facts import EffectFact

GOAT_ROWS = 187


@pytest.fixture(scope="module")
def classic() -> CardDB:
    return CardDB.classic()


@pytest.fixture(scope="module")
def goat() -> CardDB:
    return CardDB.from_cdb(shared_path("cards", "goat-entries.cdb"))


def _goat_by_alias(goat: CardDB) -> dict[int, CardFacts]:
    return {card.alias: card for card in goat.values()}


# --- the curated set -------------------------------------------------------------------------

def test_classic_is_cached_and_big_enough(classic: CardDB) -> None:
    assert CardDB.classic() is classic
    assert len(classic) >= 60


CATEGORIES = {
    "normal": lambda c: c.is_normal_monster and not c.is_token and not c.is_pendulum,
    "effect": lambda c: c.is_monster and c.type == CardType.MONSTER | CardType.EFFECT,
    "flip": lambda c: c.is_flip,
    "ritual": lambda c: c.is_ritual,
    "tuner": lambda c: c.is_tuner,
    "pendulum": lambda c: c.is_pendulum,
    "normal pendulum": lambda c: c.is_pendulum and c.is_normal_monster,
    "fusion": lambda c: c.is_fusion,
    "synchro": lambda c: c.is_synchro,
    "xyz": lambda c: c.is_xyz,
    "link": lambda c: c.is_link,
    "token": lambda c: c.is_token,
    **{f"{sub} spell": (lambda c, sub=sub: c.spell_subtype == sub)
       for sub in ("normal", "quickplay", "continuous", "equip", "field", "ritual")},
    **{f"{sub} trap": (lambda c, sub=sub: c.trap_subtype == sub)
       for sub in ("normal", "continuous", "counter")},
}


@pytest.mark.parametrize("category", CATEGORIES)
def test_classic_covers_category(classic: CardDB, category: str) -> None:
    assert any(CATEGORIES[category](card) for card in classic.values()), category


REQUIRED = {
    46986414: "Dark Magician", 89631139: "Blue-Eyes White Dragon", 70781052: "Summoned Skull",
    91152256: "Celtic Guardian", 69140098: "Gemini Elf", 15025844: "Mystical Elf",
    97590747: "La Jinn the Mystical Genie of the Lamp", 5053103: "Battle Ox",
    13039848: "Giant Soldier of Stone", 14898066: "Vorse Raider", 43096270: "Alexandrite Dragon",
    69247929: "Gene-Warped Warwolf", 11091375: "Luster Dragon", 40640057: "Kuriboh",
    26202165: "Sangan", 78010363: "Witch of the Black Forest",
    71413901: "Breaker the Magical Warrior", 77585513: "Jinzo", 70095154: "Cyber Dragon",
    74131780: "Exiled Force", 33184167: "Tribe-Infecting Virus", 23205979: "Spirit Reaper",
    8131171: "Sinister Serpent", 40737112: "Dark Magician of Chaos", 54652250: "Man-Eater Bug",
    31560081: "Magician of Faith", 64631466: "Relinquished", 5405694: "Black Luster Soldier",
    63977008: "Junk Synchron", 16178681: "Odd-Eyes Pendulum Dragon",
    94415058: "Stargazer Magician", 20409757: "Timegazer Magician", 98502113: "Dark Paladin",
    41462083: "Thousand Dragon", 45231177: "Flame Swordsman",
    23995346: "Blue-Eyes Ultimate Dragon", 44508094: "Stardust Dragon", 60800381: "Junk Warrior",
    84013237: "Number 39: Utopia", 1861629: "Decode Talker", 98978921: "Link Spider",
    22862454: "Proxy Dragon", 73915052: "Sheep Token", 55144522: "Pot of Greed",
    53129443: "Dark Hole", 12580477: "Raigeki", 83764718: "Monster Reborn",
    5318639: "Mystical Space Typhoon", 73915051: "Scapegoat",
    72302403: "Swords of Revealing Light", 40619825: "Axe of Despair",
    70828912: "Premature Burial", 18161786: "Mystic Plasma Zone", 59197169: "Yami",
    55761792: "Black Luster Ritual", 24094653: "Polymerization", 4031928: "Change of Heart",
    72892473: "Card Destruction", 79571449: "Graceful Charity", 19613556: "Heavy Storm",
    71044499: "Nobleman of Crossout", 45986603: "Snatch Steal", 44095762: "Mirror Force",
    4206964: "Trap Hole", 62279055: "Magic Cylinder", 83555666: "Ring of Destruction",
    53582587: "Torrential Tribute", 56120475: "Sakuretsu Armor", 60082869: "Dust Tornado",
    12607053: "Waboku", 29401950: "Bottomless Trap Hole", 97077563: "Call of the Haunted",
    51452091: "Royal Decree", 41420027: "Solemn Judgment", 77414722: "Magic Jammer",
    3819470: "Seven Tools of the Bandit", 14315573: "Negate Attack",
}


def test_classic_has_every_required_card(classic: CardDB) -> None:
    assert {code: classic[code].name for code in REQUIRED if code in classic} == REQUIRED


def test_dark_magician_facts(classic: CardDB) -> None:
    dm = classic.by_name("dark magician")
    assert (dm.code, dm.atk, dm.defense, dm.level) == (46986414, 2500, 2100, 7)
    assert dm.attribute == Attribute.DARK and dm.race == Race.SPELLCASTER
    assert dm.is_normal_monster and not dm.is_extra_deck and dm.printed_level == 7
    assert dm.rank is None and dm.link_rating is None and dm.activation_speed is None


def test_decode_talker_facts(classic: CardDB) -> None:
    dt = classic[1861629]
    assert dt.is_link and dt.is_extra_deck and dt.link_rating == 3
    assert dt.link_markers == LinkMarker.TOP | LinkMarker.BOTTOM_LEFT | LinkMarker.BOTTOM_RIGHT
    assert dt.defense is None and dt.base_def is None
    assert dt.printed_level is None and dt.rank is None


def test_pendulum_and_xyz_facts(classic: CardDB) -> None:
    stargazer = classic[94415058]
    assert (stargazer.lscale, stargazer.rscale, stargazer.printed_level) == (1, 1, 5)
    assert stargazer.is_pendulum and not stargazer.is_extra_deck
    assert not stargazer.is_normal_monster
    assert classic[20409757].lscale == 8 and classic[16178681].rscale == 4
    utopia = classic[84013237]
    assert utopia.is_xyz and utopia.rank == 4 and utopia.printed_level is None


def test_normal_monster_is_card03(classic: CardDB) -> None:
    assert classic.by_name("Flash Knight").is_normal_monster  # Normal Pendulum
    assert not classic.by_name("Black Luster Soldier").is_normal_monster  # effectless Ritual
    assert not classic.by_name("Thousand Dragon").is_normal_monster  # effectless Fusion
    assert not classic.by_name("Kuriboh").is_normal_monster


@pytest.mark.parametrize("name, subtype, speed", [
    ("Pot of Greed", "normal", 1), ("Mystical Space Typhoon", "quickplay", 2),
    ("Messenger of Peace", "continuous", 1), ("Axe of Despair", "equip", 1),
    ("Yami", "field", 1), ("Black Luster Ritual", "ritual", 1),
])
def test_spell_subtype_and_speed(classic: CardDB, name: str, subtype: str, speed: int) -> None:
    card = classic.by_name(name)
    assert (card.spell_subtype, card.trap_subtype, card.activation_speed) == (subtype, None, speed)
    assert not card.is_ritual and not card.is_monster


@pytest.mark.parametrize("name, subtype, speed", [
    ("Mirror Force", "normal", 2), ("Call of the Haunted", "continuous", 2),
    ("Solemn Judgment", "counter", 3),
])
def test_trap_subtype_and_speed(classic: CardDB, name: str, subtype: str, speed: int) -> None:
    card = classic.by_name(name)
    assert (card.trap_subtype, card.spell_subtype, card.activation_speed) == (subtype, None, speed)


def test_unknown_atk_counts_as_zero() -> None:
    card = CardFacts(code=1, name="Mystery", type=CardType.MONSTER | CardType.EFFECT,
                     level=4, atk=-2, defense=-2)
    assert (card.base_atk, card.base_def) == (0, 0)
    assert card.describe().endswith("ATK ? / DEF ?")


@pytest.mark.parametrize("code, text", [
    (46986414, "Dark Magician — Level 7 DARK Spellcaster Normal Monster, ATK 2500 / DEF 2100"),
    (1861629, "Decode Talker — Link-3 DARK Cyberse Link/Effect Monster, ATK 2300, arrows ↙↑↘"),
    (94415058, "Stargazer Magician — Level 5 DARK Spellcaster Pendulum/Effect Monster, "
               "Scale 1, ATK 1200 / DEF 2400"),
    (84013237, "Number 39: Utopia — Rank 4 LIGHT Warrior Xyz/Effect Monster, ATK 2500 / DEF 2000"),
    (73915052, "Sheep Token — Level 1 EARTH Beast Token, ATK 0 / DEF 0"),
    (5318639, "Mystical Space Typhoon — Quick-Play Spell"),
    (41420027, "Solemn Judgment — Counter Trap"),
])
def test_describe(classic: CardDB, code: int, text: str) -> None:
    assert classic[code].describe() == text


@pytest.mark.parametrize("language, code, text", [
    ("ja", 46986414, "Dark Magician — レベル 7 闇属性 魔法使い族 通常モンスター、攻撃力 2500 / 守備力 2100"),
    ("ko", 1861629, "Decode Talker — 링크-3 어둠 속성 사이버스족 링크/효과 몬스터, 공격력 2300, 링크 마커 ↙↑↘"),
    ("zh-Hans", 94415058, "Stargazer Magician — 等级 5 暗属性 魔法师族 灵摆/效果怪兽，灵摆刻度 1，攻击力 1200 / 守备力 2400"),
    ("zh-Hant", 84013237, "Number 39: Utopia — 階級 4 光屬性 戰士族 超量/效果怪獸，攻擊力 2500 / 守備力 2000"),
    ("ja", 73915052, "Sheep Token — レベル 1 地属性 獣族 トークン、攻撃力 0 / 守備力 0"),
    ("ko", 5318639, "Mystical Space Typhoon — 속공 마법"),
    ("ja", 41420027, "Solemn Judgment — カウンター罠"),
    ("zh-Hant", 41420027, "Solemn Judgment — 反擊陷阱"),
])
def test_describe_speaks_the_readers_language_in_the_ocgs_terms(classic: CardDB, language: str, code: int,
                                                                text: str) -> None:
    """The card details line (recorder page, viewer, ``cards find``) in the reader's language: the
    OCG's attribute, Type and card-type words, not English in every language."""
    from ygoreplay import i18n
    with i18n.using(language):
        assert classic[code].describe() == text
    assert classic[code].describe().startswith(f"{classic[code].name} — ")    # English again outside


# --- CardDB behaviour ------------------------------------------------------------------------

def test_by_name_unknown_is_a_clear_key_error(classic: CardDB) -> None:
    with pytest.raises(KeyError, match="no card named 'Blue-Eyes Black Dragon'"):
        classic.by_name("Blue-Eyes Black Dragon")
    with pytest.raises(KeyError, match="unknown passcode 123"):
        classic[123]


def test_by_name_prefers_the_original_print() -> None:
    original = CardFacts(code=100, name="Twin", type=CardType.SPELL)
    alt_art = CardFacts(code=101, name="Twin", type=CardType.SPELL, alias=100)
    assert CardDB([alt_art, original]).by_name("TWIN") is original


def test_merged_and_subset(classic: CardDB) -> None:
    newer = CardFacts(code=55144522, name="Pot of Greed", type=CardType.SPELL | CardType.FIELD)
    extra = CardFacts(code=999, name="Test Card", type=CardType.TRAP)
    merged = classic.merged(CardDB([newer, extra]))
    assert merged[55144522] is newer and merged[999] is extra
    assert len(merged) == len(classic) + 1 and classic[55144522].spell_subtype == "normal"
    small = classic.subset([5318639, 46986414, 5318639])
    assert list(small) == [5318639, 46986414]
    with pytest.raises(KeyError, match="999"):
        classic.subset([46986414, 999])


def test_duplicate_passcodes_are_rejected() -> None:
    card = CardFacts(code=7, name="Seven", type=CardType.SPELL)
    with pytest.raises(CardDBError, match="duplicate passcode 7"):
        CardDB([card, card])


# --- JSON round trip -------------------------------------------------------------------------

def test_every_curated_card_round_trips(classic: CardDB) -> None:
    for card in classic.values():
        as_json = json.loads(json.dumps(card.to_dict()))
        assert CardFacts.from_dict(as_json) == card
    assert CardDB.from_json(classic.to_json_list()) == classic


def test_to_dict_is_compact(classic: CardDB) -> None:
    assert classic[5318639].to_dict() == {"code": 5318639, "name": "Mystical Space Typhoon",
                                          "type": 0x10002}
    assert "defense" not in classic[1861629].to_dict()


@pytest.mark.parametrize("patch, field", [
    ({"atk": "2500"}, "atk"),
    ({"atk": -5}, "atk"),
    ({"level": 300}, "level"),
    ({"defense": None}, "defense"),
    ({"name": ""}, "name"),
    ({"code": True}, "code"),
    ({"colour": "red"}, "colour"),
    ({"link_markers": 0x10}, "link_markers"),
])
def test_from_dict_names_the_bad_field(classic: CardDB, patch: dict, field: str) -> None:
    with pytest.raises(CardDBError, match=repr(field)):
        CardFacts.from_dict({**classic[46986414].to_dict(), **patch})


def test_from_dict_missing_field_and_link_def() -> None:
    with pytest.raises(CardDBError, match="missing field 'type'"):
        CardFacts.from_dict({"code": 1, "name": "X"})
    link = {"code": 1861629, "name": "Decode Talker", "type": 0x4000021, "level": 3,
            "defense": 2000}
    with pytest.raises(CardDBError, match="card 1861629: field 'defense'"):
        CardFacts.from_dict(link)


def test_from_json_errors_name_the_place(tmp_path: Path) -> None:
    bad = tmp_path / "cards.json"
    bad.write_text('[{"code": 1, "name": "A", "type": 2}, {"code": 2, "name": "B"}]')
    with pytest.raises(CardDBError, match=r"cards\.json: entry #1: missing field 'type'"):
        CardDB.from_json(bad)
    bad.write_text("{not json")
    with pytest.raises(CardDBError, match=r"cards\.json: not JSON"):
        CardDB.from_json(bad)


# --- cards.cdb -------------------------------------------------------------------------------

def test_goat_entries_load(goat: CardDB) -> None:
    assert len(goat) == GOAT_ROWS
    assert all(card.name.endswith("(GOAT)") and card.alias for card in goat.values())


def test_goat_entries_decode_known_rows(goat: CardDB) -> None:
    by_alias = _goat_by_alias(goat)
    cannon = by_alias[91998119]  # XYZ-Dragon Cannon
    assert cannon.is_fusion and cannon.is_extra_deck and not cannon.is_normal_monster
    assert (cannon.level, cannon.atk, cannon.defense) == (8, 2800, 2600)
    assert cannon.race == Race.MACHINE and cannon.attribute == Attribute.LIGHT
    relinquished = by_alias[64631466]
    assert relinquished.is_ritual and relinquished.printed_level == 1
    assert relinquished.type == CardType.MONSTER | CardType.EFFECT | CardType.RITUAL
    assert by_alias[2926176].trap_subtype == "counter"  # Curse of Royal
    assert by_alias[22359980].trap_subtype == "continuous"  # Mirror Wall
    assert by_alias[73915051].spell_subtype == "quickplay"  # Scapegoat
    assert by_alias[94585852].spell_subtype == "field"  # Pandemonium
    assert by_alias[78636495].is_flip  # Slate Warrior
    assert by_alias[72989439].type & CardType.SPSUMMON  # Black Luster Soldier - Envoy
    assert goat.by_name("sangan (goat)").alias == 26202165


def test_curated_cards_agree_with_goat_entries(classic: CardDB, goat: CardDB) -> None:
    by_alias = _goat_by_alias(goat)
    shared = [code for code in classic if code in by_alias]
    assert len(shared) >= 10
    for code in shared:
        ours, theirs = classic[code], by_alias[code]
        for field in ("type", "level", "atk", "defense", "race", "attribute"):
            assert getattr(ours, field) == getattr(theirs, field), (ours.name, field)


def _make_cdb(path: Path, rows: list[tuple]) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("create table datas (id integer primary key, ot, alias, setcode, type, atk,"
                     " def, level, race, attribute, category)")
        conn.execute("create table texts (id integer primary key, name, desc)")
        for code, type_, atk, def_, level, name in rows:
            conn.execute("insert into datas values (?, 3, 0, 0, ?, ?, ?, ?, 1, 16, 0)",
                         (code, type_, atk, def_, level))
            conn.execute("insert into texts values (?, ?, '')", (code, name))
    conn.close()
    return path


def test_from_cdb_decodes_packed_level_and_link_arrows(tmp_path: Path) -> None:
    db = CardDB.from_cdb(_make_cdb(tmp_path / "cards.cdb", [
        (94415058, 0x1000021, 1200, 2400, (1 << 24) | (1 << 16) | 5, "Stargazer Magician"),
        (1861629, 0x4000021, 2300, 0x85, 3, "Decode Talker"),
    ]))
    stargazer, decode = db[94415058], db[1861629]
    assert (stargazer.level, stargazer.lscale, stargazer.rscale) == (5, 1, 1)
    assert (decode.link_rating, decode.defense, decode.link_markers) == (3, None, 0x85)


def test_from_cdb_bad_row_names_the_passcode(tmp_path: Path) -> None:
    path = _make_cdb(tmp_path / "bad.cdb", [(4242, 0x21, "lots", 0, 4, "Broken")])
    with pytest.raises(CardDBError, match=r"bad\.cdb: passcode 4242: column 'atk'"):
        CardDB.from_cdb(path)
    path = _make_cdb(tmp_path / "bad2.cdb", [(4243, 0x21, -7, 0, 4, "Broken")])
    with pytest.raises(CardDBError, match=r"passcode 4243: field 'atk'"):
        CardDB.from_cdb(path)


def test_from_cdb_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "not-a-db.cdb"
    path.write_bytes(b"this is not a database, just text " * 40)
    with pytest.raises(CardDBError, match=str(path)):
        CardDB.from_cdb(path)


def test_from_cdb_missing_tables_and_columns(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("create table people (id integer, name text)")
    conn.close()
    with pytest.raises(CardDBError, match=f"{path}.*no table 'datas'"):
        CardDB.from_cdb(path)
    path = tmp_path / "thin.cdb"
    with sqlite3.connect(path) as conn:
        conn.execute("create table datas (id integer, type, atk, def, level)")
        conn.execute("create table texts (id integer, name)")
    conn.close()
    with pytest.raises(CardDBError, match=r"thin\.cdb.*'alias', 'race', 'attribute'"):
        CardDB.from_cdb(path)


def test_from_cdb_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CardDBError, match="nowhere.cdb"):
        CardDB.from_cdb(tmp_path / "nowhere.cdb")


def test_has_effects_says_whether_any_card_has_effect_facts(classic: CardDB) -> None:
    """A fold asks it once a duel instead of asking ``effects`` passcode by passcode (rules.card_text)."""
    code = next(iter(classic))
    assert not classic.has_effects and classic.effects(code) == ()
    with_facts = classic.with_effects({code: (EffectFact(("field",), "EFFECT_EXTRA_SUMMON_COUNT"),)})
    assert with_facts.has_effects and with_facts.effects(code)
