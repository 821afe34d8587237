"""No import cycle between our modules.

A cycle makes the import order matter (a name half-defined when the other module reads it) and
ties modules that should change apart; `lint-imports` keeps the layers apart but not modules
within one layer. grimp (import-linter's graph) reads every import, those inside functions and
under `TYPE_CHECKING` too, and a strongly connected component of more than one module is a cycle.
"""

from __future__ import annotations

import grimp

PACKAGES = ("sandbox", "scenarios", "evaluators", "toolworlds")

def cycles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """Each strongly connected component of more than one module: the modules that both import,
    directly or not, and are imported by, the first of them."""
    found: list[frozenset[str]] = []
    placed: set[str] = set()
    for module in sorted(graph.modules):
        if module in placed:
            continue
        component = {module} | (graph.find_upstream_modules(module) & graph.find_downstream_modules(module))
        placed |= component
        if len(component) > 1:
            found.append(frozenset(component))
    return found


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert [sorted(cycle) for cycle in cycles(graph)] == []


def test_a_cycle_is_found_and_named_whole() -> None:
    """The check itself: a three-module ring is one component, a module beside it none."""
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    for importer, imported in (("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")):
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == [frozenset({"a", "b", "c"})]


def test_our_graph_holds_every_package() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert {"sandbox.world", "scenarios.registry", "evaluators.matching", "toolworlds.runner"} <= graph.modules
