"""How patiently a run talks to a model endpoint, by default.

The LLM client, the runner and the command line's option defaults all read these two
numbers; they live apart from the client so that drawing the command line (its help, its
defaults) does not import the client and the agents behind it.
"""

from __future__ import annotations

DEFAULT_TIMEOUT = 60.0  # seconds per request
DEFAULT_RETRIES = 2  # further tries of a request that failed transiently
