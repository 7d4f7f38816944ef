from cubekit.pycubexr.utils.logger import logger  # noqa: F401


def chunk_list(elements, chunk_size):
    """The list cut into consecutive pieces of ``chunk_size`` elements."""
    return [elements[start:start + chunk_size] for start in range(0, len(elements), chunk_size)]
