"""Resolve a place name: coordinates, then the offline gazetteer, then Open-Meteo geocoding for the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from weather_mcp_server.errors import (
    AmbiguousPlace,
    InvalidArgument,
    UnknownPlace,
    UpstreamUnreachable,
    WeatherToolError,
)
from weather_mcp_server.models import Location
from weather_mcp_server.places.gazetteer import Gazetteer
from weather_mcp_server.places.index_build import MIN_POPULATION
from weather_mcp_server.places.names import (
    Candidate,
    choice_labels,
    choose,
    distance_km,
    fictional,
    has_cjk,
    off_earth,
    parse_coordinates,
    renowned,
    split_qualifier,
)
from weather_mcp_server.sources.open_meteo import OpenMeteoClient
from weather_mcp_server.sources.provider import WeatherProvider
from weather_mcp_server.wording.language import pick

MAX_QUERY_LENGTH = 120
# A name compared with others is the place of it this close to one of them (resolve_among): a day's drive; where
# the others' names are as ambiguous, a short one (Hastings and Weymouth, England: 190 km).
NEAR_OTHERS_KM = 1500.0
NEAR_AMBIGUOUS_KM = 400.0
# A smaller namesake beside the others is the place meant when it has at least this share of the far one's people.
NAMESAKE_SIZE_RATIO = 10
# The place the user picked in this call, by the name they chose between (see use_place_choice).
_choices: ContextVar[dict[str, str]] = ContextVar("place_choices", default={})
# What this call has settled of a name already (its place, or why it has none): a tool settles it before its body
# runs, to ask about an ambiguous one, and the body must not look it up again (an upstream outage twice over).
_settled: ContextVar[dict[str, Location | WeatherToolError]] = ContextVar("settled_places", default={})


# A client's record of the arguments of its earlier calls to this server in the conversation (latest first).
EARLIER_META_KEY = "earlier_arguments"


def places_asked_before(meta: Mapping[str, Any] | None) -> list[str]:
    """The places of the calls the client says it made before in the conversation (`_meta.earlier_arguments`:
    their arguments, latest first): each `city`, and each of `cities`."""
    earlier = meta.get(EARLIER_META_KEY) if meta else None
    places: list[str] = []
    for arguments in earlier if isinstance(earlier, list) else []:
        if isinstance(arguments, dict):
            cities = arguments.get("cities")
            places += [value for value in [arguments.get("city"), *(cities if isinstance(cities, list) else [])]
                       if isinstance(value, str) and value.strip()]
    return places


def use_place_choice(query: str, label: str | None) -> None:
    """For the rest of this call, an ambiguous `query` means the candidate the user picked by its choice label
    (names.choice_labels), as an elicitation answered; None: nothing was picked."""
    _choices.set({query.strip(): label} if label else {})


def _closest(ambiguous: AmbiguousPlace, others: list[tuple[float, float]], near_km: float) -> Candidate | None:
    """The candidate closest to the others, when within `near_km` and a third as far as the next one."""
    if not others:
        return None
    distances = sorted((min(distance_km(c.latitude, c.longitude, *other) for other in others), i)
                       for i, c in enumerate(ambiguous.candidates))
    if len(distances) < 2 or distances[0][0] > near_km or distances[1][0] < 3 * distances[0][0]:
        return None
    return ambiguous.candidates[distances[0][1]]


class PlaceResolver:
    """The one entry point tools use to turn user text into a Location."""

    def __init__(self, gazetteer: Gazetteer, client: OpenMeteoClient, provider: WeatherProvider) -> None:
        self._gazetteer = gazetteer
        self._client = client
        self._provider = provider

    async def resolve(self, query: str, by_renown: bool = True) -> Location:
        """A Location, or UnknownPlace / AmbiguousPlace naming the candidates (unless the user picked one, or,
        `by_renown`, one is far better known than the others)."""
        query = query.strip()
        outcome = _settled.get().get(query) or await self._outcome(query, by_renown)
        if isinstance(outcome, AmbiguousPlace):
            chosen = choice_labels(outcome.candidates).get(_choices.get().get(query, ""))
            if chosen is not None:
                return self._gazetteer.to_location(chosen, query)
        if isinstance(outcome, WeatherToolError):
            raise outcome
        return outcome

    async def resolve_among(self, queries: list[str]) -> list[Location]:
        """The places of names asked together (a comparison): a name several places have is the one of them
        closest to the others, when it is clearly closest ("Hastings or Weymouth": England's Hastings, not New
        Zealand's; "Armidale vs Tamworth": New South Wales's), else the far better known of them; AmbiguousPlace
        when none is. A name one place has far more people of is that one, unless it is far from the others and a
        namesake is beside them (_namesake_near)."""
        outcomes: list[Location | WeatherToolError] = []
        for query in queries:
            try:
                outcomes.append(await self.resolve(query, by_renown=False))
            except AmbiguousPlace as error:
                outcomes.append(error)
        while any(isinstance(outcome, AmbiguousPlace) for outcome in outcomes):
            settled = False
            for index, (query, outcome) in enumerate(zip(queries, outcomes)):
                if not isinstance(outcome, AmbiguousPlace):
                    continue
                # the others' places; where none is settled yet, every place each other name may be
                known = [(o.latitude, o.longitude) for o in outcomes if isinstance(o, Location)]
                others = known or [(c.latitude, c.longitude) for i, o in enumerate(outcomes) if i != index
                                   and isinstance(o, AmbiguousPlace) for c in o.candidates]
                chosen = _closest(outcome, others, NEAR_OTHERS_KM if known else NEAR_AMBIGUOUS_KM)
                if chosen is not None:
                    outcomes[index] = self._gazetteer.to_location(chosen, query)
                    settled = True
            for index, (query, outcome) in enumerate(zip(queries, outcomes)):
                known = renowned(outcome.candidates) if not settled and isinstance(outcome, AmbiguousPlace) else None
                if known is not None:  # near none of the others
                    outcomes[index] = self._gazetteer.to_location(known, query)
                    settled = True
            if not settled:
                raise next(outcome for outcome in outcomes if isinstance(outcome, AmbiguousPlace))
        places = [outcome for outcome in outcomes if isinstance(outcome, Location)]
        return [self._namesake_near(query, place, [p for p in places if p is not place])
                for query, place in zip(queries, places)]

    def _namesake_near(self, query: str, place: Location, others: list[Location]) -> Location:
        """`place`, or a smaller place of its name beside the others when it is far from all of them: compared
        with Seville, "Córdoba" is Spain's (325,000 people, 120 km), not Argentina's (1.4 million, 9,800 km). Only
        for a namesake of a tenth of its size or more: compared with Atlanta, Rome is still Italy's; but of any size
        where the name is the namesake's own and only another name of the place ("Garden City" beside Dodge City is
        Kansas's, not Singapore, whose byname it is)."""
        coordinates = [(other.latitude, other.longitude) for other in others]
        if not coordinates or min(distance_km(place.latitude, place.longitude, *c) for c in coordinates) \
                <= NEAR_OTHERS_KM:
            return place
        candidates = self._gazetteer.candidates(query, every_town=True)
        chosen = [c for c in candidates if distance_km(c.latitude, c.longitude, place.latitude, place.longitude) < 1.0]
        near = [c for c in candidates
                if min(distance_km(c.latitude, c.longitude, *other) for other in coordinates) <= NEAR_AMBIGUOUS_KM
                and chosen and (c.population * NAMESAKE_SIZE_RATIO >= chosen[0].population
                                or c.exact and not chosen[0].exact)]
        return self._gazetteer.to_location(max(near, key=lambda c: c.population), query) if near else place

    async def settle(self, query: str, earlier: Sequence[str] = ()) -> Location | WeatherToolError:
        """Resolve `query` once for the rest of this call: its Location, or the error that resolving it gives.
        `earlier`: the places the conversation asked about before, which settle a name several places have
        (_near_earlier)."""
        query = query.strip()
        outcome = await self._near_earlier(query, await self._outcome(query), earlier)
        _settled.set({query: outcome})
        return outcome

    async def _near_earlier(self, query: str, outcome: Location | WeatherToolError,
                            earlier: Sequence[str]) -> Location | WeatherToolError:
        """A follow-up's name by the places asked about before it: an ambiguous one is the candidate clearly
        closest to them ("what about Breckenridge?" after Denver: Colorado's), and a place far from all of them
        gives way to a namesake beside them, as in a comparison ("and Santa Fe?" after Albuquerque: New Mexico's,
        not Argentina's four times larger one; _namesake_near)."""
        if not isinstance(outcome, (Location, AmbiguousPlace)):
            return outcome
        places = [place for name in dict.fromkeys(earlier) if name.strip() != query
                  and isinstance(place := await self._outcome(name.strip()), Location)]
        if not places:
            return outcome
        if isinstance(outcome, AmbiguousPlace):
            chosen = _closest(outcome, [(place.latitude, place.longitude) for place in places], NEAR_AMBIGUOUS_KM)
            return self._gazetteer.to_location(chosen, query) if chosen is not None else outcome
        return self._namesake_near(query, outcome, places)

    async def _outcome(self, query: str, by_renown: bool = True) -> Location | WeatherToolError:
        try:
            return await self._look_up(query, by_renown)
        except WeatherToolError as error:
            return error

    async def _look_up(self, query: str, by_renown: bool = True) -> Location:
        if not query:
            raise InvalidArgument(pick("city must not be empty", "城市名不能为空"))
        if len(query) > MAX_QUERY_LENGTH:
            raise InvalidArgument(pick(f"city is {len(query)} characters long; at most {MAX_QUERY_LENGTH} allowed",
                                       f"城市名有 {len(query)} 个字符，最多 {MAX_QUERY_LENGTH} 个"))
        if off_earth(query):
            raise UnknownPlace(pick(f"{query} is not a place on Earth: the weather tools cover places on Earth only.",
                                    f"“{query}”不是地球上的地方：天气工具只能查地球上的地点。"))
        if fictional(query):
            raise UnknownPlace(pick(f"{query} is a place of stories, not one on Earth: the weather tools cover real "
                                    "places only.", f"“{query}”是虚构的地方，不在地球上：天气工具只能查真实的地点。"))
        coordinates = parse_coordinates(query)
        if coordinates is not None:
            return self._at_coordinates(query, *coordinates)
        region = self._gazetteer.region_named(query)
        if region is not None:
            city = self._gazetteer.chinese_name(region.key) or region.name
            raise UnknownPlace(pick(f"{query!r} is a province or region, not a city: name a city in it, such as "
                                    f"{region.name}.", f"“{query}”是省份或地区，不是城市：请说出其中的一个城市，比如{city}。"))
        found = self._gazetteer.lookup(query, by_renown)
        country = self._gazetteer.country_named(query)
        if country is not None:  # not a spelling of some town's name ("Iceland" was read as West Springfield)
            name, capital = country
            such = pick(f", such as {capital}, its capital", f"，比如首都{capital}") if capital else ""
            raise UnknownPlace(pick(f"{query!r} is a country ({name}), not a city: name a city or town in it{such}.",
                                    f"“{query}”是一个国家，不是城市：请说出那里的一个城市{such}。"))
        # A city abroad in the pinyin of its Chinese name before a typo: "dongjing" is 东京, not Dongjiang.
        found = (found or await self._geocode(query) or self._county(query) or self._by_chinese_sound(query)
                 or self._corrected(query) or self._by_sound(query) or self._after_its_city(query))
        if found is not None:
            return found
        suggestions = self._gazetteer.suggestions(query)
        if suggestions:
            hint = pick(f" Did you mean: {', '.join(suggestions)}?", f"您是不是要找：{'、'.join(suggestions)}？")
        else:
            hint = ""
        unknown = self._gazetteer.unknown_qualifiers(query)
        if unknown:
            hint += pick(f" ({', '.join(map(repr, unknown))}: no country or first-level region the offline "
                         "gazetteer knows.)", f"（离线地名录不认识国家或地区“{'、'.join(unknown)}”。）")
        offline = "" if self._provider.online else pick(
            f" Only offline place names (towns of {MIN_POPULATION:,} people or more) were searched.",
            f"（仅查找了离线地名录：人口{MIN_POPULATION}以上的城镇。）")
        raise UnknownPlace(pick(f"Unknown place {query!r}: no city of that name was found.{hint}{offline} A place"
                                " no name finds may be given by its coordinates, as 'latitude,longitude'.",
                                f"找不到名为“{query}”的地方。{hint}{offline}没有名字可查的地方，可以用坐标“纬度,经度”。"))

    def _corrected(self, query: str) -> Location | None:
        """The place a misspelt name ('Nairobbi', 荷泽) or a place followed by more (稻城亚丁) stands for, named as
        the place is (Nairobi, 菏泽, 稻城), so the answer says which."""
        found = self._gazetteer.correction(query) or self._gazetteer.leading_place(query)
        return self._gazetteer.to_location(found[1], found[0]) if found else None

    def _county(self, query: str) -> Location | None:
        """A county of China named in Chinese (红原, 绩溪) that the index lists by pinyin only."""
        county = self._gazetteer.county(query)
        return self._gazetteer.to_location(county, query) if county else None

    def _by_sound(self, query: str) -> Location | None:
        """A Chinese name read by its pinyin (瑞丽 -> Ruili), the last resort; it keeps the user's wording."""
        place = self._gazetteer.by_sound(query)
        return self._gazetteer.to_location(place, query) if place else None

    def _by_chinese_sound(self, query: str) -> Location | None:
        """A city abroad written in the pinyin of its Chinese name ("dongjing" for 东京)."""
        found = self._gazetteer.by_chinese_sound(query)
        return self._gazetteer.to_location(found[1], found[0]) if found else None

    def _after_its_city(self, query: str) -> Location | None:
        """A town written after the city it is by (冲绳那霸, 长野白马村), named as the question writes it."""
        place = self._gazetteer.after_its_city(query)
        return self._gazetteer.to_location(place, query) if place else None

    def _at_coordinates(self, query: str, latitude: float, longitude: float) -> Location:
        nearest = self._gazetteer.nearest(latitude, longitude)
        return Location(
            name=query,
            english_name=f"near {nearest.name}",
            country=nearest.country,
            country_code=nearest.country_code,
            latitude=latitude,
            longitude=longitude,
            timezone=nearest.timezone,
        )

    async def _geocode(self, query: str) -> Location | None:
        if not self._provider.online:
            return None
        name, qualifiers = split_qualifier(query)
        language = "zh" if has_cjk(name) else "en"
        try:
            results = await self._client.geocode(name, language)
        except UpstreamUnreachable as exc:
            self._provider.note_unreachable(exc)
            return None
        candidates = self._gazetteer.narrow(query, [self._candidate(r) for r in results if _usable(r)], qualifiers)
        if not candidates:
            return None
        return self._gazetteer.to_location(choose(query, candidates), query)

    def _candidate(self, result: dict[str, Any]) -> Candidate:
        latitude, longitude = float(result["latitude"]), float(result["longitude"])
        timezone = result.get("timezone") or self._gazetteer.nearest(latitude, longitude).timezone
        return Candidate(
            key=f"geocoding:{result.get('id', '')}",
            name=str(result["name"]),
            country_code=str(result.get("country_code", "")),
            country=str(result.get("country", "")),
            latitude=latitude,
            longitude=longitude,
            timezone=timezone,
            population=int(result.get("population") or 0),
            exact=True,
            region=str(result.get("admin1") or ""),
        )


def _usable(result: Any) -> bool:
    return (
        isinstance(result, dict)
        and isinstance(result.get("name"), str)
        and isinstance(result.get("latitude"), int | float)
        and isinstance(result.get("longitude"), int | float)
    )
