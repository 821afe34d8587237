"""World templates: a world forked from one is the world a fresh build gives, and its own."""

from __future__ import annotations

import json

import pytest

from sandbox.template import WorldTemplate
from scenarios.acebench import ALL_CLASSES, acebench_world
from scenarios.acebench.world import _build


def _bytes(world) -> bytes:  # type: ignore[no-untyped-def]
    return json.dumps(world.state(), ensure_ascii=False, sort_keys=False).encode()


CONFIGS = [
    (ALL_CLASSES, "en", None),
    (ALL_CLASSES, "zh", {"BaseApi": {"wifi": True, "logged_in": False}}),
    (("MessageApi",), "en", {"BaseApi": {"wifi": True, "logged_in_users": ["Eve"]}}),
    (("FoodPlatform", "Travel"), "en", {"BaseApi": {"logged_in_users": ["Eve", "Frank"]}}),
]


@pytest.mark.parametrize(("classes", "lang", "config"), CONFIGS)
def test_a_world_from_the_template_is_byte_identical_to_a_fresh_build(classes, lang, config) -> None:  # type: ignore[no-untyped-def]
    names = list(classes)
    if "BaseApi" not in names and any(n in ("MessageApi", "ReminderApi", "FoodPlatform") for n in names):
        names.insert(0, "BaseApi")
    fresh = _build(names, lang, config or {}, 0)
    for _ in range(2):
        forked = acebench_world(classes, lang=lang, initial_config=config)
        assert _bytes(forked) == _bytes(fresh)
        assert forked.rng.draws == fresh.rng.draws and forked.clock.now() == fresh.clock.now()
        assert len(forked.log) == 0


def test_worlds_from_one_template_are_independent() -> None:
    first = acebench_world(("MessageApi",), initial_config={"BaseApi": {"wifi": True}})
    second = acebench_world(("MessageApi",), initial_config={"BaseApi": {"wifi": True}})
    pristine = _bytes(second)
    assert first.call("delete_message", {"message_id": 1}).changed  # the inbox is full (6 of 6)
    assert first.call("send_message", {"sender_name": "Eve", "receiver_name": "Frank", "message": "hi"}).changed
    assert _bytes(second) == pristine
    third = acebench_world(("MessageApi",), initial_config={"BaseApi": {"wifi": True}})
    assert _bytes(third) == pristine and len(third.log) == 0
    assert _bytes(first) != pristine


def test_a_configuration_that_can_be_no_key_is_refused_naming_its_field() -> None:
    """Every valid configuration is a template key; one that cannot be (a string of users, which `list()`
    would make one user per letter) is refused instead of being built some other way."""
    odd = {"BaseApi": {"logged_in_users": "Eve"}}
    with pytest.raises(ValueError, match=r"initial_config\.BaseApi\.logged_in_users must be a list of user names"):
        acebench_world(("FoodPlatform",), initial_config=odd)


def test_a_template_can_only_be_forked() -> None:
    template = WorldTemplate(_build(["BaseApi"], "en", {}, 0))
    with pytest.raises(AttributeError):
        template._world = None  # type: ignore[misc]
    assert not hasattr(template, "call") and not hasattr(template, "state")
    used = _build(["BaseApi"], "en", {}, 0)
    used.call("turn_on_wifi")
    with pytest.raises(ValueError):
        WorldTemplate(used)


BANKING_CONFIGS = [
    (("BaseApi", "Bank"), "en", None),
    (("Bank",), "zh", {"BaseApi": {"wifi": True, "logged_in": False}}),
    (("Bank", "MessageApi", "ReminderApi"), "en", {"BaseApi": {"wifi": True}}),
    (("Bank",), "en", {"Bank": {"sessions": ["C002"], "next_loan": 7}}),
]


@pytest.mark.parametrize(("classes", "lang", "config"), BANKING_CONFIGS)
def test_a_banking_world_from_its_template_is_byte_identical_to_a_fresh_build(classes, lang, config) -> None:  # type: ignore[no-untyped-def]
    from scenarios.banking.world import _build, banking_world

    fresh = _build(dict.fromkeys(["BaseApi", *classes]), lang, config, 3)
    for _ in range(2):
        forked = banking_world(classes, lang=lang, initial_config=config, seed=3)
        assert _bytes(forked) == _bytes(fresh)
        assert forked.rng.draws == fresh.rng.draws and forked.clock.now() == fresh.clock.now()
        assert forked.rng.seed == fresh.rng.seed and len(forked.log) == 0
        for name, arguments in (("turn_on_wifi", {}), ("login_device", {}),
                                ("login_bank", {"customer_id": "C001", "password": "eve2024"})):
            forked.call(name, arguments)
        # Its own: the next fork (the loop's second round) is still the fresh build's bytes.
        assert forked.call("deposit", {"customer_id": "C001", "account_id": "A001", "amount": 5}).changed


def test_a_banking_configuration_json_cannot_give_back_is_built_as_given() -> None:
    from scenarios.banking.world import banking_world

    with pytest.raises(ValueError, match=r"initial_config\.Bank must be an object"):
        banking_world(("Bank",), initial_config={"Bank": ("a", "b")})  # a tuple: no key, the build says why
    with pytest.raises(ValueError, match=r"initial_config\.Bank must be an object"):
        banking_world(("Bank",), initial_config={"Bank": ["a", "b"]})  # the same through the template


def test_a_toolbench_world_from_its_task_template_is_byte_identical_to_a_fresh_build() -> None:
    import pickle

    from scenarios.toolbench.tasks import task_from_row
    from scenarios.toolbench.world import tool_specs, toolbench_world
    from tests.test_toolbench import rows

    task = task_from_row(rows()[0], 0)
    fresh = toolbench_world(specs=tool_specs(task.tools), task_id=task.id, seed=2, cache=task.cache)
    first = task.world(seed=2)
    assert _bytes(first) == _bytes(fresh) and first.rng.draws == fresh.rng.draws and len(first.log) == 0
    name = next(iter(first.tools))
    first.call(name, {})  # a call on one fork is no call on the next
    second = task.world(seed=2)
    assert _bytes(second) == _bytes(fresh) and len(second.log) == 0 and len(first.log) == 1
    moved = pickle.loads(pickle.dumps(task))  # a worker process builds its own template
    assert _bytes(moved.world(seed=2)) == _bytes(fresh)
