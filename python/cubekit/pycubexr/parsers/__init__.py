from cubekit.pycubexr.parsers.tar_parser import CubexParser  # noqa: F401
