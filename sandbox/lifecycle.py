"""Entity lifecycles (an order's or a reservation's status) as explicit state machines.

A lifecycle is declared once per entity type with `transitions`, which checks the
definition and can draw it; entities themselves stay plain state models with a status
field, so a world with ten thousand orders does not carry ten thousand machines. An
illegal move raises a `ToolError` that tells the agent what is and is not possible: the
tools it can call now (an agent knows tools, not triggers), where the lifecycle names the tool
behind each trigger.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
        tools: The tool an agent calls to fire each trigger (`{"complete": "complete_task"}`). A
            refusal then names the tools that can move the entity from its status now; triggers
            no tool fires (a loan falling behind on its own) are left out of it. Without this
            map a refusal names the triggers, as moves, not as tools.
    """

    def __init__(
        self,
        entity: str,
        states: Sequence[str],
        transitions: Iterable[tuple[str, str | Sequence[str], str]],
        *,
        initial: str,
        field: str = "status",
        tools: Mapping[str, str] | None = None,
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
        unknown = sorted(set(tools or ()) - set(self.triggers))
        if unknown:
            raise ValueError(f"{entity} lifecycle maps tools to unknown triggers {unknown}")
        self.tools: dict[str, str] | None = None if tools is None else dict(tools)

    def can(self, entity: object, trigger: str) -> bool:
        return (trigger, getattr(entity, self.field)) in self._table

    def allowed(self, entity: object) -> list[str]:
        """Triggers that are legal from the entity's current status."""
        return self._triggers_from(getattr(entity, self.field))

    def _triggers_from(self, status: str) -> list[str]:
        return [t for t in self.triggers if (t, status) in self._table]

    def tools_from(self, status: str) -> list[str]:
        """The tools that can move an entity on from `status` (empty without a `tools` map)."""
        tools = self.tools or {}
        return list(dict.fromkeys(tools[t] for t in self._triggers_from(status) if t in tools))

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
        tools = self.tools_from(status) if self.tools is not None else None
        if refusal is None:
            if tools is not None:
                hint = f"; tools that can move it now: {', '.join(tools)}" if tools else "; no tool can move it now"
            else:
                moves = self._triggers_from(status)
                hint = f"; moves possible now: {', '.join(moves)}" if moves else ""
            article = "an" if status[:1].lower() in "aeiou" else "a"
            refusal = f"cannot {trigger} {article} {status} {self.entity}{hint}"
        details: dict[str, Any] = {"entity": self.entity, "status": status, "trigger": trigger}
        if tools is not None:
            details["tools_now"] = tools
        raise ToolError(refusal, code="invalid_transition", **details)

    def fire(self, entity: object, trigger: str, *, refusal: str | None = None) -> str:
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
