class Location:
    """A location (thread); rank and type as the text written in the report."""

    def __init__(self, *, _id: int, name: str, rank: str, _type: str):
        self.id = _id
        self.name = name
        self.rank = rank
        self.type = _type

    def __repr__(self):
        return f"Location<{self.__dict__}>"
