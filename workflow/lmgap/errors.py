"""The one exception type whose message is meant for the user, not a traceback."""


class LmgapError(Exception):
    """A problem the user can fix; the message names the file, the line and the fix."""
