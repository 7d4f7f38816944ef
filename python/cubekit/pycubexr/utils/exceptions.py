"""pyCubexR's exception types (same names, same messages)."""


class MissingMetricError(Exception):
    """The report stores no values for this metric."""

    def __init__(self, metric):
        self.metric = metric
        super().__init__(f"The cubex file does NOT contain an index and/or data for the metric ({metric})")


class UnsupportedMetricFormatError(Exception):
    """The metric's data type is one pyCubexR does not read (HISTOGRAM, SCALE_FUNC, unknown)."""

    def __init__(self, metric_format: str, metric=None):
        self.metric_format = metric_format
        self.metric = metric
        text = f"The cubex parser does NOT support the format ({metric_format})"
        if metric is not None:
            text += f" of this metric: {metric}"
        super().__init__(text)


class CorruptIndexError(Exception):
    def __init__(self, message="Corrupt index."):
        super().__init__(message)


class InvalidConversionInstructionError(Exception):
    def __init__(self, message="Received invalid conversion instruction. convert_to_exclusive and "
                               "convert_to_inclusive must not be True at the same time."):
        super().__init__(message)
