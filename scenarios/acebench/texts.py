"""Every message the ACEBench worlds return, in English and Chinese.

The reference returns these exact strings and agents (and ground truths) see them, so
they are data: one `Texts` per language. Fields marked "ours" are messages for branches
where the reference crashed or misbehaved; there toolworlds answers in the same voice.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Texts:
    # BaseApi
    wifi_on: str
    device_logged_in: str
    # MessageApi
    send_logged_out: str
    send_wifi_off: str
    inbox_full: str
    sender_or_receiver_unknown: str
    message_sent: str  # {receiver}
    delete_logged_out: str
    message_id_unknown: str
    message_deleted: str  # {id}
    view_logged_out: str
    sender_unknown: str
    receiver_unknown: str
    no_related_messages: str
    user_unknown: str
    no_keyword_messages: str
    times_logged_out: str
    latest_logged_out: str
    earliest_logged_out: str
    no_messages: str
    latest_id: str  # {id}
    earliest_id: str  # {id}
    # ReminderApi
    reminder_view_logged_out: str
    reminder_title_unknown: str  # {title}
    reminder_add_logged_out: str
    reminders_full: str
    reminder_added: str  # {title}
    reminder_delete_logged_out: str
    reminder_id_unknown: str
    reminder_deleted: str  # {id}
    no_reminders: str
    reminder_notified: str  # {id}
    no_keyword_reminders: str
    # FoodPlatform
    food_wifi_off: str
    food_user_unknown: str
    wrong_password: str
    already_logged_in: str  # {username}
    food_logged_in: str  # {username}
    nobody_logged_in: str
    balance_user_unknown: str  # {name} (ours: the reference printed this and returned 0.0)
    food_not_logged_in: str  # {username}
    merchant_unknown: str
    invalid_quantity: str  # {quantity} {product}
    product_unknown: str  # {product} {merchant}
    insufficient_balance: str
    order_placed: str  # {merchant} {total}
    merchant_named_unknown: str  # {merchant}
    no_orders: str
    no_matching_orders: str
    # Travel
    no_direct_flights: str
    bad_credentials: str
    need_reservation_or_user: str
    no_transfer_flights: str
    auth_failed: str
    flight_unavailable: str  # {flight_no} (ours: the reference crashed)
    invalid_cabin: str  # {cabin} (ours: the reference crashed)
    no_seats: str  # {flight_no} (ours: seats went negative)
    invalid_payment: str
    cash_insufficient: str
    bank_insufficient: str
    booked: str  # {id} {total}
    reservation_mismatch: str
    flight_info_missing: str
    flight_changed: str
    flight_change_failed: str
    cabin_paid: str  # {diff}
    cabin_unpaid: str
    cabin_refunded: str  # {diff}
    baggage_paid: str  # {fee}
    baggage_unpaid: str
    no_extra_fees: str
    reservation_cancelled_already: str  # {id} (ours: the reference refunded again)
    invalid_user: str
    reservation_not_users: str
    invalid_flight_info: str
    segment_used: str
    airline_cancelled: str  # {refund}
    free_cancellation: str  # {refund}
    late_cancellation: str  # {fee} {refund}
    airline_cancel_reason: str
    economy: str
    business: str


EN = Texts(
    wifi_on="Wi-Fi has been turned on",
    device_logged_in="Device has been logged in",
    send_logged_out="Device not logged in, unable to send message",
    send_wifi_off="Wi-Fi is turned off, cannot send messages at this time",
    inbox_full="Inbox capacity is full. You need to ask the user which message to delete.",
    sender_or_receiver_unknown="Sender or receiver does not exist",
    message_sent="Message successfully sent to {receiver}.",
    delete_logged_out="Device not logged in, unable to delete message",
    message_id_unknown="Message ID does not exist",
    message_deleted="Message ID {id} has been successfully deleted.",
    view_logged_out="Device not logged in, unable to view message information",
    sender_unknown="Sender does not exist",
    receiver_unknown="Receiver does not exist",
    no_related_messages="No related message records found",
    user_unknown="User does not exist",
    no_keyword_messages="No messages found containing the keyword",
    times_logged_out=("Device not logged in, unable to retrieve all message times and their "
                      "corresponding message IDs."),
    latest_logged_out="Device not logged in, unable to retrieve the latest sent message ID.",
    earliest_logged_out="Device not logged in, unable to retrieve the earliest sent message ID.",
    no_messages="No message records found",
    latest_id="The latest message ID is {id}",
    earliest_id="The earliest message ID is {id}",
    reminder_view_logged_out="The device is not logged in, so you cannot view notifications",
    reminder_title_unknown="No reminder found with the title '{title}'.",
    reminder_add_logged_out="Device not logged in. Unable to add a new reminder.",
    reminders_full="Reminder capacity is full. Unable to add a new reminder.",
    reminder_added="Reminder '{title}' was successfully added.",
    reminder_delete_logged_out="Device not logged in. Unable to delete the specified reminder.",
    reminder_id_unknown="Reminder ID does not exist.",
    reminder_deleted="Reminder ID {id} was successfully deleted.",
    no_reminders="No reminders found.",
    reminder_notified="Reminder ID {id} has been marked as notified.",
    no_keyword_reminders="No reminders found containing the keyword.",
    food_wifi_off="Wi-Fi is not enabled, unable to login",
    food_user_unknown="User does not exist",
    wrong_password="Incorrect password",
    already_logged_in="{username} is already logged in",
    food_logged_in="User {username} has successfully logged in!",
    nobody_logged_in="No users are currently logged in to the food platform",
    balance_user_unknown="User {name} does not exist!",
    food_not_logged_in="User {username} is not logged in to the food platform",
    merchant_unknown="Merchant does not exist",
    invalid_quantity="Invalid quantity {quantity} for product {product}",
    product_unknown="Product {product} does not exist in {merchant}'s menu",
    insufficient_balance="Insufficient balance to place the order",
    order_placed="Food delivery order successfully placed with {merchant}. Total amount: {total} yuan",
    merchant_named_unknown="Merchant '{merchant}' does not exist",
    no_orders="User has no order records",
    no_matching_orders="No matching orders found",
    no_direct_flights="There are no direct flights that meet the criteria.",
    bad_credentials="Incorrect username or password.",
    need_reservation_or_user="Please provide a valid reservation ID or user ID",
    no_transfer_flights="No connecting flights that meet the criteria were found.",
    auth_failed="Authentication failed. Please check your user ID and password.",
    flight_unavailable="Flight {flight_no} does not exist or is not available for booking.",
    invalid_cabin="Invalid cabin class: {cabin}. Choose Economy Class or Business Class.",
    no_seats="No seats are available on flight {flight_no}.",
    invalid_payment="Invalid payment method",
    cash_insufficient="Your cash balance is insufficient. Please consider using another payment method.",
    bank_insufficient="Your bank balance is insufficient. Please consider using another payment method.",
    booked="Booking successful. Reservation ID: {id}. Total cost: {total} yuan (including baggage fees).",
    reservation_mismatch="Reservation not found or user ID does not match.",
    flight_info_missing="Flight information not found.",
    flight_changed="Flight number has been changed.",
    flight_change_failed="Flight change failed: Invalid new flight number or destination does not match.",
    cabin_paid="Cabin change successful. Price difference paid: {diff}.",
    cabin_unpaid="Insufficient balance to pay the cabin price difference.",
    cabin_refunded="Cabin change successful. Price difference refunded: {diff}.",
    baggage_paid="Baggage has been added. Additional fee to be paid: {fee}.",
    baggage_unpaid="Insufficient balance to pay the additional baggage fees.",
    no_extra_fees="Modification completed with no additional fees.",
    reservation_cancelled_already="Reservation {id} has already been cancelled.",
    invalid_user="Invalid user ID.",
    reservation_not_users="Invalid reservation ID or it does not belong to the user.",
    invalid_flight_info="Invalid flight information.",
    segment_used="The flight segment has been used and cannot be canceled.",
    airline_cancelled=("The flight has been canceled. Your reservation will be canceled free of charge, "
                       "and {refund} yuan has been refunded."),
    free_cancellation=("More than 24 hours before departure. Free cancellation successful, "
                       "{refund} yuan has been refunded."),
    late_cancellation=("Less than 24 hours before departure. A cancellation fee of {fee} yuan has been "
                       "deducted, and {refund} yuan has been refunded."),
    airline_cancel_reason="The airline has canceled the flight.",
    economy="Economy Class",
    business="Business Class",
)

ZH = Texts(
    wifi_on="wifi已经打开",
    device_logged_in="设备已经登录",
    send_logged_out="device未登录，无法发送短信",
    send_wifi_off="wifi关闭，此时不能发送信息",
    inbox_full="内存容量不够了，你需要询问user删除哪一条短信。",
    sender_or_receiver_unknown="发送者或接收者不存在",
    message_sent="短信成功发送给{receiver}。",
    delete_logged_out="device未登录，无法删除短信",
    message_id_unknown="短信ID不存在",
    message_deleted="短信ID {id} 已成功删除。",
    view_logged_out="device未登录，无法查看短信信息",
    sender_unknown="发送者不存在",
    receiver_unknown="接收者不存在",
    no_related_messages="没有找到相关的短信记录",
    user_unknown="用户不存在",
    no_keyword_messages="没有找到包含关键词的短信",
    times_logged_out="device未登录，获取所有短信的时间以及对应的短信编号。",
    latest_logged_out="device未登录，无法获取最新发送的短信ID。",
    earliest_logged_out="device未登录，无法获取最早发送的短信ID",
    no_messages="短信记录为空",
    latest_id="最新的短信ID是 {id}",
    earliest_id="最早的短信ID是 {id}",
    reminder_view_logged_out="device未登录，无法查看提醒",
    reminder_title_unknown="没有找到标题为 '{title}' 的提醒",
    reminder_add_logged_out="device未登录，无法添加一个新的提醒",
    reminders_full="提醒容量已满，无法添加新的提醒",
    reminder_added="提醒 '{title}' 已成功添加",
    reminder_delete_logged_out="device未登录，无法删除指定的提醒",
    reminder_id_unknown="提醒ID不存在",
    reminder_deleted="提醒ID {id} 已成功删除",
    no_reminders="没有任何提醒",
    reminder_notified="提醒ID {id} 已标记为已通知",
    no_keyword_reminders="没有找到包含该关键词的提醒",
    food_wifi_off="wifi未打开，无法登录",
    food_user_unknown="用户不存在",
    wrong_password="密码错误",
    already_logged_in="{username} 已经登录",
    food_logged_in="用户{username}登陆成功！",
    nobody_logged_in="当前没有登录food platform",
    balance_user_unknown="用户 {name} 不存在!",
    food_not_logged_in="用户 {username} 未登录food platform",
    merchant_unknown="商家不存在",
    invalid_quantity="无效的数量 {quantity} 对于商品 {product}",
    product_unknown="商品 {product} 不存在于 {merchant} 的菜单中",
    insufficient_balance="余额不足，无法下单",
    order_placed="外卖订单成功下单给 {merchant}，总金额为 {total} 元",
    merchant_named_unknown="商家 '{merchant}' 不存在",
    no_orders="用户没有订单记录",
    no_matching_orders="没有找到匹配的订单",
    no_direct_flights="没有符合条件的直达航班",
    bad_credentials="用户名或密码不正确",
    need_reservation_or_user="请提供有效的预订ID或用户ID",
    no_transfer_flights="未找到符合条件的中转航班。",
    auth_failed="认证失败，请检查用户ID和密码。",
    flight_unavailable="航班 {flight_no} 不存在或不可预订。",
    invalid_cabin="无效的舱位：{cabin}。请选择经济舱或商务舱。",
    no_seats="航班 {flight_no} 已无余座。",
    invalid_payment="支付方式无效",
    cash_insufficient="cash余额不足，请考虑换一种支付方式",
    bank_insufficient="bank余额不足，请考虑换一种支付方式",
    booked="预订成功，预订号：{id}，总费用：{total}元（包含行李费用）。",
    reservation_mismatch="预订未找到或用户ID不匹配。",
    flight_info_missing="航班信息未找到。",
    flight_changed="航班号已更改。",
    flight_change_failed="航班更改失败：新的航班号无效或目的地不匹配。",
    cabin_paid="舱位更改成功。已支付差价: {diff}。",
    cabin_unpaid="余额不足，无法支付舱位差价。",
    cabin_refunded="舱位更改成功。已退款差价: {diff}。",
    baggage_paid="行李已增加。需支付额外费用: {fee}。",
    baggage_unpaid="余额不足，无法支付额外行李费用。",
    no_extra_fees="修改完成，无需额外费用。",
    reservation_cancelled_already="预订 {id} 已取消。",
    invalid_user="用户ID无效。",
    reservation_not_users="预订ID无效或与该用户无关。",
    invalid_flight_info="航班信息无效。",
    segment_used="航段已使用，无法取消。",
    airline_cancelled="航班已取消，您的预订将被免费取消，已退款{refund}元。",
    free_cancellation="距离出发时间超过24小时，免费取消成功，已退款{refund}元。",
    late_cancellation="距离出发时间不足24小时，已扣除取消费{fee}元，退款{refund}元。",
    airline_cancel_reason="航空公司取消航班",
    economy="经济舱",
    business="商务舱",
)


def texts_for(lang: str) -> Texts:
    if lang == "en":
        return EN
    if lang == "zh":
        return ZH
    raise ValueError(f"unknown language {lang!r}; use 'en' or 'zh'")
