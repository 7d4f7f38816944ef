"""cubekit.model: Extra-P's performance models of a series of reports (docs/models.md)."""

import os

from cubekit import _native


def model(series, *, measure="mean", scaling="weak", per_location=False, predict=(),
          threads=0):
    """Fits a model per call path × metric × flavour (× location) of a series of reports.

    ``series`` is a folder of experiment folders named like ``mm.x10y1z1.r1`` (as
    ``cubekit model DIR`` reads it) or a list of ``(point, file)`` with ``point`` a dict such
    as ``{"x": 10, "y": 1}`` (a point given twice: repetitions). ``measure`` is mean, median,
    minimum or maximum; ``scaling`` weak or strong; ``per_location=True`` fits a model per
    location. ``predict`` lists points (dicts) at which each model is also evaluated.

    Returns a list of dicts with the fields of ``cubekit model -s json``: callpath (names from
    the root), metric, flavour ("incl"/"excl"), location (with per_location), model (the
    formula), constant, terms ({coefficient, parameter, exponent, log_exponent}, and with
    several parameters in one term all of them as ``factors``), rss, smape, adjusted_r2 and,
    with ``predict``, predictions ([{point, value}]). Errors raise cubekit.Error.
    """
    if isinstance(series, (str, bytes, os.PathLike)):
        folder, points = os.fsdecode(series), []
    else:
        folder, points = None, [(_pairs(point), os.fsdecode(file)) for point, file in series]
    return _native.model(folder, points, measure, scaling, bool(per_location),
                         [_pairs(point) for point in predict], int(threads))


def _pairs(point):
    """{"x": 10} → [("x", 10.0)], keeping the order."""
    if not isinstance(point, dict):
        raise TypeError(f"a point is a dict of parameter values such as {{'x': 10}}, "
                        f"not {point!r}")
    return [(str(name), float(value)) for name, value in point.items()]
