from typing import List, Optional


class CNode:
    """A call path: id, callee_region_id, region, parameters {key: value}, parent, children."""

    def __init__(self, *, _id: int, callee_region_id: int):
        self.id = _id
        self.callee_region_id = callee_region_id
        self.region = None
        self.parameters = {}
        self.parent: Optional["CNode"] = None
        self._children: List["CNode"] = []

    def get_children(self) -> List["CNode"]:
        return self._children

    def add_child(self, child: "CNode") -> None:
        self._children.append(child)

    def get_all_children(self, with_self: bool = True) -> List["CNode"]:
        """This call path (unless with_self=False) and every one below it, in pre-order."""
        found = []
        pending = [self] if with_self else list(reversed(self._children))
        while pending:
            node = pending.pop()
            found.append(node)
            pending.extend(reversed(node._children))
        return found

    def __repr__(self):
        if self.region is None:
            return f"CNode<{self.id}, region_id:{self.callee_region_id}, children:{self._children}>"
        return (f"CNode<{self.id}, region:<{self.callee_region_id}, {self.region.name}>, "
                f"children:{self._children}>")
