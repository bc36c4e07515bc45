"""The server's own folded models, beside the domain's: a table (who sits where, seat tokens,
bots, forfeits, rematch links) folded from its `table-` stream, and a tournament's desk folded
from its `desk-` stream. Pure folds: no store, no clock, no I/O."""
