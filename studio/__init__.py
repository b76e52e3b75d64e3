"""OmniVoice Desktop: a desktop studio for the OmniVoice text-to-speech model."""

__version__ = "0.1.0"
