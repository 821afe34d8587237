"""The consoles the command line writes through: at a terminal's width at a terminal, and at a
table's full width everywhere else.

rich lays a table out within its console's width, which for a pipe or a file is the width of
whatever terminal the process still has (its standard input's) or 80 columns: `toolworlds run | cat`,
`tee` and CI logs got a 9-column table wrapped inside its cells (`categor y`) and the ACEBench paper
table cut short of its Overall column. A script reading the output wants every row whole on one line,
so off a terminal the width is `PIPED_WIDTH` unless `COLUMNS` says otherwise.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleDimensions

# Wide enough for any table the commands print: rows are never wrapped, however many columns.
PIPED_WIDTH = 4096


class OutputConsole(Console):
    """A rich `Console` whose width off a terminal is `PIPED_WIDTH` (or `COLUMNS`, when set).

    `COLUMNS` is read when something is printed, not when the console is made: rich fixes it at
    construction, and the command's consoles are made at import (in a pytest-xdist worker, whose
    environment says 80, that pinned every table to 80 columns whatever a command ran with)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if kwargs.get("width") is None:
            self._width = None

    @property
    def size(self) -> ConsoleDimensions:
        measured = super().size
        if self.is_terminal or self._width is not None or self._environ.get("COLUMNS", "").isdigit():
            return measured
        return ConsoleDimensions(PIPED_WIDTH, measured.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size
