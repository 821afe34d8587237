"""API-Bank as a world family: its level-1/2 APIs (and level 3's) and the recorded-call replay."""

from __future__ import annotations

import functools

from ..datasets import dataset_dir
from ..family import WorldFamily
from .replay import replay_report
from .world import apibank_world

FAMILY = WorldFamily(
    name="apibank",
    description="API-Bank's APIs (apis/) as one offline, deterministic world.",
    build_world=apibank_world,
    find_data=functools.partial(dataset_dir, "api-bank"),
    replay=replay_report,
)
