"""`omnivoice-desktop serve`: the engine behind an OpenAI-compatible speech API."""
