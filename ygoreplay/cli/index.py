"""Where each command of ``ygoreplay`` is declared, and the head of its help: the group lists
every command from this (``ygoreplay --help``) and imports a command's module only when the
command is run, so that no command pays for the others' imports.

Written by ``python -m ygoreplay.cli.reindex`` from the commands as declared (``AREAS``);
``tests/test_cli_index.py`` fails, naming the difference, until it is written again after a
command is added, renamed or its help's first paragraph changed.
"""
from __future__ import annotations

#: The modules of ``ygoreplay.cli`` that declare commands on ``main``.
AREAS = ("cards", "decks", "duels", "keys", "match", "records", "resident", "rounds", "search", "service")

#: name -> (its module in ``AREAS``, its help up to the first blank line: what click makes the
#: command's line of the group's help from, in any language).
COMMANDS: dict[str, tuple[str, str]] = {
    'actions': ('duels', "What may be entered next: the actions that fit a card where it is (or, without --card, the\n    turn's own moves), each with the rules' verdict: legal, undecided (it needs a card the record\n    does not know) or illegal, with its rule IDs. The service answers the same at /duels/{id}/actions."),
    'append': ('records', 'Add the events of a JSON Lines file (or - for standard input) to a stored duel or branch,\n    checking each; all or nothing. Prints the new number of events (and, in a witnessed duel,\n    the flags of the events added on stderr).'),
    'audit': ('duels', 'Re-check every event with the rules, verify the record, list overrides and rollbacks.'),
    'branch': ('records', 'Start a new duel from the board after event #N of DUEL (the parent is untouched); print its id.'),
    'cards': ('cards', 'The card database: install it, see what is installed, find a card by name.'),
    'check': ('duels', 'Fold a JSON Lines duel (or a .ygr file, or an EDOPro .yrpX replay) through the rules and\n    list every violation, and every rule a card the record does not know left undecided (a view\n    is the record of what its viewer saw: checked as far as it knows).'),
    'deck': ('decks', 'Decks in the formats players already have (.ydk files, ydke:// URLs).'),
    'demo': ('service', "Show the service: record a duel file through it over HTTP, a few events at a time as a\n    table's client does, print the viewer links, and serve them until Ctrl-C."),
    'diff': ('records', 'How two boards differ (DUEL or DUEL@N each: after event #N): LP, cards by zone, chain, phase.'),
    'export': ('records', 'Write a stored duel, a .jsonl file or a .ygr file as a signed .ygr replay file for one view\n    (or, with --html, as a web page of it; with --record, as the JSON Lines record its viewer\n    would have written).'),
    'import': ('records', 'Import a .ygr judge file, an EDOPro .yrpX replay, or a folder of replays.'),
    'key': ('keys', "Print the organiser's public key (created on first use), for others to verify what you sign."),
    'list': ('records', "List the duels in the store: date, events, status and result, players, title, branches.\n    Read from each duel's header and signed anchor, without decoding its events; with a witness,\n    a duel behind the head it kept is marked."),
    'log': ('duels', 'The duel as readable text, one line per event, grouped by turn and phase; every line says\n    its turn and phase (T4 BP), every LP change its cause and the LP after it.'),
    'lp-sheet': ('rounds', "A duel's paper LP record: both players' LP changes turn by turn, each with its cause, the\n    running LP and the result; a page to print and sign (HTML), or CSV. DUEL is a .jsonl or .ygr\n    file or a stored duel; --view spectator names no card a spectator could not see."),
    'match': ('match', 'Record a match (best of three) as events: its decklists, duels, siding, time, penalties, result.'),
    'note': ('records', "A judge's note (a call, a ruling, a warning…) added to a stored duel's record."),
    'opened': ('records', 'The judge record of a duel whose players each sealed their own hidden cards, once both\n    have opened every seal: JSON Lines, every opened card known from the start, to check, show\n    or record as a full record. Refused (exit 2) while a seal is unopened or an opening does not\n    match its seal.'),
    'play': ('duels', 'Step through a duel in the terminal: arrow keys for events, Shift+arrows for turns, g to go\n    to an event, a turn or a card, / to search, v to switch view; the board redrawn in place with\n    what each event changed marked. Without a terminal, one command a line (--plain).'),
    'record': ('records', 'Record a JSON Lines duel into the store and print its id (only the id, on stdout).'),
    'release': ('records', "The organiser's call that the event has ended: a duel under the event release policy\n    releases what it hid (hands, deck orders) to every reader of the service, once it has ended."),
    'resident': ('resident', 'A resident helper that answers the read-only commands (show, log, check FILE, list, search,\n    diff, tree, rules, verify, audit, actions) without starting Python anew: for scripts that\n    run many of them. Opt-in; every command runs in its own process when none is running.'),
    'rollback': ('records', "Back a game up to an earlier event, as an event in the same record (nothing is erased).\n    Checked as the service checks it (a judge's rollback is signed and explained, MATCH-08)."),
    'round': ('rounds', "An event's rounds: one match per table from a pairings file, and how the tables stand."),
    'rules': ('duels', 'What each rule of the catalogue says, and whether and where it is enforced.'),
    'seal': ('keys', "Seal a hidden card of your own as a player's device does: print {code, seal, nonce} as JSON.\n    Record the seal (cards_sealed), keep the nonce secret until you open the card (cards_opened)."),
    'search': ('search', 'Find public duels and matches: by player, title, event, result, source, and by what\n    happened to a card (``--card "Pot of Greed" --action activated --turn-max 1``). Only what a\n    spectator may know is searched: private and unlisted duels never, a delayed duel up to its delay.'),
    'serve': ('service', 'Run the HTTP service: record, follow and share duels (OpenAPI at /openapi.json).'),
    'show': ('duels', 'Print the board after an event (default: the last) of a .jsonl or .ygr file or a stored duel.'),
    'tree': ('records', "Show DUEL's family of branches, like the variations of a game."),
    'verify': ('records', 'Check a stored duel or a .ygr file end to end: hash chain, anchors, signature by a trusted key;\n    and that the store is not behind a receipt or its witness.'),
}

