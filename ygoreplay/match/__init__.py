"""Matches: a best-of-three as its own event stream, its duels linked to it (issue 14).

* ``events``: the match stream's event kinds (registered in the one vocabulary of ``events.py``);
* ``policies``: the end-of-match procedures, named, dated and sourced; a match's first event names one;
* ``rules``: the match fold: each event checked against MATCH/TIME/PEN/DECK rules and the policy;
* ``links``: a match's duels checked against the match (first player, decks, results, LP at time);
* ``files``: match JSON Lines files and the match ``.ygr`` that carries its duels;
* ``format``: a match file as a format of the registry (``formats.MATCH``: read, checked).

This module imports nothing at import time. Whatever decodes a match's events imports
``match.events`` (which registers its kinds), and whatever opens or writes a store that may hold a
match imports ``match.stream`` (which registers the stream's kind with the store): the match
modules that need them, the command line's ``open_store``, the service, and ``ygoreplay``'s public
names. Nothing depends on ``import ygoreplay`` having done it.
"""
