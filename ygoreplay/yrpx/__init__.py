"""Import EDOPro ``.yrpX`` replays: decode the file, then turn the engine's messages into our events.

A ``.yrpX`` file holds the message stream the EDOPro server sent during a duel (``MSG_DRAW``,
``MSG_MOVE``, ``MSG_CHAINING`` …) plus, in its last packet, the original ``.yrp`` replay (start
settings, deck lists, player responses). Layouts follow edo9300/edopro ``gframe/replay.cpp``,
``generic_duel.cpp``, ``duelclient.cpp`` and edo9300/ygopro-core ``ocgapi_constants.h``; the format
facts are in ``shared/formats/EDOPRO-REPLAYS.md``.

Two layers, usable on their own::

    replay = read_yrpx("2021-04-19_12-09-41.yrpX")     # header, names, flags, packets, embedded YRP1
    result = import_yrpx("2021-04-19_12-09-41.yrpX")   # our events + card facts + what EDOPro said
    report = rules.audit(result.events, result.cards)
    agreement = fold_and_compare(result)               # that audit, LP and winner, the engine's boards

The modules, bottom up:

* ``constants``: the engine's message ids, locations, positions, reasons, query flags;
* ``container``: the file (header, LZMA body, names, duel flags, packets, embedded YRP1), ``read_yrpx``;
* ``messages``: each message's fields, and the card queries of the state packets (``card_slots``;
  the race item is 4 bytes before core 10 and 8 from it, read by its size like every item);
* ``mirror``: EDOPro's field as the stream builds it, so each message names the right card;
* ``facts``: card facts from the engine's card queries;
* ``mapping``: the stream mapped to our vocabulary (``import_yrpx``), calling the rules where a
  rule decides (battle damage, open game state, what may follow a loss, proper summons);
* ``cites``: the card behind what the basic rules forbid (GEN-01).

What an import is and how it is checked is format-neutral (``ygoreplay.importing``); this
package is its EDOPro implementation (``EDOPRO``), with the engine's own state packets as the
board to agree with (``engine_check``).
"""
from __future__ import annotations

import os

from ..cards import CardDB
from ..importing import Agreement, Expected, ImportResult
from ..importing import fold_and_compare as _fold_and_compare
from ..rules import AuditReport
from .constants import *  # noqa: F401,F403  (the engine's constants, as callers name them)
from .container import (BASE_HEADER_SIZE, DATASIZE_OFFSET, DUEL_EMZONE, DUEL_FSX_MMZONE, DUEL_PSEUDO_SHUFFLE,
                        DUEL_RELAY, DUEL_SEPARATE_PZONE, EXTENDED_HEADER_SIZE, MAX_BODY_SIZE, MAX_EMBEDDED_SIZE,
                        MAX_FILE_SIZE, MAX_PACKETS, MAX_RATIO, MAX_RESPONSES, NAME_SIZE, PROPS_OFFSET,
                        REPLAY_64BIT_DUELFLAG, REPLAY_COMPRESSED, REPLAY_DECODED, REPLAY_DIRECT_SEED,
                        REPLAY_EXTENDED_HEADER, REPLAY_HAND_TEST, REPLAY_LUA64, REPLAY_NEWREPLAY,
                        REPLAY_SINGLE_MODE, REPLAY_TAG, YRP1, YRP2, YRP2_HEADER_SIZE, YRPX, Packet, Where, Yrp1,
                        YrpxError, YrpxReplay, read_file, read_yrpx)
from .mapping import import_yrpx
from .messages import Query, Slot, card_slots, parse_message, parse_update_card, parse_update_data


class EdoproImporter:
    """EDOPro's ``.yrpX`` as a ``importing.ReplayImporter``: checked against the engine's own
    state packets (registered as ``formats.EDOPRO``)."""

    def import_file(self, path_or_bytes: str | os.PathLike[str] | bytes, *, names: CardDB | None = None) -> ImportResult:
        return import_yrpx(path_or_bytes, names=names)

    def check(self, result: ImportResult) -> tuple[object, AuditReport]:
        from .engine_check import check       # it reads this package's packets: imported when needed
        return check(result)


EDOPRO = EdoproImporter()


def fold_and_compare(result: ImportResult) -> Agreement:
    """Audit the imported events, compare the board with the engine's state packets on the way
    (one fold), and compare the final LP and winner with the replay's own."""
    return _fold_and_compare(result, EDOPRO.check)
