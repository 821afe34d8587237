"""ACEBench's agent worlds (phone: device, messages, reminders, food delivery; travel), en and zh."""

from .base import AceApp, BaseApi, DeviceState
from .food import FoodPlatform
from .message import MessageApi
from .reminder import ReminderApi
from .texts import EN, ZH, Texts
from .travel import Travel, reservation_lifecycle
from .world import ALL_CLASSES, APP_CLASSES, acebench_world, apply_initial_config, saved_state

__all__ = [
    "ALL_CLASSES", "APP_CLASSES", "AceApp", "BaseApi", "DeviceState", "EN", "FoodPlatform", "MessageApi",
    "ReminderApi", "Texts", "Travel", "ZH", "acebench_world", "apply_initial_config",
    "reservation_lifecycle", "saved_state",
]
