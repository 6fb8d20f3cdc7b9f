"""CPU seconds to answer /cards.json once in each of the five catalogue languages, cold, with no
names installed (``reference._card_rows``), for the tree on ``sys.path``; and 4 threads at once in
English. Run: ``PYTHONPATH=TREE python bench/cards_json.py LABEL`` (a BabelCDB ``cards.cdb`` in ../shared).
Prints figures, asserts nothing."""
import sys
import threading
import time
from pathlib import Path

from ygoreplay.cards import CardDB
from ygoreplay.service import reference
cards = CardDB.from_cdb(str(Path(__file__).resolve().parents[2] / "shared" / "cards" / "babel-2026.cdb"))
reference._rows.clear()
t0 = time.process_time()
for lang in ("en", "ja", "ko", "zh-Hans", "zh-Hant"):
    reference._card_rows(cards, lang)
five = time.process_time() - t0
kept = len({id(v[2]) for v in reference._rows.values()})
reference._rows.clear()
t0 = time.process_time()
ts = [threading.Thread(target=reference._card_rows, args=(cards, "en")) for _ in range(4)]
for t in ts: t.start()
for t in ts: t.join()
four = time.process_time() - t0
print(f"{sys.argv[1]}: five languages {five:.2f} s CPU, {kept} bodies kept; 4 at once {four:.2f} s CPU; {len(list(cards))} cards")
