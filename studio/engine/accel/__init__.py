"""Acceleration behind one fallback contract: torch.compile and the FlashInfer runner.

No Qt. ``Accelerator`` (accelerator.py) is what the worker and the CLI hold;
``reasons`` names every way an accelerated path can be refused or fail.
"""
