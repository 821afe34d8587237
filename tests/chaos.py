"""A test app that changes its state in every way a tool can, then may fail mid-way.

It exists to prove the engine's guarantees (atomic calls, snapshots, independent
forks) against all kinds of mutation, not just the ones a polite world makes.
"""

from __future__ import annotations

from typing import Literal

from sandbox import App, StateModel, ToolError, World, tool

Step = Literal[
    "append", "pop", "insert", "extend", "remove_first", "sort", "reverse", "clear_items",
    "replace_items", "slice_assign", "del_index", "rename_first", "tag_first", "meta_first",
    "counter", "note", "index_set", "index_del", "index_update", "index_pop", "flag_add",
    "flag_discard", "flags_update", "next_id", "rng", "clock", "iadd", "setdefault",
]
STEPS: tuple[str, ...] = Step.__args__  # type: ignore[attr-defined]


class Item(StateModel):
    name: str
    qty: int = 0
    tags: list[str] = []
    meta: dict[str, int] = {}


class ChaosState(StateModel):
    items: list[Item] = []
    index: dict[str, int] = {}
    flags: set[str] = set()
    counter: int = 0
    note: str | None = None
    history: list[list[int]] = []


# The steps `_apply_to_items` takes; `_apply_elsewhere` takes the rest.
_ITEM_STEPS = frozenset({
    "append", "pop", "insert", "extend", "remove_first", "sort", "reverse", "clear_items", "replace_items",
    "slice_assign", "del_index", "rename_first", "tag_first", "meta_first",
})


class ChaosApp(App[ChaosState]):
    app_name = "Chaos"

    @tool
    def mutate(self, steps: list[Step], value: int = 0, fail_at: int | None = None,
               crash: bool = False) -> dict:
        """Apply mutation steps in order; fail (ToolError or crash) before step `fail_at`.

        Args:
            steps: The mutations to make.
            value: A number the steps use.
            fail_at: Index of the step before which the call fails.
            crash: Fail with an unexpected exception rather than a ToolError.
        """
        state = self.state
        for position, step in enumerate(steps):
            if fail_at is not None and position == fail_at:
                if crash:
                    raise ZeroDivisionError("simulated crash")
                raise ToolError(f"refused before step {position}")
            self._apply(state, step, value + position)
        return {"items": len(state.items), "counter": state.counter}

    def _apply(self, state: ChaosState, step: str, n: int) -> None:
        name = f"item{n % 7}"
        if step in _ITEM_STEPS:
            self._apply_to_items(state, step, name, n)
        else:
            self._apply_elsewhere(state, step, name, n)

    def _apply_to_items(self, state: ChaosState, step: str, name: str, n: int) -> None:
        """The steps on the list of items and on the items in it."""
        if step == "append":
            state.items.append(Item(name=name, qty=n))
        elif step == "pop" and state.items:
            state.items.pop()
        elif step == "insert":
            state.items.insert(0, Item(name=name, tags=["new"]))
        elif step == "extend":
            state.items.extend([Item(name=name), Item(name=name + "b", meta={"k": n})])
        elif step == "remove_first" and state.items:
            state.items.remove(state.items[0])
        elif step == "sort":
            state.items.sort(key=lambda item: (item.name, item.qty))
        elif step == "reverse":
            state.items.reverse()
        elif step == "clear_items":
            state.items.clear()
        elif step == "replace_items":
            state.items = [Item(name="fresh", qty=n)]
        elif step == "slice_assign" and state.items:
            state.items[0:1] = [Item(name="sliced"), Item(name="sliced2")]
        elif step == "del_index" and state.items:
            del state.items[-1]
        elif step == "rename_first" and state.items:
            state.items[0].name = f"renamed{n}"
        elif step == "tag_first" and state.items:
            state.items[0].tags.append(f"t{n}")
        elif step == "meta_first" and state.items:
            state.items[0].meta[f"m{n % 3}"] = n

    def _apply_elsewhere(self, state: ChaosState, step: str, name: str, n: int) -> None:
        """The steps on the other fields, and on the world's counters, random source and clock."""
        if step == "counter":
            state.counter += n
        elif step == "note":
            state.note = None if n % 2 else f"note {n}"
        elif step == "index_set":
            state.index[name] = n
        elif step == "index_del" and state.index:
            del state.index[next(iter(state.index))]
        elif step == "index_update":
            state.index.update({f"u{n % 5}": n})
        elif step == "index_pop":
            state.index.pop(name, None)
        elif step == "flag_add":
            state.flags.add(name)
        elif step == "flag_discard":
            state.flags.discard(name)
        elif step == "flags_update":
            state.flags |= {f"f{n % 4}"}
        elif step == "next_id":
            state.counter = self.world.next_id("chaos")
        elif step == "rng":
            state.counter = self.world.rng.randint(0, 1000)
        elif step == "clock":
            self.world.clock.advance(n + 1)
        elif step == "iadd":
            state.history += [[n, n + 1]]
        elif step == "setdefault":
            state.index.setdefault(f"s{n % 3}", n)

    @tool(mutates=False)
    def peek(self) -> dict:
        """Read the counter and item names."""
        return {"counter": self.state.counter, "names": [i.name for i in self.state.items]}

    @tool(mutates=False)
    def sneaky_write(self) -> str:
        """Claims to only read, but writes (a bug the engine must catch)."""
        self.state.counter += 1
        return "wrote"


def chaos_world(seed: int = 0) -> World:
    return World([ChaosApp(ChaosState(items=[Item(name="seed", tags=["a"], meta={"x": 1})],
                                      index={"seed": 1}, flags={"f0"}))], seed=seed)
