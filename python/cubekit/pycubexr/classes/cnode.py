from typing import List, Optional

from cubekit.pycubexr.utils.tree import pre_order


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
        return pre_order(self, CNode.get_children, with_self)

    def __repr__(self):
        """pyCubexR's text: the call path with its children's texts nested in it, made with a
        list as the stack (see pre_order)."""
        parts = []
        pending = [self]  # call paths and the texts between them, the next one last
        while pending:
            item = pending.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            if item.region is None:
                parts.append(f"CNode<{item.id}, region_id:{item.callee_region_id}, children:[")
            else:
                parts.append(f"CNode<{item.id}, region:<{item.callee_region_id}, "
                             f"{item.region.name}>, children:[")
            pending.append("]>")
            for i in reversed(range(len(item._children))):
                pending.append(item._children[i])
                if i > 0:
                    pending.append(", ")
        return "".join(parts)
