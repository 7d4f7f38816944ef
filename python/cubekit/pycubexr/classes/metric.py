import warnings
from typing import List

from cubekit.pycubexr.utils.tree import pre_order


class MetricType:
    """Metric kinds. pyCubexR knows INCLUSIVE and EXCLUSIVE; cubekit also reads the others."""

    INCLUSIVE = "INCLUSIVE"
    EXCLUSIVE = "EXCLUSIVE"
    SIMPLE = "SIMPLE"
    POSTDERIVED = "POSTDERIVED"
    PREDERIVED_INCLUSIVE = "PREDERIVED_INCLUSIVE"
    PREDERIVED_EXCLUSIVE = "PREDERIVED_EXCLUSIVE"


class Metric:
    """A metric: name (unique name), id, display_name, description, metric_type, data_type,
    units, url, childs, and tree_index_to_cid_map (row position in the data → cnode id)."""

    def __init__(self, *, name: str, _id: int, display_name: str, description: str,
                 metric_type: str, data_type: str, units: str, url: str, childs: List):
        if not hasattr(MetricType, metric_type):
            raise ValueError(f"unknown metric type {metric_type!r}")
        self.name = name
        self.id = _id
        self.display_name = display_name
        self.description = description
        self.metric_type = metric_type
        self.data_type = data_type
        self.units = units
        self.url = url
        self.tree_index_to_cid_map: dict = None
        self.childs = childs

    @property
    def tree_enumeration(self):
        """cnode id → row position (deprecated in pyCubexR, kept for old programs)."""
        warnings.warn("Accessing the tree enumeration is deprecated. Use cnode ids directly.",
                      DeprecationWarning)
        if self.tree_index_to_cid_map is None:
            return None
        return {cid: position for position, cid in self.tree_index_to_cid_map.items()}

    def get_all_children(self, with_self: bool = True) -> List["Metric"]:
        """This metric (unless with_self=False) and every one below it, in pre-order (metric
        trees nest up to 1,000 levels)."""
        return pre_order(self, lambda metric: metric.childs, with_self)

    def __repr__(self):
        return f"Metric<{self.__dict__}>"
