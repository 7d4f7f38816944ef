from typing import Callable, List, TypeVar

Node = TypeVar("Node")


def pre_order(node: Node, children: Callable[[Node], List[Node]], with_self: bool = True) -> List[Node]:
    """``node`` (unless with_self=False) and every node below it, in pre-order. A list is the
    stack: a call tree is as deep as the recursion it measured, and Python stops recursing at
    about 1,000 levels."""
    found = []
    pending = [node] if with_self else list(reversed(children(node)))
    while pending:
        next_node = pending.pop()
        found.append(next_node)
        pending.extend(reversed(children(next_node)))
    return found
