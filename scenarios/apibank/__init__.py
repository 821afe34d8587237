"""API-Bank: its recorded dialogues (levels 1-3). The stateful world of its 73 APIs is still to come."""

from .dialogues import ApiCall, Dialogue, Level3Scene, Turn, load_dialogues, load_level3

__all__ = ["ApiCall", "Dialogue", "Level3Scene", "Turn", "load_dialogues", "load_level3"]
