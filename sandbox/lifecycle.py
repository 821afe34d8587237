"""Entity lifecycles (an order's or a reservation's status) as explicit state machines.

A lifecycle is declared once per entity type with `transitions`, which checks the
definition and can draw it; entities themselves stay plain state models with a status
field, so a world with ten thousand orders does not carry ten thousand machines. An
illegal move raises a `ToolError` that tells the agent what is and is not possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from transitions import Machine

from .errors import ToolError


@dataclass(frozen=True)
class Transition:
    trigger: str
    source: str
    dest: str


class Lifecycle:
    """The legal status changes of one entity type.

    Args:
        entity: What the entity is called in messages ("order", "reservation").
        states: Every status the entity can be in.
        transitions: (trigger, source or sources, destination) triples; a source of "*"
            means any state.
        initial: The status of a new entity.
        field: The entity attribute holding the status.
    """

    def __init__(
        self,
        entity: str,
        states: Sequence[str],
        transitions: Iterable[tuple[str, str | Sequence[str], str]],
        *,
        initial: str,
        field: str = "status",
    ) -> None:
        self.entity = entity
        self.states: tuple[str, ...] = tuple(states)
        self.initial = initial
        self.field = field
        known = set(self.states)
        if initial not in known:
            raise ValueError(f"initial state {initial!r} is not one of {self.states}")
        specs = []
        for trigger, source, dest in transitions:
            sources = [source] if isinstance(source, str) else list(source)
            for name in [*sources, dest]:
                if name != "*" and name not in known:
                    raise ValueError(f"{entity} transition {trigger!r} names unknown state {name!r}")
            specs.append({"trigger": trigger, "source": source, "dest": dest})
        self._definition: dict[str, Any] = {"states": list(self.states), "transitions": specs, "initial": initial,
                            "auto_transitions": False}
        machine = Machine(model=None, **self._definition)
        table: dict[tuple[str, str], str] = {}
        edges: list[Transition] = []
        for trigger, event in machine.events.items():
            for source, moves in event.transitions.items():
                for move in moves:
                    dest = source if move.dest is None else move.dest  # None: an internal transition
                    table[(trigger, source)] = dest
                    edges.append(Transition(trigger, source, dest))
        self._table = table
        self.transitions: tuple[Transition, ...] = tuple(edges)
        self.triggers: tuple[str, ...] = tuple(dict.fromkeys(t.trigger for t in edges))

    def can(self, entity: Any, trigger: str) -> bool:
        return (trigger, getattr(entity, self.field)) in self._table

    def allowed(self, entity: Any) -> list[str]:
        """Triggers that are legal from the entity's current status."""
        return self._triggers_from(getattr(entity, self.field))

    def _triggers_from(self, status: str) -> list[str]:
        return [t for t in self.triggers if (t, status) in self._table]

    def move(self, status: str, trigger: str, *, refusal: str | None = None) -> str:
        """The status that `trigger` leads to from `status`; `ToolError` if it is illegal.

        For statuses kept outside the entity (a status map, a database row). `refusal`
        replaces the default message, e.g. with a localised one.
        """
        dest = self._table.get((trigger, status))
        if dest is not None:
            return dest
        if trigger not in self.triggers:
            raise ValueError(f"{self.entity} lifecycle has no trigger {trigger!r}")
        if refusal is None:
            options = self._triggers_from(status)
            hint = f"; possible now: {', '.join(options)}" if options else ""
            article = "an" if status[:1].lower() in "aeiou" else "a"
            refusal = f"cannot {trigger} {article} {status} {self.entity}{hint}"
        raise ToolError(refusal, code="invalid_transition", entity=self.entity, status=status, trigger=trigger)

    def fire(self, entity: Any, trigger: str, *, refusal: str | None = None) -> str:
        """Move `entity` along `trigger`; raises `ToolError` (with `refusal`, if given) if the move is illegal."""
        dest = self.move(getattr(entity, self.field), trigger, refusal=refusal)
        setattr(entity, self.field, dest)
        return dest

    def to_mermaid(self) -> str:
        """A Mermaid state diagram drawn by transitions' own diagram support."""
        from transitions.extensions import GraphMachine

        class _Holder:
            pass

        holder = _Holder()
        machine = GraphMachine(model=holder, graph_engine="mermaid", title=self.entity,
                               **self._definition)
        return str(machine.get_graph().draw(None))

    def __repr__(self) -> str:
        return f"Lifecycle({self.entity!r}, states={list(self.states)})"
