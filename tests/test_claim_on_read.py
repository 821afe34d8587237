"""The first writing call after a fork claims a top state's fields as it reads them.

Its top copy takes, for the call, a twin class whose descriptors claim; these tests hold the
call to copying only what it reads, to the twin passing for the model's own class inside the
call, and to every way the call can end (a kept write, a rollback, a snapshot taken inside it)
leaving worlds that never see each other's writes and models of their own class.

Claim on read is a speed lane (`sandbox.lanes`): these tests force it on for their state classes,
whatever the switch says, and hold it to the plain path (every field copied up front) on the same
calls in the same process; one test holds the switch to deciding which of the two a class takes."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import App, StateModel, ToolError, World, tool
from sandbox.app import FIELDS_SHARED, OWNED, SHARED_AGAIN
from sandbox.lanes import LANES_ON
from sandbox.state import CLAIM_ON_READ_FROM, plain


class Entry(StateModel):
    text: str
    tags: list[str] = []


class ShelfState(StateModel):
    books: dict[str, Entry] = {}
    loans: list[str] = []
    notes: dict[str, list[int]] = {}
    owner: Entry | None = None
    count: int = 0


class Shelf(App[ShelfState]):
    """A shelf whose tools read one field each, and a probe that looks at the state inside a call."""

    def __init__(self, probe: Callable[[Shelf], Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.probe = probe

    @tool
    def lend(self, key: str) -> int:
        """Lend a book.

        Args:
            key: The book.
        """
        self.state.loans.append(key)
        return len(self.state.loans)

    @tool
    def tag(self, key: str, tag: str) -> None:
        """Tag a book.

        Args:
            key: The book.
            tag: The tag.
        """
        self.state.books[key].tags.append(tag)

    @tool
    def tag_then_fail(self, key: str) -> None:
        """Tag a book, then fail (the call is undone).

        Args:
            key: The book.
        """
        self.state.books[key].tags.append("lost")
        raise ToolError("refused")

    @tool
    def replace_notes(self) -> None:
        """Replace the notes without reading them first."""
        self.state.notes = {"fresh": [1]}

    @tool
    def look(self) -> Any:
        """Run the probe inside a writing call, then count."""
        assert self.probe is not None
        seen = self.probe(self)
        self.state.count += 1
        return seen


@contextmanager
def _lane(kind: type[StateModel], on: bool) -> Iterator[None]:
    """The `claim_on_read` lane forced on or off for `kind`'s tops, whatever the switch says."""
    before = kind.__dict__["_claims_on_read"]
    type.__setattr__(kind, "_claims_on_read", on)
    try:
        yield
    finally:
        type.__setattr__(kind, "_claims_on_read", before)


@pytest.fixture(autouse=True)
def _claiming_on_read() -> Iterator[None]:
    with _lane(ShelfState, True), _lane(FourState, True):
        yield


def _world(probe: Callable[[Shelf], Any] | None = None) -> World:
    state = ShelfState(books={"a": Entry(text="A"), "b": Entry(text="B", tags=["x"])}, loans=["b"],
                       notes={"n": [1, 2]}, owner=Entry(text="me"))
    return World([Shelf(probe, state=state)])


def _raw(state: StateModel) -> dict[str, Any]:
    return dict(state.__dict__)


def test_a_first_call_after_a_fork_copies_only_the_fields_it_reads() -> None:
    world = _world()
    parent = _raw(world.app(Shelf)._state)
    fork = world.fork()
    assert fork.call("lend", {"key": "a"}).result == 2
    app = fork.app(Shelf)
    child = _raw(app._state)
    assert child["loans"] is not parent["loans"] and list(child["loans"]) == ["b", "a"]
    assert [name for name in ("books", "notes", "owner") if child[name] is parent[name]] == ["books", "notes", "owner"]
    assert type(app._state) is ShelfState and app._shared == FIELDS_SHARED
    # The next writing call claims what was left shared, once, and writes to its own copies.
    assert fork.call("tag", {"key": "b", "tag": "y"}).ok
    assert app._shared is OWNED and type(app._state) is ShelfState
    assert world.state()["Shelf"]["books"]["b"]["tags"] == ["x"]
    assert world.state()["Shelf"]["loans"] == ["b"]
    assert fork.state()["Shelf"]["books"]["b"]["tags"] == ["x", "y"]


