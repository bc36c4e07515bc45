"""Tournaments on the server: the streams (`repo`, `desk`), running one (`service`), what its
pages are sent (`views`), and its HTTP doors (`http`, `schemas`). The rules are
`domain.tournament`'s; docs/tournaments.md says how a club evening runs."""
