"""The judges' onnxruntime sessions: one CPU thread each, so a judge never fights the
render's torch threads for the cores."""

from __future__ import annotations

from pathlib import Path


def one_thread_session(model: Path):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
