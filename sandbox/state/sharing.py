"""Claim on read: the first writing call after a fork copies only the fields of its top it reads.

Copies made in the first writing call after a fork or snapshot are recorded as claims in the call's
journal; the ones the call did not change are given back when it ends (`Journal.release`), so a world
keeps copies only of what it changed. That call does not claim the fields of a top with two or more
(`CLAIM_ON_READ_FROM`) up front either (`claim_on_read`): each is claimed when the call first reads
it, so one that reads two of five collections copies, compares and gives back two. During it,
`vars()` and `__dict__` of the top may show fields still shared.

This is the `claim_on_read` speed lane (`sandbox.lanes`): with the lanes off, no class claims on
read (`StateModel._claims_on_read`), and every take copies all of the top's collection fields up
front (`own`), the plain copy-on-write path.
"""

from __future__ import annotations

import abc
from typing import Any, SupportsIndex

from pydantic import BaseModel

from ..journal import CLAIM_FIELD
from .containers import _claimed
from .model import StateModel, _claim_fields, own
from .ownership import OWNER, Generation


def taken_on_read(original: StateModel, claims: list[Any]) -> StateModel:
    """The top copy that the first writing call after a fork or snapshot takes of `original` (`App._take`), each
    nested field claimed for its generation (which holds the call's `claims`) when the call first reads it, rather
    than all of them now (the `claim_on_read` lane).

    A call reads one or two of a state's collections; claiming the others (and, after a fork, giving
    them back unchanged when the call ends) was most of the cost of a first write. The copy is made an
    instance of a twin of its class with a claiming data descriptor per field still to claim
    (`_ClaimOnRead`); each claim moves it to the twin without that field, so a field once claimed is
    read as any field is, and the model is of its own class again when none is left. `settle` puts
    the class back when the call ends."""
    kind = type(original)
    full = original._tw_full  # `_full_twin`'s first test, inline: a class's first take after every fork asks
    twin = _full_twin(kind) if full is None or full[0] is not kind else full[1]
    generation = Generation()
    generation.claims = claims
    return own(original, generation, None, False, twin)  # positional: keywords cost more to bind


def _full_twin(kind: type[StateModel]) -> type[StateModel]:
    """The twin of `kind`'s model class with every nested field still to claim, kept on the class (`_tw_full`)."""
    real = kind._tw_real or kind  # a copy of a top shared while it claimed on read (a snapshot inside a call)
    full = real._tw_full
    if full is None or full[0] is not real:  # none yet, or a base class's
        twins = real.__dict__.get(_TWINS)
        full = (real, (twins or _twins_of(real))[real._nested_fields])
        type.__setattr__(real, "_tw_full", full)
    return full[1]


def settle(model: StateModel) -> bool:
    """Give `model` its own class back after `taken_on_read`; whether the call claimed every field."""
    real = model._tw_real  # through the instance: cheaper than on the class (see `StateModel._tw_full`)
    if real is None:
        return True
    _set_class(model, real)
    owner = getattr(model, OWNER, None)  # `_drop_claims`, inline: every first call's top settles here
    if type(owner) is Generation:
        owner.claims = None
    return False


def _drop_claims(model: StateModel) -> None:
    """Let the generation of `model`, a top whose every field is claimed or whose call has ended, forget the
    call's claims: only a claiming descriptor records into them, and the emptied list would otherwise live as
    long as the world (about 60 bytes of each forked phone world that sent a message)."""
    owner = getattr(model, OWNER, None)
    if type(owner) is Generation:
        owner.claims = None


class _ClaimOnRead:
    """The data descriptor of a field still to claim in a top state model's twin (`claim_on_read`):
    reading it hands out the generation's own copy, made then and recorded as a claim of the call
    (`Journal.release`) as `_claim_fields` does for all of them at once, and moves the model on to
    the twin without this field (`after`)."""

    __slots__ = ("after", "name", "real", "rest")

    def __init__(self, real: type[StateModel], name: str, rest: tuple[str, ...]) -> None:
        self.real = real
        self.name = name
        self.rest = rest  # the fields still to claim once this one is
        self.after: type[StateModel] | None = None  # the twin for `rest`, found on the first claim

    def __get__(self, model: Any, kind: Any = None) -> Any:
        if model is None:
            return self
        fields = model.__dict__
        name = self.name
        try:
            value = fields[name]
        except KeyError:
            raise AttributeError(f"{type(model).__name__!r} object has no attribute {name!r}") from None
        owner = getattr(model, OWNER, None)
        mine = _claimed(value, owner)  # itself if immutable or already the generation's (its own first test)
        if mine is not value:
            fields[name] = mine
            claims = getattr(owner, "claims", None)
            if claims is not None:
                claims.append((CLAIM_FIELD, model, name, mine, value))
            value = mine
        after = self.after
        if after is None:
            after = self._next(model)
        _set_class(model, after)
        if after is self.real:
            _drop_claims(model)
        return value

    def _next(self, model: Any) -> type[StateModel]:
        """The twin for the fields still to claim once this one is, kept for the next claim of this field; when
        the model class has `MAX_TWINS` already, none is made: the rest are claimed now and the model is of its
        own class again (what a read of every field would come to, so a call sees no difference)."""
        twins: _Twins = self.real.__dict__[_TWINS]
        after = twins.get(self.rest)  # `get` makes no twin (`__missing__` is for `[]`)
        if after is None:
            if len(twins) >= MAX_TWINS:
                _claim_now(model, self.rest)
                return self.real
            after = twins[self.rest]
        self.after = after
        return after

    def __set__(self, model: Any, value: Any) -> None:
        StateModel.__setattr__(model, self.name, value)


