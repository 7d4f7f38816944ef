"""pandas views of a report (pandas is optional: imported only here)."""

import numpy as np


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("cubekit's DataFrame views need pandas (Debian: python3-pandas)") from e
    return pandas


def _call_path_columns(report):
    cnodes = report.cnodes
    ids = np.fromiter((c.id for c in cnodes), dtype=np.int64, count=len(cnodes))
    names = [c.name for c in cnodes]
    parents = np.fromiter(((c.parent.id if c.parent is not None else -1) for c in cnodes),
                          dtype=np.int64, count=len(cnodes))
    return ids, names, parents


def report_frame(report, metrics, call_tree, metric_tree):
    pd = _pandas()
    ids, names, parents = _call_path_columns(report)
    columns = {"name": names, "parent": parents}
    if metrics is None:
        chosen = [m for m in report.metrics
                  if not m.ghost and not m.void and _single_number(m)
                  and (m.derived or report._native.has_data(m.index))]
    else:
        chosen = [report.metric(m) for m in metrics]
    for m in chosen:
        values = report.aggregated(m, call_tree=call_tree, metric_tree=metric_tree)
        if values.dtype.names is not None:
            raise ValueError(f"metric \"{m.name}\" ({m.dtype}) has structured values; "
                             "use Report.aggregated for it")
        columns[m.name] = values
    return pd.DataFrame(columns, index=pd.Index(ids, name="cnode"))


def location_frame(report, metric, call_tree, metric_tree):
    pd = _pandas()
    values = report.values(metric, call_tree=call_tree, metric_tree=metric_tree)
    if values.dtype.names is not None:
        raise ValueError(f"metric has structured values ({values.dtype}); use Report.values")
    ids, _, _ = _call_path_columns(report)
    return pd.DataFrame(values, index=pd.Index(ids, name="cnode"),
                        columns=pd.RangeIndex(values.shape[1], name="location"))


def _single_number(metric):
    from cubekit import _native
    return metric.derived or _native.dtype(metric.dtype).names is None
