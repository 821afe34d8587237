"""Matching rows to columns at least total cost: the one matching algorithm the evaluators share.

Milestone matching needs it exact over integer costs far past a float's precision (its gains fold a
tie-break into each cost, `milestones._gains`), which is why it is written here rather than taken
from a numeric library; the strict ACEBench checker asks it whether parallel calls pair one to one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def min_cost_matching(costs: Sequence[Mapping[int, int]], columns: int) -> list[int | None]:
    """Each row matched to its own column at least total cost (the Hungarian method): rows are added
    one at a time along a shortest augmenting path, potentials keeping reduced costs non-negative.

    `costs[row]` lists the columns the row may take (costs >= 0); each row must be able to take
    some column no other row can, so a matching of every row exists. Returns each column's row.
    """
    row_potential = [0] * len(costs)
    column_potential = [0] * columns
    owners: list[int | None] = [None] * columns
    for row in range(len(costs)):
        _augment(row, costs, row_potential, column_potential, owners)
    return owners


def _augment(start: int, costs: Sequence[Mapping[int, int]], row_potential: list[int],
             column_potential: list[int], owners: list[int | None]) -> None:
    """Match row `start`: grow a tree of tight edges from it until it reaches a free column, then
    shift every match along the path found. Which of several least-cost matchings this finds is not
    fixed; milestone matching has only one (its gains never tie)."""
    slack: dict[int, int] = {}  # least reduced cost from the tree to each column reached
    parent: dict[int, int] = {}  # the tree column each reached column was reached from (-1: start)
    tree: set[int] = set()
    tree_rows: list[int] = [start]
    tree_columns: list[int] = []
    row, column = start, -1
    while True:
        for candidate, cost in costs[row].items():
            reduced = cost - row_potential[row] - column_potential[candidate]
            if candidate not in tree and (candidate not in slack or reduced < slack[candidate]):
                slack[candidate], parent[candidate] = reduced, column
        # Of the columns nearest the tree, a free one ends the search at once: rows that accept many
        # columns at one cost (the strict checker's) then match without growing the tree at all.
        column = min((c for c in slack if c not in tree), key=lambda c: (slack[c], owners[c] is not None))
        delta = slack[column]
        for tree_row in tree_rows:
            row_potential[tree_row] += delta
        for tree_column in tree_columns:
            column_potential[tree_column] -= delta
        for other in slack:
            if other not in tree:
                slack[other] -= delta
        tree.add(column)
        tree_columns.append(column)
        owner = owners[column]
        if owner is None:
            break
        row = owner
        tree_rows.append(row)
    while column != -1:
        before = parent[column]
        owners[column] = owners[before] if before != -1 else start
        column = before
