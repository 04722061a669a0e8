"""Errors the CLI reports as one clear sentence (no traceback): the user can fix them."""


class ExportUserError(Exception):
    def __str__(self):
        return str(self.args[0]) if self.args else ""


class UnknownModel(ExportUserError):
    """A model name that is not in the table, without a checkpoint to infer it from."""


class CheckpointMissing(ExportUserError):
    """No checkpoint file and no way to download it."""


class CheckpointMismatch(ExportUserError):
    """The checkpoint's tensors do not fit the architecture it is exported as."""


class ExportCheckFailed(ExportUserError):
    """The written graph breaks the contract or the size limit."""


class CheckpointUnreadable(ExportUserError):
    """The file is truncated, corrupt or not a checkpoint at all."""
