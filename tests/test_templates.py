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
