"""Rendering on a speech server over HTTP (no Qt): vLLM-Omni, omnivoice-server, our serve."""
