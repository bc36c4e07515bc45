"""Maximum-weight matching on a general graph: networkx's implementation of Edmonds' blossom
algorithm (Galil's formulation), the only third-party import of `domain/`.

Why it is allowed here (tests/unit/test_import_rules.py, docs/architecture.md): a Swiss pairing
is a maximum-weight perfect matching, and a greedy pass is wrong in the cases that matter (it
paints itself into a corner and forces a repeat pairing that a matching avoids). Edmonds'
algorithm is long and subtle; networkx's is well kept and tested. It is pure: no I/O, no clock,
no randomness; with integer weights it computes in integers only, and it is deterministic for a
graph built in the same order. Everything else of the pairing stays standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx

Edge = tuple[int, int, int]  # node, node, integer weight


def max_weight_matching(nodes: Sequence[int], edges: Iterable[Edge]) -> list[tuple[int, int]]:
    """The maximum-weight matching among those of maximum cardinality, as sorted pairs in
    sorted order."""
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_weighted_edges_from(edges)
    pairs = nx.max_weight_matching(graph, maxcardinality=True)
    return sorted((min(a, b), max(a, b)) for a, b in pairs)


def has_perfect_matching(nodes: Sequence[int], edges: Iterable[tuple[int, int]]) -> bool:
    """Whether the graph pairs every node."""
    if len(nodes) % 2:
        return False
    pairs = max_weight_matching(nodes, ((a, b, 1) for a, b in edges))
    return 2 * len(pairs) == len(nodes)
