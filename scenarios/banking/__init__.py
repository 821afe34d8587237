"""The banking world the ACEBench paper describes: accounts, payments, statements and loans."""

from .bank import Bank, account_lifecycle, loan_lifecycle, statement
from .defaults import default_bank_state
from .world import CLASSES, banking_world

__all__ = ["CLASSES", "Bank", "account_lifecycle", "banking_world", "default_bank_state", "loan_lifecycle",
           "statement"]
