"""The worker thread survives torch being imported on it first (the studio's own order).

Each case runs in a fresh interpreter, because the test process has long imported
torch on its main thread, which hides the fault: the script imports only Qt and the
worker, so torch, transformers and tokenizers are first imported by the model load
on the worker thread, as in the launched studio. Then it renders, reloads with
another precision, cancels, fails a job and renders again: every later slot call
runs on the same thread.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys, threading
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    app = QCoreApplication([])
    from studio.worker.controller import WorkerController
    from studio.service.requests import LoadRequest, RenderRequest
    from studio.engine.options import GenerationOptions
    from studio.engine.options import DecodeOptions

    assert "torch" not in sys.modules, "the test must not import torch before the worker"
    checkpoint, reference = sys.argv[1], sys.argv[2]
    controller = WorkerController()
    worker = controller.worker
    events = []
    for name in ("model_loaded", "model_failed"):
        getattr(worker, name).connect(lambda *a, n=name: events.append(n))

    def wait_for(count):
        loop = QEventLoop()
        poll = QTimer(); poll.setInterval(20)
        poll.timeout.connect(lambda: len(events) >= count and loop.quit())
        poll.start()
        QTimer.singleShot(120_000, loop.quit)
        loop.exec()
        assert len(events) >= count, events

    draft = GenerationOptions(decode=DecodeOptions(num_step=3))
    def render(**kw):
        job = controller.render(RenderRequest(options=draft, **kw))
        for signal, said in (("done", "finished"), ("failed", "failed"),
                             ("cancelled", "cancelled")):
            getattr(job, signal).connect(lambda *a, n=said: events.append(n))
        return job

    controller.load_model(LoadRequest(checkpoint, device="cpu", precision="fp32"))
    wait_for(1)
    assert "torch" in sys.modules and events == ["model_loaded"], events
    # A clone from a file (the prompt encode frees from_numpy tensors on the worker).
    render(text="First render.", reference=reference, ref_text="A reference.", seeds=(1,))
    render(text="Second render.", instruct="female", mode="design", seeds=(2, 3))
    wait_for(3)
    controller.load_model(LoadRequest(checkpoint, device="cpu", precision="bf16"))
    wait_for(4)
    job = render(text="Cancelled before it runs.", seeds=(4,))
    controller.cancel(job)
    render(text="", seeds=(5,))  # refused: one sentence
    render(text="After all that.", reference=reference, ref_text="A reference.", seeds=(6,))
    wait_for(7)
    print("EVENTS", ",".join(events), flush=True)
    assert controller.shutdown()
""")


def test_torch_first_imported_on_the_worker_thread_renders_every_job(tiny_checkpoint, tmp_path,
                                                                       speech):
    import soundfile as sf

    reference = tmp_path / "ref.wav"
    sf.write(reference, speech(2.0), 24000)
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"),
               QT_QPA_PLATFORM="offscreen", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tiny_checkpoint), str(reference)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, (f"exit {done.returncode}\n{done.stdout[-2000:]}\n"
                                  f"{done.stderr[-4000:]}")
    events = done.stdout.split("EVENTS ", 1)[1].split()[0].split(",")
    assert events == ["model_loaded", "finished", "finished", "model_loaded", "cancelled",
                      "failed", "finished"]