def test_inside_the_call_the_fields_not_read_yet_are_still_shared() -> None:
    def probe(app: Shelf) -> Any:
        raw = _raw(app.state)
        before = {name: raw[name] is parent[name] for name in ("books", "loans", "notes", "owner")}
        app.state.notes["n"].append(3)
        raw = _raw(app.state)
        return before, {name: raw[name] is parent[name] for name in ("books", "loans", "notes", "owner")}

    world = _world(probe)
    parent = _raw(world.app(Shelf)._state)
    before, after = world.fork().call("look").result
    assert before == {"books": True, "loans": True, "notes": True, "owner": True}
    assert after == {"books": True, "loans": True, "notes": False, "owner": True}
    assert world.state()["Shelf"]["notes"] == {"n": [1, 2]}


def test_inside_the_call_the_top_passes_for_its_own_class() -> None:
    reference = _world().state()["Shelf"]

    def probe(app: Shelf) -> Any:
        state = app.state
        twin = type(state)
        same = ShelfState.model_validate(reference)
        deep, shallow = copy.deepcopy(state), copy.copy(state)
        seen = {
            "twin": twin is not ShelfState and isinstance(state, ShelfState) and twin.__name__ == "ShelfState",
            "equal": state == same and same == state and state != ShelfState(),
            "dump": state.model_dump(mode="json") == reference and plain(state) == reference,
            "repr": repr(state).startswith("ShelfState(") and repr(state) == repr(same),
            "copies": (type(deep) is ShelfState and deep == same and type(shallow) is ShelfState
                       and type(state.model_copy(deep=True)) is ShelfState),
            "pickle": type(pickled := pickle.loads(pickle.dumps(state))) is ShelfState and pickled == same,
        }
        # `dict(state)` hands out every field: each is claimed first, and the top is of its own class again.
        fields = dict(state)
        seen["iter"] = type(state) is ShelfState and all(fields[name] is not parent[name] for name in parent
                                                         if name != "count")
        return seen

    world = _world(probe)
    parent = _raw(world.app(Shelf)._state)
    seen = world.fork().call("look").result
    assert seen == {"twin": True, "equal": True, "dump": True, "repr": True, "copies": True, "pickle": True,
                    "iter": True}
    assert world.state()["Shelf"] == reference


def test_a_failed_first_call_keeps_nothing_and_leaves_the_class() -> None:
    world = _world()
    fork = world.fork()
    assert not fork.call("tag_then_fail", {"key": "a"}).ok
    app = fork.app(Shelf)
    assert app._state is world.app(Shelf)._state and type(app._state) is ShelfState
    assert app._shared == SHARED_AGAIN
    assert fork.state() == world.state()
    assert fork.call("tag", {"key": "a", "tag": "t"}).ok
    assert world.state()["Shelf"]["books"]["a"]["tags"] == []


def test_a_field_replaced_before_it_is_read_is_kept() -> None:
    world = _world()
    fork = world.fork()
    assert fork.call("replace_notes").ok
    assert fork.state()["Shelf"]["notes"] == {"fresh": [1]}
    assert world.state()["Shelf"]["notes"] == {"n": [1, 2]}
    assert fork.call("lend", {"key": "x"}).ok and fork.state()["Shelf"]["notes"] == {"fresh": [1]}


