"""A position drawn with Pillow: the board as the replay page lays it out (seat 0's tray at the
bottom, the houses in two fanned columns and the eight foundations between them, seat 1's tray
at the top), the players' names and points, the game and turn, and the last action in words, in
one of the client's languages (server/readmodels/share/words.py: card symbols and pile names, never
a code).

It draws a replay frame's view (server/readmodels/updates.py `replay_frame`) and nothing else: a
card the view holds as `null` (face down in a running game) is drawn as a back, and its face is
never known here. `Picture.faces` lists every face drawn, for the tests' leak rule.

Cards are stamped: each face, back and suit sign is drawn once at four times its size and scaled
down (Pillow draws shapes without antialiasing), then pasted; a frame is a few dozen pastes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from server.readmodels.share.words import Words

CW, CH = 42, 60  # a card, in pixels
GAP = 8
MARGIN = 12
HOUSE_SPAN = int(4.2 * CW)  # a house column's width: its fan shrinks to fit
FAN_STEP = int(0.36 * CW)
HEADER = 28
TRAY = CH + 18  # a tray: its cards and the count under each pile
ROW = CH + 8
WIDTH = MARGIN * 2 + HOUSE_SPAN * 2 + (CW + GAP) * 2 + GAP * 2
FIELD_Y = HEADER + 8 + TRAY
BOTTOM_Y = FIELD_Y + 4 * ROW + 4
FOOTER_Y = BOTTOM_Y + TRAY
HEIGHT = FOOTER_Y + 26
SCALE = 4  # stamps are drawn this much larger, then scaled down

TABLE = (31, 92, 58)
BAR = (22, 40, 30)
INK = (255, 255, 255)
FAINT = (190, 215, 198)
RED, BLACK = (200, 30, 40), (25, 25, 25)
PACKS = ((40, 80, 170), (160, 40, 50))  # seat 0's backs and corner, seat 1's
TRAY_PILES = "RQHIJXW"
TRAY_STEP = CW + 22  # room for each pile's count under it
_CARD = re.compile(r"^([A2-9TJQK]|10)([SHDC])(?:/([01]))?$")

# The suit signs of web/js/cards.js (SUIT_SHAPES), in the same 100 x 100 box.
SUIT_PATHS = {
    "H": "M50,90 C22,66 6,50 6,31 C6,17 17,7 30,7 C39,7 46,12 50,20 C54,12 61,7 70,7 "
    "C83,7 94,17 94,31 C94,50 78,66 50,90 Z",
    "D": "M50,4 L86,50 L50,96 L14,50 Z",
    "S": "M50,5 C78,28 94,44 94,60 C94,73 84,81 72,81 C63,81 56,77 53,71 C54,82 58,89 "
    "66,95 L34,95 C42,89 46,82 47,71 C44,77 37,81 28,81 C16,81 6,73 6,60 C6,44 22,28 50,5 Z",
    "C": "M46,50 L54,50 C54,72 58,86 68,95 L32,95 C42,86 46,72 46,50 Z",
}
CLUB_CIRCLES = ((50, 27, 20), (27, 59, 20), (73, 59, 20))


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return _font(size)


# DejaVu Sans (web/vendor/dejavu-fonts-ttf-2.37.3, from its npm package): the same picture on
# every machine, and every letter of the five languages and the suits' symbols in its words
# (Pillow's own font has ASCII only).
FONT_FILE = "vendor/dejavu-fonts-ttf-2.37.3/DejaVuSans.ttf"


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    import importlib.resources

    with importlib.resources.as_file(importlib.resources.files("web") / FONT_FILE) as path:
        return ImageFont.truetype(str(path), size)


def fitted(text: str, size: int, width: float) -> str:
    """`text` cut with an ellipsis to `width` pixels at `size`, whole when it fits."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def parse_card(text: str) -> tuple[str, str, int]:
    """ "7H/1" -> ("7", "H", 1): rank as written on a card, suit, pack (0 without one)."""
    found = _CARD.match(text)
    if found is None:
        raise ValueError(f"not a card: {text!r}")
    rank, suit, owner = found.groups()
    return ("10" if rank == "T" else rank), suit, int(owner or 0)


