"""API-Bank: its APIs as one stateful, offline, deterministic world, its dialogues, and their replay."""

from .dialogues import ApiCall, Dialogue, Level3Scene, Turn, load_dialogues, load_level3
from .knowledge import Cassette
from .world import apibank_world

__all__ = ["ApiCall", "Cassette", "Dialogue", "Level3Scene", "Turn", "apibank_world", "load_dialogues",
           "load_level3"]
