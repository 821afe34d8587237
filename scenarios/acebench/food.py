"""FoodPlatform: food delivery with user accounts, merchants, menus and orders."""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from sandbox import Ref, StateModel, tool

from . import defaults
from .base import AceApp, Reply, fail, ok, peek, peek_all


class FoodUser(StateModel):
    user_id: str
    password: str
    balance: float


class MenuItem(StateModel):
    product: str
    price: float


class Merchant(StateModel):
    merchant_id: str
    service_type: str
    menu: list[MenuItem] = []


class OrderLine(StateModel):
    product: str
    quantity: int
    price_per_unit: float


class Order(StateModel):
    user_name: str
    merchant_name: str
    items: list[OrderLine]
    total_price: float


class FoodState(StateModel):
    users: dict[str, FoodUser] = {}
    merchant_list: dict[str, Merchant] = {}
    logged_in_users: list[str] = []
    orders: list[Order] = []


class LoggedInUsers(TypedDict):
    status: bool
    logged_in_users: list[str]


class OrderList(TypedDict):
    status: bool
    orders: list[Order]


# What the tools' parameters name in the state: a platform user, a merchant, a product on its menu.
UserName = Annotated[str, Ref("FoodPlatform", "users")]
MerchantName = Annotated[str, Ref("FoodPlatform", "merchant_list")]


class OrderItem(BaseModel):
    product: Annotated[str, Field(description="The product's name, exactly as on the menu."),
                       Ref("FoodPlatform", "merchant_list.{merchant_name}.menu", "product")]
    quantity: Annotated[int, Field(description="How many (default 1).")] = 1


class FoodPlatform(AceApp[FoodState]):
    """Order food for delivery from a platform's merchants."""

    app_name = "FoodPlatform"
    saved_attributes = ("users", "logged_in_users", "orders")

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return defaults.food_state(lang)

    @tool(destructive=False, idempotent=True)
    def login_food_platform(self, username: UserName,
                            password: Annotated[str, Ref("FoodPlatform", "users.{username}.password")]) -> Reply:
        """Log a user in to the food platform (needs Wi-Fi).

        Args:
            username: The user's name.
            password: The user's password.
        """
        text = self.texts
        if not self.device().wifi:
            return fail(text.food_wifi_off)
        seen = self.read_only_state  # the checks read the state as it is: a fork's first login copies the list alone
        user = peek(seen.users, username)
        if user is None:
            return fail(text.food_user_unknown)
        if user.password != password:
            return fail(text.wrong_password)
        if username in seen.logged_in_users:
            return fail(text.already_logged_in.format(username=username))
        self.state.logged_in_users.append(username)
        return ok(text.food_logged_in.format(username=username))

    @tool(mutates=False)
    def view_logged_in_users(self) -> LoggedInUsers | Reply:
        """List the users logged in to the food platform."""
        users = list(self.state.logged_in_users)
        return {"status": True, "logged_in_users": users} if users else fail(self.texts.nobody_logged_in)

    @tool(mutates=False)
    def check_balance(self, user_name: UserName) -> float | Reply:
        """Show a user's balance on the food platform.

        Args:
            user_name: The user's name.
        """
        user = self.state.users.get(user_name)
        if user is None:
            return fail(self.texts.balance_user_unknown.format(name=user_name))
        return user.balance

    @tool(destructive=False)
    def add_food_delivery_order(self, username: Annotated[str, Ref("FoodPlatform", "logged_in_users")],
                                merchant_name: MerchantName, items: list[OrderItem]) -> Reply:
        """Place a delivery order for a logged-in user; the total is paid from their balance.

        Args:
            username: The user placing the order.
            merchant_name: The merchant to order from.
            items: The products and quantities to order.
        """
        text, seen = self.texts, self.read_only_state  # the checks read the state as it is (see `login_food_platform`)
        if username not in seen.logged_in_users:
            return fail(text.food_not_logged_in.format(username=username))
        merchant = peek(seen.merchant_list, merchant_name)
        if merchant is None:
            return fail(text.merchant_unknown)
        prices = {entry.product: entry.price for entry in reversed(peek_all(merchant.menu))}
        lines: list[OrderLine] = []
        total = 0.0
        for item in items:
            product, quantity = item.product, item.quantity  # read once: a model's field reads are slow on 3.11
            if quantity <= 0:
                return fail(text.invalid_quantity.format(quantity=quantity, product=product))
            price = prices.get(product)
            if price is None:
                return fail(text.product_unknown.format(product=product, merchant=merchant_name))
            lines.append(OrderLine(product=product, quantity=quantity, price_per_unit=price))
            total += price * quantity
        balance = seen.users[username].balance
        # The zh reference refuses an order that would use up the whole balance; en allows it.
        if total > balance or (self.lang == "zh" and total >= balance):
            return fail(text.insufficient_balance)
        state = self.state
        state.users[username].balance -= total
        state.orders.append(Order(user_name=username, merchant_name=merchant_name, items=lines, total_price=total))
        return ok(text.order_placed.format(merchant=merchant_name, total=total))

    @tool(mutates=False)
    def get_products(self, merchant_name: MerchantName) -> list[MenuItem] | Reply:
        """List a merchant's menu with prices.

        Args:
            merchant_name: The merchant's name.
        """
        merchant = self.state.merchant_list.get(merchant_name)
        if merchant is None:
            return fail(self.texts.merchant_named_unknown.format(merchant=merchant_name))
        return merchant.menu

    @tool(mutates=False)
    def view_orders(self, user_name: UserName) -> OrderList | Reply:
        """List a user's orders.

        Args:
            user_name: The user's name.
        """
        orders = [order for order in self.state.orders if order.user_name == user_name]
        return {"status": True, "orders": orders} if orders else fail(self.texts.no_orders)

    @tool(mutates=False)
    def search_orders(self, keyword: str) -> OrderList | Reply:
        """Find orders whose merchant or products contain a keyword (case-insensitive).

        Args:
            keyword: Text to look for.
        """
        needle = keyword.lower()
        orders = [
            order for order in self.state.orders
            if needle in order.merchant_name.lower() or any(needle in line.product.lower() for line in order.items)
        ]
        return {"status": True, "orders": orders} if orders else fail(self.texts.no_matching_orders)
