"""Sharing a duel over HTTP: the board picture (SVG, PNG), the link preview (Open Graph tags,
oEmbed), the embed page and who may frame what; and the redaction search over all of them: for
every hidden passcode of every sample duel, no page, embed, picture or preview shows it (nor its
name) to a spectator, and nothing past a delay appears.

The service runs in this process (``test_service_delay.serving``)."""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import httpx
import pytest

from test_store import fresh_url
from test_service_delay import ADMIN, EVENTS, append, auth, create, open_store, serving
from test_views import CARDS, CASES, events_of as case_events, never_public
from ygoreplay import board_image

SVG = "{http://www.w3.org/2000/svg}"
http = httpx.Client(timeout=30)           # one connection: a picture of every position of every sample


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request, tmp_path_factory):
    """The service on each store: pictures, previews and embeds read a duel the same way from both."""
    with fresh_url(request.param, tmp_path_factory.mktemp("share") / "duels.sqlite") as url, \
            open_store(url) as store, serving(store) as served:
        yield served[0]


def recorded(base: str, events: list[dict], **settings) -> dict:
    """A duel made with ``settings`` and written by the organiser (who may enter anything: a
    witnessed sample holds the players' confirmations and the judge's notes)."""
    duel = create(base, **settings)
    for i in range(0, len(events), 50):
        append(base, duel["id"], ADMIN, events[i:i + 50])
    return duel