class _Twins(dict[tuple[str, ...], type]):  # of `StateModel` classes
    """A model class's twins (`claim_on_read`), by the fields each has still to claim: made when first
    asked for; for no field left, the class itself."""

    __slots__ = ("real",)

    def __init__(self, real: type[StateModel]) -> None:
        super().__init__()
        self.real = real

    def __missing__(self, pending: tuple[str, ...]) -> type[StateModel]:
        twin = self[pending] = _twin(self.real, pending) if pending else self.real
        return twin


def _twins_of(kind: type[StateModel]) -> _Twins:
    twins = _Twins(kind)
    type.__setattr__(kind, _TWINS, twins)
    return twins


def _twin(real: type[StateModel], pending: tuple[str, ...]) -> type[StateModel]:
    """`real` with a claiming descriptor for each of the fields `pending` and nothing else of its own,
    so that an instance can move between the two. It is made without pydantic's class machinery (the
    model is the same); it passes for `real` where that shows: its name, `==` (pydantic compares
    generic origins), dumps, copies and pickles (of `real`), and `iter()`, which claims every field,
    since it hands them all out."""

    def claim_all(model: Any) -> Any:
        _claim_now(model, pending)
        _set_class(model, real)
        _drop_claims(model)
        return BaseModel.__iter__(model)

    def copy_of(model: Any) -> Any:
        copied = real.__copy__(model)
        _set_class(copied, real)
        return copied

    def deep_copy_of(model: Any, memo: dict[int, Any] | None = None) -> Any:
        copied = real.__deepcopy__(model, memo)
        _set_class(copied, real)
        return copied

    def reduced(model: Any, protocol: SupportsIndex) -> Any:
        return _unpickled, (real, model.__getstate__())  # as `real`, which pickle finds by its name

    namespace: dict[str, Any] = {
        name: _ClaimOnRead(real, name, tuple(other for other in pending if other != name)) for name in pending
    }
    namespace.update(
        __slots__=(), __module__=real.__module__, __qualname__=real.__qualname__, __doc__=real.__doc__,
        _tw_real=real, __iter__=claim_all, __copy__=copy_of, __deepcopy__=deep_copy_of, __reduce_ex__=reduced,
        __pydantic_generic_metadata__={**real.__pydantic_generic_metadata__, "origin": real},
    )
    # `ABCMeta.__new__` (pydantic's metaclass is one) gives the twin its own ABC caches; pydantic's own is skipped.
    twin = abc.ABCMeta.__new__(type(real), real.__name__, (real,), namespace)
    return twin


def _claim_now(model: StateModel, names: tuple[str, ...]) -> None:
    """Claim the fields `names` of a top claiming on read at once, as claims of the call its generation is for."""
    owner = getattr(model, OWNER, None)
    _claim_fields(model, model.__dict__, names, owner, getattr(owner, "claims", None))


def _unpickled(kind: type[StateModel], state: Any) -> StateModel:
    """A model pickled while it claimed on read (`_twin`), as one of its own class."""
    model = kind.__new__(kind)
    model.__setstate__(state)
    return model


MAX_TWINS = 64
"""How many twins (`claim_on_read`) a model class may have, the class itself counted once the last field is
claimed. A class with n nested fields has up to 2**n - 1, one per set of fields a call has left unread, each
made on first use and kept: 63 at most for six fields. Past the bound a call claims the fields it has not read
yet at once, so a class with many collections and many tools never fills memory with twins."""


_TWINS = "_tw_twins"  # the class attribute, in a model class's own namespace, holding its `_Twins`
_set_class = object.__dict__["__class__"].__set__
