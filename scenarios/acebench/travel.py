"""Travel: flights, users with cash and bank balances, reservations.

Faithful to the reference where its ground truths depend on it (first-match flight
lookup, cabin-change prices from the reservation's original flight, refunds of a cabin
downgrade to the payment method's balance). Where it crashed or lost money it behaves
correctly instead; docs/compatibility.md lists each case.
"""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, NotRequired, cast

from pydantic import BeforeValidator, Field
from typing_extensions import TypedDict

from sandbox import Lifecycle, Ref, StateModel, ToolError, tool

from . import defaults
from .base import AceApp, ErrorReply

BAG_FEE = 50

reservation_lifecycle = Lifecycle(
    "reservation",
    states=["booked", "changed", "cancelled"],
    transitions=[
        ("change", ["booked", "changed"], "changed"),
        ("cancel", ["booked", "changed"], "cancelled"),
    ],
    initial="booked",
)

Status = Literal["booked", "changed", "cancelled"]


class TravelUser(StateModel):
    user_name: str
    password: str
    cash_balance: float
    bank_balance: float
    membership_level: str


class Flight(StateModel):
    flight_no: str
    origin: str
    destination: str
    depart_time: str
    arrival_time: str
    status: str
    seats_available: int
    economy_price: int
    business_price: int


class Reservation(StateModel):
    reservation_id: str
    user_id: str
    flight_no: str
    payment_method: str
    cabin: str
    baggage: int
    # Only the reference's initial reservations carry these; new ones do not.
    origin: str | None = None
    destination: str | None = None

    omit_if_none = frozenset({"origin", "destination"})

    def stored(self) -> dict[str, Any]:
        """`model_dump()`, read off the fields directly (a tenth of the serializer's cost, and two of the travel tools
        dump a reservation per call): every field is text, an integer or None, which a dump keeps as it is, and no
        other field than `omit_if_none`'s is left out (a test holds it to `model_dump`)."""
        omitted = self.omit_if_none
        return {name: value for name, value in self.__dict__.items() if value is not None or name not in omitted}


class TravelState(StateModel):
    # Booking, changing and cancelling each read every collection: claimed up front, a fork's first such call costs
    # less than claimed on read (ACEBench's messages on fresh forks 91.2k -> 90.3k instructions each, callgrind).
    claims_up_front: ClassVar[bool] = True

    users: dict[str, TravelUser] = {}
    flights: list[Flight] = []
    reservations: list[Reservation] = []
    # Lifecycle status per reservation id. Kept beside the reservations (not in them) so
    # reservation records keep the exact shape ACEBench ground truths compare.
    reservation_status: dict[str, Status] = {}
    # Fare paid per reservation (baggage fees excluded). Cancellation refunds what was
    # paid; the reference refunded the current flight's price, which a free flight change
    # could raise, creating money.
    fares_paid: dict[str, int] = {}


class UserDetails(TypedDict):
    """A user as stored, without the password."""

    user_name: str
    cash_balance: float
    bank_balance: float
    membership_level: str


class ReservationDetails(TypedDict):
    """A reservation as stored, with its flight (None when the flight is gone) and lifecycle status."""

    reservation_id: str
    user_id: str
    flight_no: str
    payment_method: str
    cabin: str
    baggage: int
    origin: NotRequired[str]
    destination: NotRequired[str]
    flight_info: Flight | None
    status: Status


class Connection(TypedDict):
    first_leg: Flight
    second_leg: Flight


# What the tools' parameters name in the state. Cabin names and payment methods are the
# ones reservations already use; a user's password and reservations follow the user the call names.
UserId = Annotated[str, Ref("Travel", "users")]
Password = Annotated[str, Ref("Travel", "users.{user_id}.password")]
FlightNo = Annotated[str, Ref("Travel", "flights", "flight_no")]
Origin = Annotated[str, Ref("Travel", "flights", "origin")]
Destination = Annotated[str, Ref("Travel", "flights", "destination")]
Cabin = Annotated[str, Ref("Travel", "reservations", "cabin")]
Membership = Annotated[str, Ref("Travel", "users", "membership_level")]
UsersReservation = Annotated[str, Ref("Travel", "reservations", "reservation_id", where={"user_id": "{user_id}"})]


def _blank_is_unset(value: Any) -> Any:
    """'' means "not given", as for the other optional parameters of modify_flight (the reference
    tests them all for truth, so a model writing new_payment_method='' keeps the original method)."""
    return None if value == "" else value


PaymentChoice = Annotated[Literal["cash", "bank"] | None, BeforeValidator(_blank_is_unset)]