def test_a_snapshot_taken_inside_the_call_is_restored_as_it_was() -> None:
    snapshots = []

    def probe(app: Shelf) -> Any:
        app.state.books["a"].tags.append("before")
        snapshots.append(app.world.snapshot())
        app.state.loans.append("after")
        return None

    world = _world(probe)
    fork = world.fork()
    assert fork.call("look").ok
    assert fork.state()["Shelf"]["loans"] == ["b", "after"]
    fork.restore(snapshots[0])
    shelf = fork.app(Shelf)
    assert type(shelf._state) is ShelfState
    assert fork.state()["Shelf"]["books"]["a"]["tags"] == ["before"]
    assert fork.state()["Shelf"]["loans"] == ["b"] and fork.state()["Shelf"]["count"] == 0
    assert fork.call("tag", {"key": "b", "tag": "z"}).ok and fork.call("lend", {"key": "c"}).ok
    assert type(shelf._state) is ShelfState
    assert world.state() == _world().state()


def test_a_fork_of_a_fork_taken_inside_a_call_is_independent() -> None:
    forks: list[World] = []

    def probe(app: Shelf) -> Any:
        app.state.loans.append("mine")
        forks.append(app.world.fork())
        return None

    world = _world(probe)
    first = world.fork()
    assert first.call("look").ok
    second = forks[0]
    assert second.call("tag", {"key": "a", "tag": "second"}).ok
    assert second.call("lend", {"key": "z"}).ok
    assert type(second.app(Shelf)._state) is ShelfState
    assert first.state()["Shelf"]["books"]["a"]["tags"] == []
    assert first.state()["Shelf"]["loans"] == ["b", "mine"]
    assert second.state()["Shelf"]["loans"] == ["b", "mine", "z"]
    assert world.state() == _world().state()


class Reader(App[ShelfState]):
    """A second app whose tool reads the shelf's loans, for a call made inside a shelf's call."""

    @tool
    def count_loans(self) -> int:
        """Count the shelf's loans, and note the count in this app's own state."""
        self.state.count += 1
        return len(self.world.app(Shelf).state.loans)


def test_a_field_claimed_by_a_call_made_inside_the_call_is_still_the_outer_calls() -> None:
    def probe(app: Shelf) -> Any:
        assert app.state.count == 0  # the shelf's call takes its top first, then the inner call reads a field
        inner = app.world.call("count_loans")
        app.state.loans.append("outer")
        return inner.result

    state = ShelfState(loans=["b"])
    world = World([Shelf(probe, state=state), Reader()])
    fork = world.fork()
    assert fork.call("look").result == 1
    assert fork.state()["Shelf"]["loans"] == ["b", "outer"]
    assert world.state()["Shelf"]["loans"] == ["b"]
    assert type(fork.app(Shelf)._state) is ShelfState


class PairState(StateModel):
    items: list[str] = []
    label: str = ""


