"""Database URLs fit to print: a run store's password never reaches a terminal, a log or an error."""

from __future__ import annotations


def shown_url(url: str) -> str:
    """A database URL fit to print: its password masked."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unreadable URL>"


def hide_secret(url: str, text: str) -> str:
    """`text` with the URL's password (and the URL as given) masked, wherever they appear."""
    from sqlalchemy.engine import make_url

    text = text.replace(url, shown_url(url))
    try:
        password = make_url(url).password
    except Exception:
        return text
    return text.replace(str(password), "***") if password else text
