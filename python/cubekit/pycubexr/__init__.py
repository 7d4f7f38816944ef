"""pyCubexR 2.x's public API on cubekit: change ``import pycubexr`` to ``import cubekit.pycubexr``.

Same module paths, classes and behaviour as pyCubexR (https://github.com/extra-p/pycubexr);
the reading is done by cubekit's C++ library. Beyond pyCubexR: derived metrics (their values
are computed), Cube 3 files (.cube, .cube.gz), and reports with several call-tree or
system-tree roots. See docs/python.md for the differences.
"""

from cubekit.pycubexr.parsers import CubexParser  # noqa: F401