def _path_points(path: str, steps: int = 12) -> list[tuple[float, float]]:
    """The outline of an SVG path of M, L, C and Z commands, its curves sampled."""
    tokens = re.findall(r"[MLCZ]|-?\d+(?:\.\d+)?", path)
    points: list[tuple[float, float]] = []
    i, command = 0, "M"
    while i < len(tokens):
        if tokens[i] in "MLCZ":
            command = tokens[i]
            i += 1
            if command == "Z":
                continue
        if command in "ML":
            points.append((float(tokens[i]), float(tokens[i + 1])))
            i += 2
        elif command == "C":
            (x0, y0), values = points[-1], [float(t) for t in tokens[i : i + 6]]
            x1, y1, x2, y2, x3, y3 = values
            for s in range(1, steps + 1):
                t = s / steps
                u = 1 - t
                x = u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3
                y = u**3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3
                points.append((x, y))
            i += 6
    return points


@cache
def suit_mask(suit: str, size: int) -> Image.Image:
    """The suit's sign as an antialiased mask of `size` x `size` pixels."""
    big = size * SCALE
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    k = big / 100
    draw.polygon([(x * k, y * k) for x, y in _path_points(SUIT_PATHS[suit])], fill=255)
    if suit == "C":
        for cx, cy, r in CLUB_CIRCLES:
            draw.ellipse([(cx - r) * k, (cy - r) * k, (cx + r) * k, (cy + r) * k], fill=255)
    return mask.resize((size, size), Image.Resampling.LANCZOS)


def _suit(canvas: Image.Image, suit: str, size: int, xy: tuple[int, int]) -> None:
    colour = RED if suit in "HD" else BLACK
    canvas.paste(Image.new("RGBA", (size, size), colour), xy, suit_mask(suit, size))


def _blank(fill: tuple[int, int, int], outline: tuple[int, int, int]) -> Image.Image:
    card = Image.new("RGBA", (CW * SCALE, CH * SCALE), (0, 0, 0, 0))
    ImageDraw.Draw(card).rounded_rectangle(
        [0, 0, CW * SCALE - 1, CH * SCALE - 1], radius=5 * SCALE, fill=fill,
        outline=outline, width=SCALE,
    )  # fmt: skip
    return card


