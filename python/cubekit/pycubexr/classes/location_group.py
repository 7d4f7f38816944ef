from typing import List


class LocationGroup:
    """A location group (process) with its locations."""

    def __init__(self, *, _id: int, name: str, rank, _type: str):
        self.id = _id
        self.name = name
        self.rank = rank
        self.type = _type
        self._location_groups: List["LocationGroup"] = []
        self._locations = []

    def all_locations(self):
        result = list(self._locations)
        for group in self._location_groups:
            result.extend(group.all_locations())
        return result

    def add_location_group(self, child: "LocationGroup") -> None:
        self._location_groups.append(child)

    def add_location(self, child) -> None:
        self._locations.append(child)

    def __repr__(self):
        return f"LocationGroup<{self.__dict__}>"
