"""Sharing a game anywhere: the replay as one self-contained HTML file (html.py, from the replay
page's own modules: bundle.py), built from the store off the playing loop, in the read workers
(build.py), and its HTTP route (http.py). docs/records.md § HTML.

Nothing here shows a card the viewer of the source page could not see: what is drawn comes from
the replay's frames (server/updates.py `replay_frame`): the spectator's view of a running game,
every card only once the game is over."""
