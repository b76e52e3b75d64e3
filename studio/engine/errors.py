"""The one exception type the user is meant to read."""


class UserError(Exception):
    """A problem the user caused or can fix, carried as one readable sentence.

    The CLI prints it and exits with status 2; the studio shows it on the status
    bar. Anything else that escapes the engine is a bug and goes to the log.
    """


class ModelNotDownloaded(UserError):
    """The configured model is a repo id with no copy on this computer yet: the studio
    offers the download instead of reporting a failure."""