@cache
def face(text: str, veiled: bool = False) -> Image.Image:
    """A card's face: its rank and suit in the corner, the suit large in the middle, and its
    pack's colour in the top right corner (as on the page). `veiled`: a card that was face down
    during play, shown once the game is over (the page draws it veiled too)."""
    rank, suit, owner = parse_card(text)
    big = _blank((255, 255, 255), (120, 120, 120))
    draw = ImageDraw.Draw(big)
    s = SCALE
    draw.polygon([(2 * s, CH * s - 12 * s), (2 * s, CH * s - 2 * s), (12 * s, CH * s - 2 * s)],
                 fill=PACKS[owner])  # fmt: skip
    colour = RED if suit in "HD" else BLACK
    # The index in both top corners: a house fans either way, and shows one edge of each card.
    # "10" narrower than one letter's size, so that the two corners never meet.
    rank_font = font((14 if len(rank) == 1 else 11) * s)
    for left in (True, False):
        width = int(draw.textlength(rank, font=rank_font))
        x = 3 * s if left else CW * s - 3 * s - width
        draw.text((x, 2 * s), rank, font=rank_font, fill=colour)
        _suit(big, suit, 9 * s, (x + (width - 9 * s) // 2, 18 * s))
    _suit(big, suit, 20 * s, ((CW - 20) * s // 2, (CH - 24) * s))
    small = big.resize((CW, CH), Image.Resampling.LANCZOS)
    if veiled:
        veil = Image.new("RGBA", (CW, CH), (200, 200, 200, 90))
        small = Image.alpha_composite(small, Image.composite(veil, small, small.getchannel("A")))
    return small


@cache
def back(owner: int) -> Image.Image:
    """A face-down card of that seat's pack: its colour, hatched."""
    big = _blank(PACKS[owner], (240, 240, 240))
    draw = ImageDraw.Draw(big)
    s = SCALE
    for x in range(-CH * s, CW * s, 7 * s):
        draw.line([(x, CH * s), (x + CH * s, 0)], fill=(255, 255, 255, 70), width=s)
    draw.rounded_rectangle([0, 0, CW * s - 1, CH * s - 1], radius=5 * s, outline=(240, 240, 240),
                           width=2 * s)  # fmt: skip
    return big.resize((CW, CH), Image.Resampling.LANCZOS)


@dataclass
class Picture:
    """One position being drawn; `faces`: every card face drawn on it."""

    image: Image.Image
    faces: list[str] = field(default_factory=list)

    def card(self, text: str | None, owner: int, xy: tuple[int, int], veiled: bool) -> None:
        if text is None:
            stamp = back(owner)
        else:
            stamp = face(text, veiled)
            self.faces.append(text)
        self.image.paste(stamp, xy, stamp)


def slot(draw: ImageDraw.ImageDraw, xy: tuple[int, int]) -> None:
    x, y = xy
    draw.rounded_rectangle([x, y, x + CW - 1, y + CH - 1], radius=5, outline=(90, 140, 105))


def tray_places(piles: dict[str, Any], seat: int, y: int) -> dict[str, tuple[int, int]]:
    names = [f"{p}{seat}" for p in TRAY_PILES if f"{p}{seat}" in piles]
    return {name: (MARGIN + i * TRAY_STEP, y) for i, name in enumerate(names)}


def field_places() -> dict[str, tuple[int, int, int]]:
    """Each house and foundation: its (x, y) and the way its fan goes (-1 left, 1 right, 0)."""
    left = MARGIN + HOUSE_SPAN - CW
    found = MARGIN + HOUSE_SPAN + GAP
    right = found + 2 * (CW + GAP) + GAP
    places = {}
    for i in range(4):
        places[f"T{i}"] = (left, FIELD_Y + (3 - i) * ROW, -1)  # T0 nearest seat 0, bottom left
        places[f"T{4 + i}"] = (right, FIELD_Y + i * ROW, 1)
        places[f"F{i}"] = (found, FIELD_Y + i * ROW, 0)
        places[f"F{4 + i}"] = (found + CW + GAP, FIELD_Y + i * ROW, 0)
    return places


def draw_view(
    view: dict[str, Any] | None,
    players: list[str],
    caption: str = "",
    words: Words | None = None,
) -> Picture:
    """The position of a replay frame's `view` (None: before the deal, an empty table), its
    words in `words`' language (English by default)."""
    words = words or Words()
    players = seated(view, players)
    picture = Picture(Image.new("RGB", (WIDTH, HEIGHT), TABLE))
    draw = ImageDraw.Draw(picture.image)
    piles: dict[str, list[str | None]] = (view or {}).get("piles") or {}
    down: dict[str, int] = (view or {}).get("face_down") or {}
    _header(draw, view, players, words)
    places = {**tray_places(piles, 1, HEADER + 8), **tray_places(piles, 0, BOTTOM_Y)}
    for name, xy in places.items():
        _stack(picture, draw, name, piles[name], xy, down.get(name, 0), words)
    for name, (x, y, fan) in field_places().items():
        cards = piles.get(name)
        if cards is not None:
            _fan(picture, draw, name, cards, (x, y), fan, down.get(name, 0))
    said = fitted(caption, 14, WIDTH - 2 * MARGIN)
    draw.text((MARGIN, FOOTER_Y + 5), said, font=font(14), fill=INK)
    return picture


def seated(view: dict[str, Any] | None, players: list[str]) -> list[str]:
    """Who sits at the position: at a rotation table the view names the pair seated then (the
    match's first two players are not those of every game)."""
    named = (view or {}).get("players")
    return [str(name) for name in named] if named else players


def _header(
    draw: ImageDraw.ImageDraw, view: dict[str, Any] | None, players: list[str], words: Words
) -> None:
    draw.rectangle([0, 0, WIDTH, HEADER], fill=BAR)
    totals = (view or {}).get("totals") or [0, 0]
    # A seat nobody has taken yet is "free seat", and a table before its deal shows no points.
    names = [
        words.name(players[s]) if s < len(players) and players[s] else words.t("lobby.free_seat")
        for s in (0, 1)
    ]
    points = ["", ""] if view is None else [f" {totals[0]}", f" {totals[1]}"]
    to_move = None if view is None or view.get("over") else view.get("to_move")
    where = ""
    if view is not None and view.get("game_index") is not None:
        where = words.where(view["game_index"], view.get("turn_number") or 0)
    big = font(15)
    room = WIDTH - 2 * MARGIN - (draw.textlength(where, font=font(13)) + 12 if where else 0)
    room -= 12 if to_move is not None else 0
    room -= draw.textlength(points[0] + "  –  " + points[1], font=big)
    # Both names whole when they fit; else the longer one gives way first, never below half.
    widths = [draw.textlength(n, font=big) for n in names]
    if sum(widths) > room:
        long = 0 if widths[0] >= widths[1] else 1
        keep = max(room / 2, room - widths[1 - long])
        names[long] = fitted(names[long], 15, keep)
        names[1 - long] = fitted(names[1 - long], 15, room - draw.textlength(names[long], font=big))
    x = MARGIN
    for s in (0, 1):
        if to_move == s:  # a yellow dot before the name of the player to move
            draw.ellipse([x, 10, x + 8, 18], fill=(240, 200, 60))
            x += 12
        text = f"{names[s]}{points[s]}" + ("  –  " if s == 0 else "")
        draw.text((x, 6), text, font=big, fill=INK)
        x += int(draw.textlength(text, font=big))
    if where:
        width = draw.textlength(where, font=font(13))
        draw.text((WIDTH - MARGIN - width, 8), where, font=font(13), fill=FAINT)


def _stack(
    picture: Picture,
    draw: ImageDraw.ImageDraw,
    name: str,
    cards: list[str | None],
    xy: tuple[int, int],
    down: int,
    words: Words,
) -> None:
    """A tray pile: its top card (one edge of the card under it), its name and count below."""
    x, y = xy
    owner = int(name[1])
    turned = name[0] == "X"
    if not cards:
        slot(draw, xy)
    else:
        if len(cards) > 1 and not turned:
            picture.card(cards[-2], owner, (x + 2, y + 2), len(cards) - 1 <= down)
        picture.card(cards[-1], owner, xy, len(cards) <= down)
    if cards and not turned:  # the count on a badge at the pile's foot, as on the page
        count = str(len(cards))
        width = draw.textlength(count, font=font(10))
        box = [x + CW - width - 6, y + CH - 9, x + CW + 2, y + CH + 3]
        draw.rounded_rectangle(box, radius=4, fill=BAR)
        draw.text((box[0] + 4, box[1] + 1), count, font=font(10), fill=INK)
    label = fitted(words.slot(name[0]), 10, TRAY_STEP - 4)
    width = draw.textlength(label, font=font(10))
    draw.text((x + (CW - width) / 2, y + CH + 5), label, font=font(10), fill=FAINT)


def _fan(
    picture: Picture,
    draw: ImageDraw.ImageDraw,
    name: str,
    cards: list[str | None],
    xy: tuple[int, int],
    fan: int,
    down: int,
) -> None:
    """A house fanned away from the foundations (its top card farthest), or a foundation's
    top card."""
    x, y = xy
    if not cards:
        slot(draw, xy)
        return
    if fan == 0:
        picture.card(cards[-1], 0, xy, len(cards) <= down)
        return
    n = len(cards)
    step = min(FAN_STEP, (HOUSE_SPAN - CW) // (n - 1)) if n > 1 else 0
    for i, text in enumerate(cards):
        offset = i * step  # the bottom card nearest the foundations, as on the page
        picture.card(text, 0, (x - offset if fan < 0 else x + offset, y), i < down)


def caption_of(frame: dict[str, Any], players: list[str], words: Words | None = None) -> str:
    """The frame's event in words ("Ann: 7♥ from their reserve to house 3"), in `words`'
    language (English by default): server/readmodels/share/words.py."""
    return (words or Words()).caption(frame, seated(frame.get("view"), players))
