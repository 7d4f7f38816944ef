from cubekit.pycubexr.classes.region import Region  # noqa: F401
from cubekit.pycubexr.classes.cnode import CNode  # noqa: F401
from cubekit.pycubexr.classes.location import Location  # noqa: F401
from cubekit.pycubexr.classes.location_group import LocationGroup  # noqa: F401
from cubekit.pycubexr.classes.system_tree_node import SystemTreeNode  # noqa: F401
from cubekit.pycubexr.classes.metric import Metric  # noqa: F401
from cubekit.pycubexr.classes.metric_values import MetricValues  # noqa: F401
