"""The inference worker (one long-lived QThread that owns the model) and its controller."""
