"""How patiently a run talks to a model endpoint, by default, and how much it takes from one.

The LLM client, the runner and the command line's option defaults all read these numbers;
they live apart from the client so that drawing the command line (its help, its defaults)
does not import the client and the agents behind it.
"""

from __future__ import annotations

DEFAULT_TIMEOUT = 60.0  # seconds per request attempt, as a whole: connect to the reply's last byte
DEFAULT_RETRIES = 2  # further tries of a request that failed transiently
MAX_TIMEOUT = 86_400.0  # a day: a longer timeout is a typo, and too long for the clocks that wait it out
# The longest wait before a retry (and never more than the timeout), whatever the endpoint's Retry-After asks:
# a run must not sit for minutes on one request.
MAX_RETRY_WAIT = 30.0
# The largest reply body taken, counted decompressed as it is read: far beyond any chat completion (a
# 100,000-token reply is about half a megabyte), small enough that a reply inflating to gigabytes is refused
# before it is in memory. Parsed JSON can take several times its text's size.
MAX_REPLY_BYTES = 32 * 2**20
