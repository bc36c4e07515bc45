"""Sharing a game anywhere: the replay as one self-contained HTML file (html.py, from the replay
page's own modules: bundle.py), a finished game as an animated GIF (animate.py) and a position
as a picture (picture.py, with Pillow), built from the store off the playing loop, in the read
workers (build.py); the link preview tags of the replay and table pages (preview.py) and the
HTTP routes (http.py). docs/records.md § The HTML form, docs/protocol.md § Shared replays and
pictures.

Nothing here shows a card the viewer of the source page could not see: what is drawn comes from
the replay's frames (server/readmodels/updates.py `replay_frame`): the spectator's view of a running
game, every card only once the game is over."""
