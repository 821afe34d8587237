"""The reference worlds' default data, per language.

Functions, not module constants: every world gets a fresh structure of its own.
zh translates merchants, products, cities, cabins, two inbox messages and one reminder;
everything else (ids, prices, dates, balances) is identical.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

_CITIES_ZH = MappingProxyType({"Beijing": "北京", "Shanghai": "上海", "Nanjing": "南京", "Shenzhen": "深圳",
              "Xiamen": "厦门", "Chengdu": "成都", "Fuzhou": "福州"})


def _city(name: str, lang: str) -> str:
    return _CITIES_ZH[name] if lang == "zh" else name


def message_state(lang: str) -> dict[str, Any]:
    users = [("Eve", "USR100", "123-456-7890", "Software Engineer"),
             ("Frank", "USR101", "234-567-8901", "Data Scientist"),
             ("Grace", "USR102", "345-678-9012", "Product Manager"),
             ("Helen", "USR103", "456-789-0123", "UX Designer"),
             ("Isaac", "USR104", "567-890-1234", "DevOps Engineer"),
             ("Jack", "USR105", "678-901-2345", "Marketing Specialist")]
    if lang == "zh":
        second = "你能帮我点一个\"玛格丽特披萨\"的外卖吗,商家是达美乐。"
        third = "帮我查一些喜茶有哪些奶茶外卖，买一杯便宜些的奶茶。买完以后记得回复我,回复的内容是（已经买好了）"
    else:
        second = "Can you help me order a \"Margherita Pizza\" delivery? The merchant is Domino's."
        third = ("Please check the milk tea delivery options available from Heytea and purchase a cheaper "
                 "milk tea for me. After making the purchase, remember to reply to me with \"Already bought.\"")
    inbox = [
        ("USR100", "USR101",
         "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1.", "2024-06-09"),
        ("USR101", "USR102", second, "2024-03-09"),
        ("USR102", "USR103", third, "2023-12-05"),
        ("USR103", "USR102", "No problem Helen, I can assist you.", "2024-09-09"),
        ("USR104", "USR105", "Isaac, are you available for a call?", "2024-06-06"),
        ("USR105", "USR104", "Yes Jack, let's do it in 30 minutes.", "2024-01-15"),
    ]
    return {
        "max_capacity": 6,
        "message_id_counter": 6,
        "user_list": {name: {"user_id": uid, "phone_number": phone, "occupation": job}
                      for name, uid, phone, job in users},
        "inbox": {i: {"sender_id": s, "receiver_id": r, "message": m, "time": t}
                  for i, (s, r, m, t) in enumerate(inbox, start=1)},
    }


def reminder_state(lang: str) -> dict[str, Any]:
    if lang == "zh":
        todo = ("首先帮Frank在\"盒马生鲜\"点外卖，需要定两个\"生鲜大礼包\"，"
                "再发短信告诉Frank：\"购买商品的价格是()元\"。"
                "要把括号换成实际金额，保留一位小数。")
    else:
        todo = ("First, help Frank place a food delivery order at \"Hema Fresh,\" ordering two \"Fresh Gift "
                "Packs.\" Then, send a message to Frank saying, \"The price of the purchased goods is () yuan.\" "
                "Replace the parentheses with the actual amount, keeping one decimal place.")
    reminders = [
        (1001, "Doctor's Appointment", "Visit Dr. Smith for a checkup.", "2024-07-15 09:30"),
        (1002, "Team Meeting", "Monthly project review with the team.", "2024-07-17 11:00"),
        (1003, "To-do list", todo, "2024-07-16 11:00"),
    ]
    return {
        "max_capacity": 6,
        "reminder_list": {key: {"reminder_id": rid, "title": title, "description": desc, "time": time,
                                "notified": False}
                          for key, (rid, title, desc, time) in enumerate(reminders, start=1)},
        "reminder_id_counter": 3,
    }


def food_state(lang: str) -> dict[str, Any]:
    users = [("Eve", "U100", "password123", 500.0), ("Frank", "U101", "password456", 300.0),
             ("Grace", "U102", "password789", 150.0), ("Helen", "U103", "password321", 800.0),
             ("Isaac", "U104", "password654", 400.0), ("Jack", "U105", "password654", 120.0)]
    en = [("Domino's", "M100", "Pizza", ("Margherita Pizza", 68.0), ("Super Supreme Pizza", 88.0)),
          ("Rice Village Bibimbap", "M101", "Bibimbap", ("Stone Pot Bibimbap", 35.0),
           ("Korean Beef Bibimbap", 45.0)),
          ("Haidilao", "M102", "Hotpot", ("Beef Rolls", 68.0), ("Seafood Platter", 88.0)),
          ("Heytea", "M103", "Milk Tea", ("Cheese Milk Tea", 25.0), ("Four Seasons Spring Milk Tea", 22.0)),
          ("Hema Fresh", "M104", "Fresh Grocery", ("Organic Vegetable Pack", 15.0), ("Fresh Gift Pack", 99.0)),
          ("Jiutian BBQ", "M105", "BBQ", ("Korean Grilled Beef", 128.0), ("Grilled Pork Belly", 78.0))]
    zh = [("达美乐", ("玛格丽特披萨", "超级至尊披萨")), ("米村拌饭", ("石锅拌饭", "韩式牛肉拌饭")),
          ("海底捞", ("牛肉卷", "海鲜拼盘")), ("喜茶", ("芝士奶茶", "四季春奶茶")),
          ("盒马生鲜", ("有机蔬菜包", "生鲜大礼包")), ("九田家烤肉", ("韩式烤牛肉", "烤五花肉"))]
    merchants: dict[str, Any] = {}
    for index, (name, mid, kind, first, second) in enumerate(en):
        products = (first[0], second[0])
        if lang == "zh":
            name, products = zh[index]
        merchants[name] = {"merchant_id": mid, "service_type": kind,
                           "menu": [{"product": products[0], "price": first[1]},
                                    {"product": products[1], "price": second[1]}]}
    return {
        "users": {name: {"user_id": uid, "password": pw, "balance": bal} for name, uid, pw, bal in users},
        "merchant_list": merchants,
        "logged_in_users": [],
        "orders": [],
    }


def travel_state(lang: str, economy: str, business: str) -> dict[str, Any]:
    flights = [
        ("CA1234", "Beijing", "Shanghai", "2024-07-15 08:00:00", "2024-07-15 10:30:00", 5, 1200, 3000),
        ("MU5678", "Shanghai", "Beijing", "2024-07-16 09:00:00", "2024-07-16 11:30:00", 3, 1900, 3000),
        ("CZ4321", "Shanghai", "Beijing", "2024-07-16 20:00:00", "2024-07-16 22:00:00", 8, 2500, 4000),
        ("CZ4352", "Shanghai", "Beijing", "2024-07-17 20:00:00", "2024-07-17 22:00:00", 8, 1600, 2500),
        ("MU3561", "Beijing", "Nanjing", "2024-07-18 08:00:00", "2024-07-18 10:00:00", 8, 1500, 4000),
        ("MU1566", "Beijing", "Nanjing", "2024-07-18 20:00:00", "2024-07-18 22:00:00", 8, 1500, 4000),
        ("CZ1765", "Nanjing", "Shenzhen", "2024-07-17 20:30:00", "2024-07-17 22:00:00", 8, 1500, 2500),
        ("CZ1765", "Nanjing", "Shenzhen", "2024-07-18 12:30:00", "2024-07-18 15:00:00", 8, 1500, 2500),
        ("MH1765", "Xiamen", "Chengdu", "2024-07-17 12:30:00", "2024-07-17 15:00:00", 8, 1500, 2500),
        ("MH2616", "Chengdu", "Xiamen", "2024-07-18 18:30:00", "2024-07-18 21:00:00", 8, 1500, 2500),
        ("MH2616", "Chengdu", "Fuzhou", "2024-07-16 18:30:00", "2024-07-16 21:00:00", 8, 1500, 2500),
    ]
    reservations = [
        ("res_1", "user1", "CA1234", economy, "Beijing", "Shanghai"),
        ("res_2", "user1", "MU5678", business, "Shanghai", "Beijing"),
        ("res_3", "user2", "MH1765", business, "Xiamen", "Chengdu"),
        # MU2616 is not a flight (the schedule has MH2616): a defect of the reference data, kept.
        ("res_4", "user2", "MU2616", business, "Chengdu", "Xiamen"),
    ]
    return {
        "users": {
            "user1": {"user_name": "Eve", "password": "password123", "cash_balance": 2000.0,
                      "bank_balance": 50000.0, "membership_level": "regular"},
            "user2": {"user_name": "Frank", "password": "password456", "cash_balance": 8000.0,
                      "bank_balance": 8000.0, "membership_level": "silver"},
            "user3": {"user_name": "Grace", "password": "password789", "cash_balance": 1000.0,
                      "bank_balance": 5000.0, "membership_level": "gold"},
        },
        "flights": [
            {"flight_no": no, "origin": _city(o, lang), "destination": _city(d, lang), "depart_time": dep,
             "arrival_time": arr, "status": "available", "seats_available": seats, "economy_price": eco,
             "business_price": bus}
            for no, o, d, dep, arr, seats, eco, bus in flights
        ],
        "reservations": [
            {"reservation_id": rid, "user_id": uid, "flight_no": no, "payment_method": "bank", "cabin": cabin,
             "baggage": 1, "origin": _city(o, lang), "destination": _city(d, lang)}
            for rid, uid, no, cabin, o, d in reservations
        ],
        "reservation_status": {rid: "booked" for rid, *_ in reservations},
        "fares_paid": {rid: _fare(flights, no, cabin == business) for rid, _, no, cabin, _, _ in reservations},
    }


def _fare(flights: list[tuple], flight_no: str, business: bool) -> int:
    """What an initial reservation paid: its flight's fare (0 for res_4, whose flight does not exist)."""
    for number, *_, economy, business_price in flights:
        if number == flight_no:
            return business_price if business else economy
    return 0
