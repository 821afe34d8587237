"""The level-3 APIs (`lv3_apis/`): self-contained services with their own small tables.

They live in a separate world (`apibank_world(level=3)`), because AddMeeting, QueryMeeting,
Calculator and ToolSearcher exist in both sets with different definitions. The tables
are the reference's; its stateful bugs are fixed (docs/compatibility.md).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Mapping
from typing import Annotated, Any, NotRequired, cast

from typing_extensions import TypedDict

from sandbox import App, Ref, StateModel

from .api_common import FROM_LITERAL, TIME_FORMAT, ApiError, LiteralStrList, api, strict_time
from .calculator import calculate
from .toolsearch import ApiRecord, Bm25Ranker, ToolRanker, search_tools


# What the services answer (the reference's `lv3_apis/` outputs).
class AccountDetails(TypedDict):
    email: str
    phone: str
    address: NotRequired[str]  # once PersonalInfoUpdate has set it


class Status(TypedDict):
    status: str


class Level3Meeting(TypedDict):
    meeting_id: int
    meeting_name: str
    meeting_time: str
    meeting_location: str
    meeting_attendees: list[str]


class Meetings(TypedDict):
    meetings: list[Level3Meeting]


class ClothingOptions(TypedDict):
    clothing_options: list[str]


class Flight(TypedDict):
    source: str
    destination: str
    departure_date: str
    arrival_date: str


class Flights(TypedDict):
    flights: list[Flight]


class Coordinates(TypedDict):
    latitude: float
    longitude: float


class Salary(TypedDict):
    salary: int


class Weather(TypedDict):
    temperature: float
    humidity: float
    description: str


class Hotel(TypedDict):
    destination: str
    check_in_date: str
    check_out_date: str


class Hotels(TypedDict):
    hotels: list[Hotel]


class LikeCount(TypedDict):
    like_count: int


class MovieList(TypedDict):
    recommended_movies: list[str]


class Restaurant(TypedDict):
    coordinates: list[float]
    name: str


class Restaurants(TypedDict):
    restaurants: list[Restaurant]


class Members(TypedDict):
    members: list[str]


class AfterTax(TypedDict):
    salary_after_tax: float


class PostIds(TypedDict):
    post_ids: list[int]


class Preferences(TypedDict):
    preferences: list[str]


def _people() -> dict[str, Any]:
    return {name: {"password": password, "email": f"{name.lower()}@example.com", "phone": phone}
            for name, password, phone in (("John", "123456", "1234567890"), ("Mary", "abcdef", "0987654321"),
                                          ("Peter", "qwerty", "1231231234"), ("Tom", "asdfgh", "4564564567"),
                                          ("Jerry", "zxcvbn", "7897897890"))}


def _meetings() -> dict[str, Any]:
    client = {"meeting_id": 1, "meeting_name": "Meeting with the client", "meeting_time": "2021-01-01 10:00:00",
              "meeting_location": "Room 1", "meeting_attendees": ["John", "Mary", "Peter"]}
    project = {"meeting_id": 2, "meeting_name": "Meeting about the new project",
               "meeting_time": "2021-01-02 10:00:00", "meeting_location": "Room 2",
               "meeting_attendees": ["John", "Mary", "Peter"]}
    small = {"meeting_id": 1, "meeting_name": "Meeting", "meeting_time": "2021-01-01 10:00:00",
             "meeting_location": "Room 1", "meeting_attendees": ["Tom", "Jerry"]}
    return {"John": [client, project], "Mary": [client, project], "Peter": [client, project], "Tom": [small],
            "Jerry": [small]}


class Level3State(StateModel):
    accounts: dict[str, Any] = _people()
    meetings_added: list[Any] = []
    meetings: dict[str, Any] = _meetings()
    flights: list[Any] = [
        {"source": s, "destination": d, "departure_date": f"2022-01-0{day} 12:00:00",
         "arrival_date": f"2022-01-0{day} 15:00:00"}
        for day, (s, d) in enumerate((("New York", "San Francisco"), ("Los Angeles", "San Francisco"),
                                      ("London", "San Francisco"), ("New York", "London"),
                                      ("New York", "Los Angeles")), start=1)
    ]
    hotels: dict[str, Any] = {f"hotel_{n}": {"destination": "San Francisco", "check_in_date": f"2022-01-0{n}",
                                             "check_out_date": f"2022-01-0{n + 1}"} for n in range(1, 6)}
    places: dict[str, Any] = {"New York City": [40.7128, 74.0060], "San Francisco": [37.7749, 122.4194],
                              "London": [51.5074, 0.1278], "Paris": [48.8566, 2.3522], "Tokyo": [35.6762, 139.6503]}
    weather: list[Any] = [
        {"at": [40.7128, 74.0060], "temperature": 10, "humidity": 0.5, "description": "Clear"},
        {"at": [37.7749, 122.4194], "temperature": 20, "humidity": 0.8, "description": "Cloudy"},
        {"at": [51.5074, 0.1278], "temperature": 5, "humidity": 0.9, "description": "Rainy"},
        {"at": [48.8566, 2.3522], "temperature": 15, "humidity": 0.7, "description": "Sunny"},
        {"at": [35.6762, 139.6503], "temperature": 25, "humidity": 0.6, "description": "Rainy"},
    ]
    salaries: dict[str, int] = {"Financial Analyst": 100000, "Software Engineer": 120000, "Data Scientist": 150000,
                                "Product Manager": 130000, "Doctor": 200000}
    likes: dict[str, int] = {str(n): 10 * n for n in range(1, 16)}
    posts: dict[str, Any] = {str(n): [3 * n - 2, 3 * n - 1, 3 * n] for n in range(1, 6)}
    genres: dict[str, Any] = {
        "Action": ["The Dark Knight", "The Matrix", "The Lord of the Rings"],
        "Comedy": ["The Hangover", "Knives Out", "Deadpool"],
        "Drama": ["The Shawshank Redemption", "Forrest Gump", "Joker"],
        "Romance": ["Titanic", "La La Land", "The Notebook"],
        "Thriller": ["Inception", "Parasite", "Get Out"],
    }
    restaurants: list[Any] = [{"coordinates": [40.7128, 74.0060], "name": "Restaurant A"},
                              {"coordinates": [37.7749, 122.4194], "name": "Restaurant B"},
                              {"coordinates": [40.7128, 74.0060], "name": "Restaurant C"},
                              {"coordinates": [37.7749, 122.4194], "name": "Restaurant D"}]
    organizations: dict[str, Any] = {"Alibaba": ["John", "Mary", "Peter"], "Tencent": ["Tom", "Jerry"],
                                     "Baidu": ["Jack", "Rose"], "ByteDance": ["Bob", "Alice"], "JD": ["Mike", "Jane"]}
    statuses: dict[str, str] = {"John": "Traveling", "Mary": "Working from home", "Peter": "Working from office",
                                "Tom": "Traveling", "Jerry": "Working from home", "Jack": "Working from office",
                                "Rose": "Working from office", "Bob": "Traveling", "Alice": "Working from home",
                                "Mike": "Working from office", "Jane": "Working from office"}
    watched: dict[str, Any] = {name: ["The Matrix", "The Lord of the Rings", "The Dark Knight"]
                               for name in ("John", "Mary", "Peter", "Tom", "Jerry")}
    preferences: dict[str, Any] = {"John": ["Action", "Comedy", "Drama"], "Mary": ["Comedy", "Drama", "Romance"],
                                   "Peter": ["Action", "Drama", "Thriller"], "Tom": ["Action", "Comedy", "Drama"],
                                   "Jerry": ["Comedy", "Drama", "Romance"]}


def _lookup(table: dict[str, Any], key: str) -> Any:
    """The reference answers an unknown key with the key's repr as its exception text."""
    if key not in table:
        raise ApiError(repr(key))
    return table[key]


