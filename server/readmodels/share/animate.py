"""A finished game as an animated GIF: one frame per event of the game
(server/readmodels/share/picture.py draws each from its replay frame), at most MAX_FRAMES (a longer
game keeps every n-th, and always its first and last), each shown BASE_MS / speed, the last one held
longer.

The frames share one palette (made from the game's last position, which has every kind of card
on it), so a frame is only what changed since the one before (Pillow stores the changed box)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from PIL import Image

from server.readmodels.share.picture import caption_of, draw_view
from server.readmodels.share.words import Words

MAX_FRAMES = 300
BASE_MS = 800  # one action at speed 1 (a GIF counts in hundredths of a second)
HOLD_MS = 4000  # the final position
SPEEDS = (0.5, 1.0, 2.0, 4.0)
COLOURS = 96


def sampled(frames: Sequence[dict[str, Any]], cap: int = MAX_FRAMES) -> list[dict[str, Any]]:
    """At most `cap` of the frames, evenly spread, the first and the last kept."""
    if len(frames) <= cap:
        return list(frames)
    picks = {round(i * (len(frames) - 1) / (cap - 1)) for i in range(cap)}
    return [frames[i] for i in sorted(picks)]


def game_gif(
    frames: Sequence[dict[str, Any]], players: list[str], speed: float = 1.0, lang: str = "en"
) -> tuple[bytes, int]:
    """The GIF of these decoded replay frames (one game's), and how many frames it has."""
    if speed not in SPEEDS:
        raise ValueError(f"speed is one of {', '.join(map(str, SPEEDS))}")
    chosen = sampled(frames)
    words = Words(lang)

    def drawn(frame: dict[str, Any]) -> Image.Image:
        return draw_view(frame["view"], players, caption_of(frame, players, words), words).image

    # The palette from the last frame first, then each frame drawn and indexed in turn: only
    # the indexed frames are held (a byte a pixel; all 300 in colour took ~500 MB).
    palette = drawn(chosen[-1]).quantize(COLOURS, method=Image.Quantize.MEDIANCUT)
    indexed = [drawn(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in chosen]
    step = round(BASE_MS / speed)
    durations = [step] * (len(indexed) - 1) + [HOLD_MS]
    out = io.BytesIO()
    indexed[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=indexed[1:],
        duration=durations,
        loop=0,
        optimize=True,  # unchanged pixels of a frame transparent: a frame is what changed
    )
    return out.getvalue(), len(indexed)


def position_png(frame: dict[str, Any] | None, players: list[str], lang: str = "en") -> bytes:
    """The picture of one position (a decoded replay frame; None: the table before any event),
    its words in `lang` (server/readmodels/share/words.py)."""
    words = Words(lang)
    caption = "" if frame is None else caption_of(frame, players, words)
    image = draw_view(None if frame is None else frame["view"], players, caption, words).image
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
