"""A config file's fields read by type: a field of the wrong type or out of range is one
line naming the file and the field, where it is read, instead of an exception deep in
the export. Tensor shapes are read the same way (`dims`)."""
import math
from typing import Any, Mapping, Optional, Sequence, Tuple

from ..errors import CheckpointMismatch

_MISSING = object()


class Fields:
    """The JSON object DATA of FILE (a name for messages); PREFIX names a nested object."""

    def __init__(self, data: Optional[Mapping], file: str, prefix: str = ""):
        self.data, self.file, self.prefix = data or {}, file, prefix

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def _bad(self, key: str, value: Any, wanted: str) -> CheckpointMismatch:
        shown = repr(value) if len(repr(value)) < 60 else repr(value)[:57] + "..."
        return CheckpointMismatch(f"{self.file}: {self.prefix}{key} is {shown}, expected {wanted}")

    def _get(self, key: str, default):
        value = self.data.get(key, _MISSING)
        return default if value is _MISSING or value is None else value

    def int(self, key: str, default=None, minimum: int = 1) -> Optional[int]:
        value = self._get(key, default)
        if value is not None and (type(value) is not int or value < minimum):
            raise self._bad(key, value, f"an integer >= {minimum}")
        return value

    def number(self, key: str, default=None) -> Optional[float]:
        """A finite positive number."""
        value = self._get(key, default)
        if value is not None and (type(value) not in (int, float) or not math.isfinite(value) or value <= 0):
            raise self._bad(key, value, "a finite number > 0")
        return value

    def str(self, key: str, default=None) -> Optional[str]:
        value = self._get(key, default)
        if value is not None and not isinstance(value, str):
            raise self._bad(key, value, "a string")
        return value

    def bool(self, key: str, default=None) -> Optional[bool]:
        value = self._get(key, default)
        if value is not None and not isinstance(value, bool):
            raise self._bad(key, value, "true or false")
        return value

    def triple(self, key: str, positive: bool = False) -> Optional[Tuple[float, float, float]]:
        """Three finite numbers (a normalisation mean or std; std positive)."""
        value = self._get(key, None)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) != 3 or not all(
                type(v) in (int, float) and math.isfinite(v) and (v > 0 or not positive) for v in value):
            raise self._bad(key, value, f"three finite numbers{' > 0' if positive else ''}")
        return tuple(float(v) for v in value)

    def size(self, key: str) -> Optional[Tuple[int, int]]:
        """An image size: one integer, or [height, width]."""
        value = self._get(key, None)
        if value is None:
            return None
        if type(value) is int and value > 0:
            return (value, value)
        if isinstance(value, list) and len(value) == 2 and all(type(v) is int and v > 0 for v in value):
            return tuple(value)
        raise self._bad(key, value, "a positive integer or [height, width]")

    def strings(self, key: str) -> Optional[Sequence[str]]:
        value = self._get(key, None)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise self._bad(key, value, "a list of strings")
        return value

    def obj(self, key: str) -> "Fields":
        value = self._get(key, {})
        if not isinstance(value, dict):
            raise self._bad(key, value, "an object")
        return Fields(value, self.file, f"{self.prefix}{key}.")

    def raw(self, key: str, default=None):
        return self._get(key, default)


def dims(state_dict: Mapping, key: str, rank: int, what: str) -> Tuple[int, ...]:
    """The shape of STATE_DICT[KEY], which must have RANK axes."""
    if key not in state_dict:
        raise CheckpointMismatch(f"the {what} has no {key}")
    shape = tuple(state_dict[key].shape)
    if len(shape) != rank or 0 in shape:
        raise CheckpointMismatch(f"the {what}'s {key} has shape {list(shape)}, expected {rank} non-empty axes")
    return shape