def _id_key(number: int) -> str:
    """The table key of an integer id.

    Python refuses to write out an integer of more than `sys.get_int_max_str_digits()`
    digits; no id is that long, so such an id is refused rather than crashing the lookup.
    """
    try:
        return str(number)
    except ValueError:
        raise ApiError(f"The id has more than {sys.get_int_max_str_digits()} digits; no such id exists.") from None


# What the services' parameters name in their tables: an account and its password, a
# meeting time (written as the APIs expect it), flights' cities and days, places, hotels,
# coordinates of the weather table, posts, genres, organizations and members.
Level3User = Annotated[str, Ref("Level3", "accounts")]
Level3Password = Annotated[str, Ref("Level3", "accounts.{username}.password")]
MeetingTime = Annotated[str, Ref("Level3", "meetings.*", "meeting_time")]
Member = Annotated[str, Ref("Level3", "meetings")]
Genres = Annotated[list[Annotated[Any, Ref("Level3", "genres")]], FROM_LITERAL]


class Level3(App[Level3State]):
    """The level-3 services."""

    app_name = "Level3"

    def __init__(self, state: Level3State | Mapping[str, Any] | None = None, *, name: str | None = None,
                 ranker: ToolRanker | None = None) -> None:
        super().__init__(state, name=name)
        if ranker is None:
            ranker = Bm25Ranker()
            ranker.prepare(3)
        self.ranker: ToolRanker = ranker

    def _user(self, username: str, password: str) -> dict[str, Any]:
        record = self.state.accounts.get(username)
        if record is None or record.get("password") != password:
            raise ApiError("User not found.")
        return record

    @api("AccountInfo", level=3, mutates=False)
    def account_info(self, username: Level3User, password: Level3Password) -> AccountDetails:
        record = self._user(username, password)
        return cast(AccountDetails, {key: value for key, value in record.items() if key != "password"})

    @api("PersonalInfoUpdate", level=3, idempotent=True)
    def personal_info_update(self, username: Level3User, password: Level3Password, address: str) -> Status:
        self._user(username, password)["address"] = address
        return {"status": "success"}

    @api("AddMeeting", level=3, destructive=False)
    def add_meeting(self, meeting_topic: str, start_time: MeetingTime, end_time: MeetingTime, location: str,
                    attendees: LiteralStrList) -> str:
        strict_time(start_time)
        strict_time(end_time)
        if meeting_topic.strip() == "":
            raise ApiError("Meeting Topic should not be null")
        self.state.meetings_added.append({"meeting_topic": meeting_topic, "start_time": start_time,
                                          "end_time": end_time, "location": location, "attendees": attendees})
        return "success"

    @api("QueryMeeting", level=3, mutates=False)
    def query_meeting(self, user_name: Member) -> Meetings:
        return {"meetings": _lookup(self.state.meetings, user_name)}

    @api("Calculator", level=3, mutates=False)
    def calculator(self, formula: str) -> float:
        return calculate(formula)

    @api("ToolSearcher", level=3, mutates=False)
    def tool_searcher(self, keywords: str) -> ApiRecord | list[ApiRecord]:
        return search_tools(keywords, 3, self.ranker)

    @api("ClothingRecommendation", level=3, mutates=False)
    def clothing_recommendation(self, temperature: float, humidity: float, weather_conditions: str) -> ClothingOptions:
        options: list[str] = []
        if temperature < 10:
            options += ["Warm coat", "Hat", "Gloves"]
        elif temperature < 20:
            options += ["Light jacket", "Long-sleeved shirt"]
        elif temperature < 30:
            options += ["T-shirt", "Shorts"]
        else:
            options += ["Sun hat", "Sunglasses", "Loose-fitting clothes"]
        if humidity > 70:
            options += ["Umbrella", "Waterproof shoes"]
        if "rain" in weather_conditions.lower():
            options.append("Raincoat")
        return {"clothing_options": options}

    @api("EmailReminder", level=3, mutates=False)
    def email_reminder(self, content: str, time: MeetingTime, location: str, recipient: str) -> str:
        strict_time(time, TIME_FORMAT)
        if content.strip() == "":
            raise ApiError("Content should not be empty")
        return "success"

    @api("FlightSearch", level=3, mutates=False)
    def flight_search(
        self, source: Annotated[str, Ref("Level3", "flights", "source")],
        destination: Annotated[str, Ref("Level3", "flights", "destination", where={"source": "{source}"})],
        travel_dates: Annotated[str, Ref("Level3", "flights", "departure_date", extract=r"^\d{4}-\d{2}-\d{2}")],
    ) -> Flights:
        day = strict_time(travel_dates, "%Y-%m-%d")
        flights = [flight for flight in self.state.flights if flight["source"] == source
                   and flight["destination"] == destination and flight["departure_date"][:10] == day]
        return {"flights": flights}

    @api("Geocoding", level=3, mutates=False)
    def geocoding(self, address: Annotated[str, Ref("Level3", "places")]) -> Coordinates:
        latitude, longitude = _lookup(self.state.places, address)
        return {"latitude": latitude, "longitude": longitude}

    @api("GetOccupationSalary", level=3, mutates=False)
    def get_occupation_salary(self, occupation: Annotated[str, Ref("Level3", "salaries")]) -> Salary:
        if occupation not in self.state.salaries:
            raise ApiError("The occupation is not in the database.")
        return {"salary": self.state.salaries[occupation]}

    @api("GetWeatherForCoordinates", level=3, mutates=False)
    def get_weather_for_coordinates(
        self, latitude: Annotated[float, Ref("Level3", "weather", "at.0")],
        longitude: Annotated[float, Ref("Level3", "weather", "at.1", where={"at.0": "{latitude}"})],
    ) -> Weather:
        for entry in self.state.weather:
            if entry["at"] == [latitude, longitude]:
                return {"temperature": entry["temperature"], "humidity": entry["humidity"],
                        "description": entry["description"]}
        raise ApiError("No weather data for these coordinates.")

    @api("HotelAvailability", level=3, mutates=False)
    def hotel_availability(
        self, destination: Annotated[str, Ref("Level3", "hotels", "destination")],
        check_in_date: Annotated[str, Ref("Level3", "hotels", "check_in_date")],
        check_out_date: Annotated[str, Ref("Level3", "hotels", "check_out_date")],
    ) -> Hotels:
        start = dt.datetime.strptime(strict_time(check_in_date, "%Y-%m-%d"), "%Y-%m-%d")
        end = dt.datetime.strptime(strict_time(check_out_date, "%Y-%m-%d"), "%Y-%m-%d")
        hotels = [hotel for hotel in self.state.hotels.values() if hotel["destination"] == destination
                  and start >= dt.datetime.strptime(hotel["check_in_date"], "%Y-%m-%d")
                  and end <= dt.datetime.strptime(hotel["check_out_date"], "%Y-%m-%d")]
        return {"hotels": hotels}

    @api("LikeCount", level=3, mutates=False)
    def like_count(self, post_id: Annotated[int, Ref("Level3", "likes")]) -> LikeCount:
        key = _id_key(post_id)
        if key not in self.state.likes:
            raise ApiError(f"Post with ID {key} does not exist.")
        return {"like_count": self.state.likes[key]}

    @api("MovieRecommendations", level=3, mutates=False)
    def movie_recommendations(self, preferences: Genres) -> MovieList:
        # The catalogue declares a bare `list`; only genre names (strings) can name a genre.
        if not all(isinstance(genre, str) for genre in preferences):
            raise ApiError("Each preference must be a genre name (a string).")
        return {"recommended_movies": [movie for genre in preferences for movie in _lookup(self.state.genres,
                                                                                             genre)]}

    @api("NearbyRestaurants", level=3, mutates=False)
    def nearby_restaurants(self, latitude: float, longitude: float, distance: int) -> Restaurants:
        # As in the reference: every restaurant, whatever the position and distance.
        return {"restaurants": self.state.restaurants}

    @api("OrganizationMembers", level=3, mutates=False)
    def organization_members(self, organization: Annotated[str, Ref("Level3", "organizations")]) -> Members:
        return {"members": _lookup(self.state.organizations, organization)}

    @api("TaxCalculator", level=3, mutates=False)
    def tax_calculator(self, salary: float) -> AfterTax:
        if salary < 0:
            raise ApiError("The salary cannot be negative.")
        # The reference's brackets (the rate of the highest threshold reached), with its
        # 40% bracket, unreachable there, applied above 5000 as its table intends.
        if salary > 5000:
            rate = 0.4
        elif salary >= 5000:
            rate = 0.3
        elif salary >= 3000:
            rate = 0.2
        elif salary >= 1000:
            rate = 0.1
        else:
            rate = 0.0
        return {"salary_after_tax": salary - salary * rate}

    @api("TravelStatus", level=3, mutates=False)
    def travel_status(self, member_name: Annotated[str, Ref("Level3", "statuses")]) -> str:
        return _lookup(self.state.statuses, member_name)

    @api("UserPosts", level=3, mutates=False)
    def user_posts(self, user_id: Annotated[int, Ref("Level3", "posts")]) -> PostIds:
        return {"post_ids": _lookup(self.state.posts, _id_key(user_id))}

    @api("UserWatchedMovies", level=3, mutates=False)
    def user_watched_movies(self, user_name: Annotated[str, Ref("Level3", "watched")]) -> list[str]:
        if user_name not in self.state.watched:
            raise ApiError("User not found.")
        return self.state.watched[user_name]

    @api("UserMoviePreferences", level=3, mutates=False)
    def user_movie_preferences(self, user_name: Annotated[str, Ref("Level3", "preferences")]) -> Preferences:
        return {"preferences": _lookup(self.state.preferences, user_name)}