class Head(HTMLParser):
    """The ``<meta property>``/``<meta name>`` and ``<link>`` tags of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.links: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        elif tag == "link":
            self.links.append(a)


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


# -- the board picture --------------------------------------------------------------------------------

def test_the_board_picture_shows_the_board_a_view_may_see_at_any_position(service):
    duel = recorded(service, EVENTS, title="Yugi & Kaiba <finals>", visibility="public", release="never")
    d = duel["id"]
    last = len(EVENTS) - 1
    r = http.get(f"{service}/duels/{d}/board.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    lines = texts(r.text)                                     # well-formed XML, the title escaped
    assert "Yugi & Kaiba <finals>" in lines and "<finals>" not in r.text
    assert any(line.startswith("Yugi \u00b7 LP") for line in lines) and any("Kaiba \u00b7 LP 0" in x for x in lines)
    assert any(line.startswith("Yugi wins") for line in lines)
    assert r.text == http.get(f"{service}/duels/{d}/board.svg?at={last}").text
    early = texts(http.get(f"{service}/duels/{d}/board.svg?at=10").text)
    assert any("LP 8000" in x for x in early) and not any("wins" in x for x in early)
    png = http.get(f"{service}/duels/{d}/board.png?at=10")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    from PIL import Image
    assert Image.open(io.BytesIO(png.content)).size == (board_image.WIDTH, board_image.HEIGHT)
    # the same access as /state: past the end, a view the caller may not ask for, bad input
    assert http.get(f"{service}/duels/{d}/board.svg?at={last + 1}").status_code == 404
    assert http.get(f"{service}/duels/{d}/board.svg?view=judge").status_code == 403
    assert http.get(f"{service}/duels/{d}/board.png?at=-1").status_code == 400
    judge = http.get(f"{service}/duels/{d}/board.svg?at=10&view=p0", headers=auth(duel["tokens"]["judge"]))
    assert judge.status_code == 200
    assert len([x for x in texts(judge.text) if x == "face-down"]) < len([x for x in early if x == "face-down"])


def test_a_private_duels_picture_is_not_found_without_its_token(service):
    duel = recorded(service, EVENTS[:20], visibility="private")
    d = duel["id"]
    for path in ("board.svg", "board.png"):
        assert http.get(f"{service}/duels/{d}/{path}").status_code == 404
        assert http.get(f"{service}/duels/{d}/{path}", headers=auth(duel["tokens"]["p0"])).status_code == 200


def test_names_in_the_picture_are_escaped_and_bounded():
    board = {"players": [{"name": "\u202eevil</text><script>x</script>" + "A" * 500, "lp": 8000, "deck": 40, "hand": [],
                          "mzone": [None] * 5, "szone": [None] * 5, "fzone": None, "gy": [], "banished": [],
                          "extra": [], "lost": None}] * 2,
             "turn": 1, "turn_player": 0, "phase_name": "Main Phase 1\x1b[2J", "emz": [None, None], "ended": False,
             "winner": None, "layout": {"emz": True}}
    shapes = board_image.layout(board, 0, "t" * 10_000)
    svg = board_image.svg(shapes)
    ET.fromstring(svg)
    assert "<script>" not in svg and "\u202e" not in svg and "\x1b" not in svg
    assert max(len(s.text) for s in shapes if isinstance(s, board_image.Line)) <= 80
    assert len(svg) < 20_000


# -- the link preview and oEmbed ------------------------------------------------------------------------

def test_a_public_duels_pages_carry_its_preview_and_oembed(service):
    duel = recorded(service, EVENTS, title="Round 3, table 7", visibility="public", event="Regional")
    d = duel["id"]
    for page in (f"/view/{d}", f"/view/{d}?token={duel['tokens']['judge']}"):
        head = Head(http.get(f"{service}{page}").text)
        assert head.meta["og:title"] == "Round 3, table 7"
        assert head.meta["og:description"] == "Yugi vs Kaiba \u00b7 Yugi won (lp) \u00b7 Regional"
        assert head.meta["og:image"] == f"{service}/duels/{d}/board.png"
        oembed = [link for link in head.links if link.get("type") == "application/json+oembed"]
        assert len(oembed) == 1
    answer = http.get(oembed[0]["href"])
    assert answer.status_code == 200
    data = answer.json()
    assert data["type"] == "rich" and data["version"] == "1.0" and data["title"] == "Round 3, table 7"
    assert f'src="{service}/embed/{d}"' in data["html"] and data["html"].startswith("<iframe ")
    assert (data["width"], data["height"]) == (800, 620)
    assert http.get(data["thumbnail_url"]).headers["content-type"] == "image/png"
    at57 = http.get(f"{service}/oembed", params={"url": f"{service}/view/{d}#e57&view=spectator", "maxwidth": 400})
    assert f'src="{service}/embed/{d}#e57"' in at57.json()["html"] and at57.json()["width"] == 400
    assert http.get(f"{service}/oembed", params={"url": f"{service}/view/{d}", "format": "xml"}).status_code == 400
    for foreign in (f"https://elsewhere.example/view/{d}", f"{service}/duels/{d}/state", "not a link"):
        assert http.get(f"{service}/oembed", params={"url": foreign}).status_code == 404, foreign
    assert http.get(f"{service}/oembed", params={"url": "http://[::1/view/x"}).status_code == 400


def test_an_unlisted_or_private_duel_gets_the_generic_preview_whatever_the_token(service):
    generic = Head(http.get(f"{service}/view/{'0' * 12}").text).meta
    assert generic["og:title"] == "ygoreplay" and "og:description" not in generic and "og:image" not in generic
    for visibility in ("unlisted", "private"):
        duel = recorded(service, EVENTS, title=f"secret {visibility}", visibility=visibility)
        d, tokens = duel["id"], duel["tokens"]
        for token in (None, *tokens.values()):
            page = http.get(f"{service}/view/{d}" + (f"?token={token}" if token else "")).text
            assert Head(page).meta == generic and "secret" not in page and "Yugi" not in page
        assert http.get(f"{service}/oembed", params={"url": f"{service}/view/{d}"}).status_code == 404


def test_a_public_matchs_page_carries_its_preview_and_an_unlisted_one_the_generic(service):
    from test_match_service import MATCHES, create as create_match, lines
    sample = lines(MATCHES / "two-nil.jsonl")
    public = create_match(service, sample, visibility="public", title="<b>Final</b>")
    raw = http.get(f"{service}/match/{public['id']}").text
    head = Head(raw).meta
    assert "<b>" not in raw                                   # the title is escaped in the head
    players = " vs ".join(sample[0]["players"])
    assert head["og:title"] == "<b>Final</b>" and head["og:description"].startswith(f"{players} \u00b7 0\u20130")
    unlisted = create_match(service, sample, title="hidden final")
    page = http.get(f"{service}/match/{unlisted['id']}?token={unlisted['tokens']['judge']}").text
    assert Head(page).meta["og:title"] == "ygoreplay" and "hidden final" not in page


def test_only_the_embed_may_be_framed_and_by_anyone(service):
    duel = recorded(service, EVENTS[:30], visibility="public")
    embed = http.get(f"{service}/embed/{duel['id']}")
    assert embed.status_code == 200 and 'data-embed="true"' in embed.text
    assert "frame-ancestors *" in embed.headers["content-security-policy"]
    assert "x-frame-options" not in embed.headers
    for page in (f"/view/{duel['id']}", "/", "/library", "/library/card/46986414", "/library/player/Yugi",
                 f"/record/{duel['id']}", f"/match/{duel['id']}"):
        r = http.get(f"{service}{page}")
        assert r.status_code == 200, page
        assert r.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert http.get(f"{service}/embed/not-a-duel").status_code == 404
    for code in ("abc", "0", "9" * 5000, "\u00b2"):
        assert http.get(f"{service}/library/card/{code}").status_code == 404, code


# -- redaction: nothing hidden, nothing past a delay ----------------------------------------------------

def cards_in(board: dict) -> list[dict]:
    """Every card of a board (zones, piles, hands, the chain, materials)."""
    out, stack = [], [board]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "id" in item and "position" in item:
                out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def hidden_names(seen: object, truth: object) -> set[str]:
    """The names of the cards the judge's board (``truth``) has where the view's (``seen``) has a
    hidden card: the two are walked side by side, place by place (a view's hidden cards may carry
    ids of its own)."""
    if isinstance(seen, dict) and isinstance(truth, dict):
        if seen.get("hidden") and truth.get("name"):
            return {truth["name"]}
        return set().union(*(hidden_names(seen[k], truth[k]) for k in seen.keys() & truth.keys()))
    if isinstance(seen, list) and isinstance(truth, list) and len(seen) == len(truth):
        return set().union(*(hidden_names(x, y) for x, y in zip(seen, truth)))
    return set()


@pytest.mark.parametrize("case", CASES)
def test_no_page_embed_picture_or_preview_shows_a_spectator_a_hidden_card(service, case):
    """Every page a link preview reads and the picture at every position, searched for every
    passcode and name of a card the spectator never sees; and at each position, no name of a card
    the spectator's board hides there (the judge's board says which) unless a card it shows has
    that name. The PNG is the picture of the spectator's own board."""
    events = [e.to_dict() for e in case_events(case)]
    witnessed = bool(events[0].get("witnessed"))
    duel = recorded(service, events, title=case, visibility="public", release="never",
                    **({"mode": "witnessed"} if witnessed else {}))
    d, judge = duel["id"], auth(duel["tokens"]["judge"])
    haystack = []
    for page in (f"/view/{d}", f"/embed/{d}", f"/oembed?url={service}/view/{d}", f"/duels/{d}/board.svg"):
        r = http.get(f"{service}{page}")
        assert r.status_code == 200, page
        haystack.append(r.text)
    hidden_at_some_point = 0
    for n in range(len(events)):
        svg = http.get(f"{service}/duels/{d}/board.svg?at={n}").text
        haystack.append(svg)
        seen = http.get(f"{service}/duels/{d}/state?at={n}").json()["board"]
        truth = http.get(f"{service}/duels/{d}/state?at={n}", headers=judge).json()["board"]
        shown = {c["name"] for c in cards_in(seen) if not c.get("hidden")}
        hides = hidden_names(seen, truth)
        hidden_at_some_point += bool(hides)
        short = lambda names: {board_image.cut(name, board_image.NAME_CHARS) for name in names}   # noqa: E731
        named = {name for name in hides - shown if name in svg} | (short(hides) - short(shown)) & set(texts(svg))
        assert not named, f"{case}: the picture at #{n} names a card the spectator's board hides"
    assert hidden_at_some_point, "not vacuous: the spectator's board hides a card the judge's names"
    for n in (0, len(events) // 2, len(events) - 1):
        board = http.get(f"{service}/duels/{d}/state?at={n}").json()["board"]
        png = http.get(f"{service}/duels/{d}/board.png?at={n}").content
        assert png == board_image.png(board_image.layout(board, 0, case)), f"the PNG at #{n} is the spectator's board"
    text = "\n".join(haystack)
    hidden = never_public(case, "spectator")
    leaks = {code for code in hidden if str(code) in text or CARDS[code].name in text
             or board_image.cut(CARDS[code].name, board_image.NAME_CHARS) in text}
    assert not leaks, f"{case}: a spectator's pages and pictures show hidden card(s) {sorted(leaks)}"


def test_nothing_past_a_delay_reaches_a_picture_or_a_preview(service):
    """A delayed public duel shows exactly what a duel of its released events alone shows."""
    held = 30
    delayed = recorded(service, EVENTS[:-1], title="delayed", visibility="public", delay={"events": held})
    released = recorded(service, EVENTS[:-1 - held], title="delayed", visibility="public")
    seen = len(EVENTS) - 1 - held
    for a, b in ((delayed["id"], released["id"]),):
        assert http.get(f"{service}/duels/{a}/board.svg").text == http.get(f"{service}/duels/{b}/board.svg").text
        assert http.get(f"{service}/duels/{a}/board.png").content == http.get(f"{service}/duels/{b}/board.png").content
        assert http.get(f"{service}/duels/{a}/board.svg?at={seen}").status_code == 404
        previews = [Head(http.get(f"{service}/view/{x}").text).meta for x in (a, b)]
        assert [p["og:description"] for p in previews] == [previews[1]["og:description"]] * 2
        assert "won" not in previews[0]["og:description"]
        answers = [http.get(f"{service}/oembed", params={"url": f"{service}/view/{x}"}).json() for x in (a, b)]
        assert answers[0]["author_name"] == answers[1]["author_name"]
    early = recorded(service, EVENTS[:10], title="nothing yet", visibility="public", delay={"events": held})
    assert Head(http.get(f"{service}/view/{early['id']}").text).meta["og:title"] == "ygoreplay"
    assert http.get(f"{service}/oembed", params={"url": f"{service}/view/{early['id']}"}).status_code == 404
    assert re.search(r"nothing yet", http.get(f"{service}/duels/{early['id']}/board.svg").text)
