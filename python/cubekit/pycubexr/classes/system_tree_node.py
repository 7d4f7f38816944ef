from typing import Dict, List


class SystemTreeNode:
    """A system-tree node (machine, node, ...) with its child nodes and location groups."""

    def __init__(self, *, _id: int, _class: str, name: str, attrs: Dict[str, str]):
        self.id = _id
        self.clazz = _class
        self.name = name
        self.attrs = attrs
        self._system_tree_node_children: List["SystemTreeNode"] = []
        self._location_group_children = []

    def all_location_groups(self):
        result = list(self._location_group_children)
        for child in self._system_tree_node_children:
            result.extend(child.all_location_groups())
        return result

    def all_locations(self):
        result = []
        for group in self.all_location_groups():
            result.extend(group.all_locations())
        return result

    def add_system_tree_node_child(self, child: "SystemTreeNode") -> None:
        self._system_tree_node_children.append(child)

    def add_location_group(self, child) -> None:
        self._location_group_children.append(child)

    def __repr__(self):
        return f"SystemTreeNode<{self.__dict__}>"
