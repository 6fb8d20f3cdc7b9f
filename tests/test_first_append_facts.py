"""A duel's first append checks each card's facts once (issue 25, nineteenth pass).

The facts of the cards a first append names (two decks: ~70 cards) were checked card by card
(``CardDB.__init__``) in each of seven sets made of sets already checked, and each card's wire
form (``CardFacts.to_dict``) built again for every duel. The sets made of checked sets are taken as
they are; the wire form of facts met before is taken again, for those facts only: a card database
changed under a running process gives other facts for a passcode, written as they now are.
"""
from __future__ import annotations

from test_store import DECK_OUT, open_store, sample, store, store_url  # noqa: F401 (the fixtures)
from ygoreplay import cards as cards_module
from ygoreplay.cards import CardDB, CardFacts


def test_a_first_append_checks_each_card_s_facts_once(store, monkeypatch):
    duel = store.create_duel("one check a card")
    checked: list[int] = []
    made = CardDB.__init__

    def counting(self, facts=(), effects=None):
        facts = list(facts)
        checked.extend(f.code for f in facts)
        made(self, facts, effects)
    monkeypatch.setattr(CardDB, "__init__", counting)
    store.append(duel, sample(DECK_OUT)[:5])
    monkeypatch.undo()
    named = set(store.cards_of(duel)[0])
    assert len(named) > 10                      # the opening's decks' cards were written
    assert sorted(checked) == sorted(named), "each new card's facts checked once"


class _CountedDefaults(dict):
    reads = 0

    def __getitem__(self, key):
        type(self).reads += 1
        return super().__getitem__(key)


def test_a_card_s_wire_form_is_built_once_and_again_for_changed_facts(monkeypatch):
    defaults = _CountedDefaults(cards_module._DEFAULTS)
    monkeypatch.setattr(cards_module, "_DEFAULTS", defaults)
    monkeypatch.setattr(cards_module, "_WIRE", {}, raising=False)
    magician = CardFacts(46986414, "Dark Magician", 0x11, level=7, atk=2500, defense=2100)
    first = magician.to_dict()
    built = defaults.reads
    assert built > 0
    first["name"] = "changed by its caller"      # a copy: what is kept is not the caller's
    again = CardFacts(46986414, "Dark Magician", 0x11, level=7, atk=2500, defense=2100).to_dict()
    assert again == {"code": 46986414, "name": "Dark Magician", "type": 0x11, "level": 7, "atk": 2500,
                     "defense": 2100}
    assert defaults.reads == built, "equal facts: their form taken again, not built"
    # the card database changed under the process: the passcode's facts are other ones
    renamed = CardFacts(46986414, "Renamed Magician", 0x11, level=7, atk=2400, defense=2100)
    assert renamed.to_dict() == {"code": 46986414, "name": "Renamed Magician", "type": 0x11, "level": 7,
                                 "atk": 2400, "defense": 2100}
    assert magician.to_dict()["name"] == "Dark Magician"
