"""The inference engine: loads the official OmniVoice checkpoint and renders speech.

No Qt here. Everything a user can get wrong surfaces as :class:`UserError`,
one sentence that says what is wrong and how to fix it.
"""

from studio.errors import UserError

__all__ = ["UserError"]