class Travel(AceApp[TravelState]):
    """Search flights, book, change and cancel reservations."""

    app_name = "Travel"
    saved_attributes = ("users", "reservations")
    refusal_texts = ("auth_failed", "flight_unavailable", "invalid_cabin", "no_seats", "invalid_payment",
                     "cash_insufficient", "bank_insufficient", "reservation_mismatch", "flight_info_missing",
                     "flight_change_failed", "cabin_unpaid", "baggage_unpaid", "invalid_user",
                     "reservation_not_users", "invalid_flight_info", "segment_used")

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return defaults.travel_state(lang, self.texts.economy, self.texts.business)

    # -- helpers (not tools) -------------------------------------------------------------

    # The lookups scan the read-only view's list as a plain list: in a writing call, a scan of
    # `self.state`'s would copy every item it passes (copy on write), each compared and given back
    # at the call's end. They return the item found with its index: read it, never change it; a
    # tool that changes it takes it by index through `self.state` (only that one is copied).

    def _flight(self, flight_no: str, *, available: bool = False) -> tuple[int, Flight] | None:
        """The first flight with this number (flight numbers repeat in the data), and its index."""
        for index, flight in enumerate(list.__iter__(self.read_only_state.flights)):
            if flight.flight_no == flight_no and (not available or flight.status == "available"):
                return index, flight
        return None

    def _reservation(self, reservation_id: str, user_id: str) -> tuple[int, Reservation] | None:
        """The user's reservation with this id, and its index."""
        for index, reservation in enumerate(list.__iter__(self.read_only_state.reservations)):
            if reservation.reservation_id == reservation_id and reservation.user_id == user_id:
                return index, reservation
        return None

    def _price(self, flight: Flight, cabin: str) -> int:
        return flight.economy_price if cabin == self.texts.economy else flight.business_price

    def _allowance(self, membership: str, cabin: str) -> int | None:
        table = {"regular": (1, 2), "silver": (2, 3), "gold": (3, 3)}
        if membership not in table or not self._valid_cabin(cabin):
            return None
        economy, business = table[membership]
        return economy if cabin == self.texts.economy else business

    @staticmethod
    def _pay(user: TravelUser, method: str, amount: float) -> bool:
        """Add `amount` (negative to charge) to the method's balance; False if it would go below zero."""
        field = "cash_balance" if method == "cash" else "bank_balance"
        balance = getattr(user, field)
        if balance + amount < 0:
            return False
        setattr(user, field, balance + amount)
        return True

    def _valid_cabin(self, cabin: str) -> bool:
        return cabin in (self.texts.economy, self.texts.business)

    def _next_status(self, reservation_id: str, trigger: str) -> Status:
        """The reservation's status after `trigger`; a `ToolError` if the move is illegal."""
        current = self.state.reservation_status.get(reservation_id, "booked")
        refusal = self.texts.reservation_cancelled_already.format(id=reservation_id)
        return reservation_lifecycle.move(current, trigger, refusal=refusal)  # type: ignore[return-value]

    # -- tools -----------------------------------------------------------------------------

    @tool(mutates=False)
    def get_flight_details(
        self, origin: Origin | None = None, destination: Destination | None = None
    ) -> list[Flight] | str:
        """List direct flights, optionally only those from an origin and/or to a destination.

        Args:
            origin: Departure city.
            destination: Arrival city.
        """
        found = [
            flight for flight in self.state.flights
            if (not origin or flight.origin == origin) and (not destination or flight.destination == destination)
        ]
        return found if found else self.texts.no_direct_flights

    @tool(mutates=False)
    def get_user_details(self, user_id: UserId, password: Password) -> UserDetails | ErrorReply:
        """Show a user's name, balances and membership level.

        Args:
            user_id: The user's id, e.g. user1.
            password: The user's password.
        """
        user = self.state.users.get(user_id)
        if user is None or user.password != password:
            return {"status": "error", "message": self.texts.bad_credentials}
        return cast(UserDetails, user.model_dump(exclude={"password"}))

    @tool(mutates=False)
    def get_reservation_details(
        self,
        reservation_id: Annotated[str, Ref("Travel", "reservations", "reservation_id")] | None = None,
        user_id: UserId | None = None,
    ) -> list[ReservationDetails] | ErrorReply:
        """Show reservations by reservation id, or all of a user's reservations.

        Args:
            reservation_id: A reservation id, e.g. res_1 (takes precedence).
            user_id: A user id, e.g. user1.
        """
        if reservation_id:
            chosen = [r for r in self.state.reservations if r.reservation_id == reservation_id]
        elif user_id:
            chosen = [r for r in self.state.reservations if r.user_id == user_id]
        else:
            return {"status": "error", "message": self.texts.need_reservation_or_user}
        statuses = self.state.reservation_status
        return [
            cast(ReservationDetails, {**r.stored(), "flight_info": self._flight_info(r.flight_no),
                                      "status": statuses.get(r.reservation_id, "booked")})
            for r in chosen
        ]

    def _flight_info(self, flight_no: str) -> Flight | None:
        """`_flight`'s flight alone, for reading only."""
        found = self._flight(flight_no)
        return None if found is None else found[1]

    @tool(mutates=False)
    def find_transfer_flights(
        self, origin_city: Origin, transfer_city: Destination, destination_city: Destination
    ) -> list[Connection] | str:
        """Find two-leg connections through a transfer city (the second leg leaves after the first lands).

        Args:
            origin_city: Departure city.
            transfer_city: City to change planes in.
            destination_city: Final destination.
        """
        flights = [f for f in self.state.flights if f.status == "available"]
        first_legs = [f for f in flights if f.origin == origin_city and f.destination == transfer_city]
        second_legs = [f for f in flights if f.origin == transfer_city and f.destination == destination_city]
        pairs: list[Connection] = [
            {"first_leg": first, "second_leg": second}
            for first in first_legs
            for second in second_legs
            if _time(first.arrival_time) < _time(second.depart_time)
        ]
        return pairs if pairs else self.texts.no_transfer_flights

    @tool(mutates=False)
    def get_baggage_allowance(self, membership_level: Membership, cabin_class: Cabin) -> int:
        """How many checked bags are free for a membership level and cabin (0 if unknown).

        Args:
            membership_level: regular, silver or gold.
            cabin_class: The cabin class.
        """
        return self._allowance(membership_level, cabin_class) or 0

    @tool(mutates=False)
    def calculate_baggage_fee(
        self, membership_level: Membership, cabin_class: Cabin, baggage_count: Annotated[int, Field(ge=0)]
    ) -> int:
        """The fee for checked bags beyond the free allowance (50 each).

        Args:
            membership_level: regular, silver or gold.
            cabin_class: The cabin class.
            baggage_count: Number of checked bags.
        """
        allowance = self._allowance(membership_level, cabin_class)
        if allowance is None:
            raise ToolError(f"unknown membership level {membership_level!r} or cabin class {cabin_class!r}",
                            code="invalid_value")
        return max(baggage_count - allowance, 0) * BAG_FEE

    @tool(destructive=False)
    def reserve_flight(
        self,
        user_id: UserId,
        password: Password,
        flight_no: Annotated[str, Ref("Travel", "flights", "flight_no", where={"status": "available"})],
        cabin: Cabin,
        payment_method: Annotated[str, Ref("Travel", "reservations", "payment_method")],
        baggage_count: Annotated[int, Field(ge=0)],
    ) -> str:
        """Book a seat on a flight, paying fare plus baggage fees from cash or bank.

        Args:
            user_id: The user's id.
            password: The user's password.
            flight_no: The flight number.
            cabin: The cabin class (Economy Class or Business Class).
            payment_method: cash or bank.
            baggage_count: Number of checked bags.
        """
        text, state = self.texts, self.state
        user = state.users.get(user_id)
        if user is None or user.password != password:
            return text.auth_failed
        found = self._flight(flight_no, available=True)
        if found is None:
            return text.flight_unavailable.format(flight_no=flight_no)
        index, flight = found
        allowance = self._allowance(user.membership_level, cabin)
        if allowance is None:
            return text.invalid_cabin.format(cabin=cabin)
        total = self._price(flight, cabin) + max(baggage_count - allowance, 0) * BAG_FEE
        if payment_method not in ("cash", "bank"):
            return text.invalid_payment
        if flight.seats_available <= 0:
            return text.no_seats.format(flight_no=flight_no)
        if not self._pay(user, payment_method, -total):
            return text.cash_insufficient if payment_method == "cash" else text.bank_insufficient
        flight = state.flights[index]
        flight.seats_available -= 1
        reservation_id = f"res_{len(state.reservations) + 1}"
        state.reservations.append(Reservation(
            reservation_id=reservation_id, user_id=user_id, flight_no=flight_no,
            payment_method=payment_method, cabin=cabin, baggage=baggage_count,
        ))
        state.reservation_status[reservation_id] = "booked"
        state.fares_paid[reservation_id] = self._price(flight, cabin)
        return text.booked.format(id=reservation_id, total=total)

    @tool(idempotent=True)
    def modify_flight(
        self,
        user_id: UserId,
        reservation_id: UsersReservation,
        new_flight_no: FlightNo | None = None,
        new_cabin: Cabin | None = None,
        add_baggage: Annotated[int, Field(ge=0)] = 0,
        new_payment_method: PaymentChoice = None,
    ) -> str:
        """Change a reservation's flight (same route), cabin, or add checked bags.

        Args:
            user_id: The user's id.
            reservation_id: The reservation to change.
            new_flight_no: Another flight on the same route.
            new_cabin: The new cabin class.
            add_baggage: Extra checked bags to add.
            new_payment_method: How to pay any difference (cash or bank); defaults to the original.
        """
        text, state = self.texts, self.state
        found = self._reservation(reservation_id, user_id)
        if found is None:
            return text.reservation_mismatch
        index, reservation = found
        current = self._flight_info(reservation.flight_no)
        if current is None:
            return text.flight_info_missing
        user = state.users.get(user_id)
        if user is None:
            return text.reservation_mismatch
        if new_cabin and not self._valid_cabin(new_cabin):
            return text.invalid_cabin.format(cabin=new_cabin)
        target = None
        if new_flight_no and new_flight_no != reservation.flight_no:
            target = self._flight_info(new_flight_no)
            if target is None or (target.origin, target.destination) != (current.origin, current.destination):
                return text.flight_change_failed
        changed_status = self._next_status(reservation_id, "change")
        reservation = state.reservations[index]
        before = reservation.stored()
        method = new_payment_method or reservation.payment_method
        notes: list[str] = []

        if target is not None:
            reservation.flight_no = target.flight_no
            notes.append(text.flight_changed)

        if new_cabin and new_cabin != reservation.cabin:
            # Priced on the reservation's original flight, as the reference does (ground truths rely on it).
            diff = self._price(current, new_cabin) - self._price(current, reservation.cabin)
            paid = state.fares_paid.get(reservation_id, 0)
            if diff > 0:
                if self._pay(user, method, -diff):
                    reservation.cabin = new_cabin
                    state.fares_paid[reservation_id] = paid + diff
                    notes.append(text.cabin_paid.format(diff=diff))
                else:
                    notes.append(text.cabin_unpaid)
            else:
                if diff < 0:
                    self._pay(user, method, -diff)
                    state.fares_paid[reservation_id] = paid + diff
                    notes.append(text.cabin_refunded.format(diff=-diff))
                reservation.cabin = new_cabin

        if add_baggage > 0:
            allowance = self._allowance(user.membership_level, reservation.cabin) or 0
            bags_before = reservation.baggage
            after = bags_before + add_baggage
            # Only bags beyond what was already over the allowance are charged.
            fee = (max(0, after - allowance) - max(0, bags_before - allowance)) * BAG_FEE
            if fee <= 0:
                reservation.baggage = after
            elif self._pay(user, method, -fee):
                reservation.baggage = after
                notes.append(text.baggage_paid.format(fee=fee))
            else:
                notes.append(text.baggage_unpaid)

        if reservation.stored() != before:
            state.reservation_status[reservation_id] = changed_status
        return " ".join(notes) if notes else text.no_extra_fees

    @tool(idempotent=True)
    def cancel_reservation(self, user_id: UserId, reservation_id: UsersReservation, reason: str) -> str:
        """Cancel a reservation and refund the fare (a 10% fee within 24 hours of departure).

        Args:
            user_id: The user's id.
            reservation_id: The reservation to cancel.
            reason: Why it is cancelled.
        """
        text, state = self.texts, self.state
        user = state.users.get(user_id)
        if user is None:
            return text.invalid_user
        found = self._reservation(reservation_id, user_id)
        if found is None:
            return text.reservation_not_users
        reservation = found[1]
        found_flight = self._flight(reservation.flight_no)
        if found_flight is None:
            return text.invalid_flight_info
        index, flight = found_flight
        now = self.world.clock.now()
        departure = _time(flight.depart_time)
        if departure < now:
            return text.segment_used
        state.reservation_status[reservation_id] = self._next_status(reservation_id, "cancel")
        price: float = state.fares_paid.get(reservation_id, 0)
        if reason == text.airline_cancel_reason:
            refund, message = price, text.airline_cancelled.format(refund=price)
        elif departure - now > dt.timedelta(days=1):
            refund, message = price, text.free_cancellation.format(refund=price)
        else:
            fee = price * 0.1
            refund = price - fee
            message = text.late_cancellation.format(fee=fee, refund=refund)
        self._pay(user, reservation.payment_method, refund)
        state.flights[index].seats_available += 1
        return message


def _time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)
