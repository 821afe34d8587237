"""API-Bank: its APIs as one stateful, offline, deterministic world, its dialogues, and their replay."""

from .dialogues import ApiCall, Dialogue, DialogueTurn, Level3Scene, load_dialogues, load_level3
from .knowledge import Cassette
from .world import apibank_world

__all__ = ["ApiCall", "Cassette", "Dialogue", "DialogueTurn", "Level3Scene", "apibank_world", "load_dialogues",
           "load_level3"]