class Pair(App[PairState]):
    """A state with too few nested fields to claim them on read."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parents = dict(self._state.__dict__)  # the objects a fork's state shares before any call

    @tool
    def add(self, item: str) -> Any:
        """Add an item, reporting what the call saw of its state first.

        Args:
            item: The item.
        """
        raw = _raw(self.state)
        shared = sorted(name for name in ("items",) if raw[name] is self.parents[name])
        self.state.items.append(item)
        return type(self.state) is PairState, shared


def test_a_top_with_few_nested_fields_claims_them_all_up_front() -> None:
    assert len(PairState._nested_fields) < CLAIM_ON_READ_FROM <= len(ShelfState._nested_fields)
    world = World([Pair(state=PairState(items=["a"], label="A"))])
    fork = world.fork()
    assert fork.call("add", {"item": "b"}).result == [True, []]
    assert world.state()["Pair"]["items"] == ["a"] and fork.state()["Pair"]["items"] == ["a", "b"]


class FourState(StateModel):
    a: list[int] = []
    b: list[int] = []
    c: list[int] = []
    d: list[int] = []


class Four(App[FourState]):
    """Reads its fields in the order a call names, then writes to the last one."""

    @tool
    def read_then_write(self, order: list[str]) -> list[Any]:
        """Read fields in this order, noting the class after each read, then append 9 to the last.

        Args:
            order: Field names.
        """
        seen = []
        for name in order:
            getattr(self.state, name)
            seen.append(type(self.state).__name__ if type(self.state) is FourState else "twin")
        getattr(self.state, order[-1]).append(9)
        return seen


def test_a_class_makes_at_most_max_twins_and_then_claims_the_rest_at_once(monkeypatch: Any) -> None:
    monkeypatch.setattr("sandbox.state.sharing.MAX_TWINS", 3)
    world = World([Four(state=FourState(a=[1], b=[2], c=[3], d=[4]))])
    # Twins for {a,b,c,d}, {b,c,d} and {c,d}: the third read finds the bound reached, so it claims d too and
    # the model is of its own class again, as if it had read every field.
    assert world.fork().call("read_then_write", {"order": ["a", "b", "c"]}).result == ["twin", "twin", "FourState"]
    twins = FourState.__dict__["_tw_twins"]
    assert len(twins) == 3
    # Later calls reuse the twins they find and make no more; every write stays in its own world.
    for order in (["b", "a", "d"], ["d", "c", "b", "a"], ["c", "d"], ["a", "b", "c"]):
        fork = world.fork()
        record = fork.call("read_then_write", {"order": order})
        assert record.ok and record.result[-1] == "FourState", (order, record)
        assert fork.state()["Four"][order[-1]][-1] == 9 and type(fork.app(Four)._state) is FourState
        assert len(twins) == 3
    assert world.state()["Four"] == {"a": [1], "b": [2], "c": [3], "d": [4]}


def test_the_switch_decides_whether_a_class_claims_on_read() -> None:
    class Fresh(StateModel):
        a: list[int] = []
        b: list[int] = []
        c: dict[str, int] = {}

    class Few(StateModel):
        a: list[int] = []
        b: int = 0

    class Whole(StateModel):  # tools that read every field: claimed up front, whatever the switch says
        claims_up_front: ClassVar[bool] = True
        a: list[int] = []
        b: list[int] = []
        c: dict[str, int] = {}

    assert Fresh._claims_on_read is LANES_ON
    assert Few._claims_on_read is False
    assert Whole._claims_on_read is False and set(Whole.model_fields) == {"a", "b", "c"}


def test_without_the_lane_the_first_call_copies_every_field_up_front() -> None:
    def probe(app: Shelf) -> Any:
        raw = _raw(app.state)
        return type(app.state) is ShelfState, sorted(name for name in parent if raw[name] is parent[name])

    world = _world(probe)
    parent = {name: value for name, value in _raw(world.app(Shelf)._state).items() if name != "count"}
    with _lane(ShelfState, False):
        assert world.fork().call("look").result == [True, []]
    assert world.fork().call("look").result == [False, ["books", "loans", "notes", "owner"]]


# Calls on a shelf: (tool, arguments), and "fork" / "snapshot" / "restore" between calls.
STEPS = st.lists(st.one_of(
    st.tuples(st.just("lend"), st.fixed_dictionaries({"key": st.sampled_from(["a", "b", "c"])})),
    st.tuples(st.just("tag"), st.fixed_dictionaries({"key": st.sampled_from(["a", "b"]),
                                                    "tag": st.sampled_from(["x", "y"])})),
    st.tuples(st.just("tag"), st.fixed_dictionaries({"key": st.just("missing"), "tag": st.just("x")})),
    st.tuples(st.just("tag_then_fail"), st.fixed_dictionaries({"key": st.sampled_from(["a", "b"])})),
    st.tuples(st.sampled_from(["replace_notes", "look", "fork", "snapshot", "restore"]), st.just({})),
), max_size=12)


def _run(steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """What a run of `steps` on a fork of a fresh shelf shows: every call's record, every state."""
    world = _world(lambda app: sorted(app.state.books))
    seen: list[Any] = []
    current, snapshot = world.fork(), None
    for name, arguments in steps:
        if name == "fork":
            current = current.fork()
        elif name == "snapshot":
            snapshot = current.snapshot()
        elif name == "restore" and snapshot is not None:
            current.restore(snapshot)
        elif name != "restore":
            record = current.call(name, arguments)
            seen.append((record.ok, record.result, record.error))
        seen.append((current.state(), world.state()))
    return seen


@settings(max_examples=60, deadline=None)
@given(STEPS)
def test_the_lane_and_the_plain_path_give_the_same_results_and_states(steps: list[tuple[str, dict[str, Any]]]) -> None:
    with _lane(ShelfState, True):
        claiming = _run(steps)
    with _lane(ShelfState, False):
        plain_path = _run(steps)
    assert claiming == plain_path


# ACEBench's messages app: a top of two nested fields (contacts, inbox), the fewest that claim on read
# (`CLAIM_ON_READ_FROM`), with the lane forced on and off for it: claiming on read must give what claiming up front
# gives at any number of fields.
# Calls, and "fork" (go on in a fork, keeping the world left behind as a sibling), "snapshot", "restore".
NAMES = st.sampled_from(["Eve", "Frank", "Grace", "Nobody"])
MESSAGE_STEPS = st.lists(st.one_of(
    st.tuples(st.just("send_message"), st.fixed_dictionaries({"sender_name": NAMES, "receiver_name": NAMES,
                                                              "message": st.sampled_from(["hi", "bye"])})),
    st.tuples(st.just("delete_message"), st.fixed_dictionaries({"message_id": st.integers(1, 8)})),
    st.tuples(st.just("view_messages_between_users"),
              st.fixed_dictionaries({"sender_name": NAMES, "receiver_name": NAMES})),
    st.tuples(st.sampled_from(["turn_on_wifi", "get_latest_message_id", "fork", "snapshot", "restore"]), st.just({})),
), max_size=12)


def _run_messages(steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Every record and state of a run of `steps` on a fork of an ACEBench phone template; along the way, every
    world left behind by a "fork" and the template itself must stay exactly as they were."""
    from scenarios.acebench import acebench_world

    template = acebench_world(["MessageApi"], initial_config={"BaseApi": {"wifi": False, "logged_in": True}})
    untouched = json.dumps(template.state(), sort_keys=True)
    current, snapshot = template.fork(), None
    siblings: list[tuple[World, str]] = []
    seen: list[Any] = []
    for name, arguments in steps:
        if name == "fork":
            siblings.append((current, json.dumps(current.state(), sort_keys=True)))
            current = current.fork()
        elif name == "snapshot":
            snapshot = current.snapshot()
        elif name == "restore":
            if snapshot is not None:
                current.restore(snapshot)
        else:
            record = current.call(name, arguments)
            seen.append((record.ok, record.result, record.error))
        seen.append(current.state())
        assert json.dumps(template.state(), sort_keys=True) == untouched
        for sibling, before in siblings:
            assert json.dumps(sibling.state(), sort_keys=True) == before
    return seen


@settings(max_examples=40, deadline=None)
@given(MESSAGE_STEPS)
def test_a_two_field_top_forced_to_claim_on_read_gives_what_the_plain_path_gives(
        steps: list[tuple[str, dict[str, Any]]]) -> None:
    from scenarios.acebench.message import MessageState

    with _lane(MessageState, True):
        claiming = _run_messages(steps)
    with _lane(MessageState, False):
        plain_path = _run_messages(steps)
    assert claiming == plain_path


def test_a_top_claiming_on_read_keeps_no_list_of_its_calls_claims_after_the_call() -> None:
    """The emptied list of a call's claims is let go by the top's generation (else every forked world keeps one)."""
    world = _world(lambda app: [app.state.books, app.state.loans, app.state.notes, app.state.owner])
    one, every = world.fork(), world.fork()
    assert one.call("lend", {"key": "a"}).ok  # reads one field of four: the release puts the class back
    assert every.call("look").ok  # reads all four: the last read puts the class back
    for fork in (one, every):
        state = fork.app(Shelf)._state
        assert type(state) is ShelfState
        assert getattr(state._tw_owner, "claims", None) is None
    assert world.state()["Shelf"]["loans"] == ["b"] and one.state()["Shelf"]["loans"] == ["b", "a"]
