"""The studio's worker rendering on a speech server (Settings → Backend: Remote):
design and clone, whole and streamed, through omnivoice-server 0.2.5 (another
author's) and our own ``serve``; each take lands in the take library with the
server's address, model id and report, and no local model is needed. Pause tags
and the pronunciation dictionary act before the text leaves; a script's lines
render there too; every failure is one sentence with no take, and Cancel closes a
request the server is still rendering."""

from __future__ import annotations

import shutil
import threading
import time

import httpx
import numpy as np
import pytest

from studio.engine.options import DecodeOptions, GenerationOptions
from studio.library.takes import TakeLibrary
from studio.remote.client import RemoteBackend
from studio.remote.dialects import RemoteRequest
from studio.service.remote_renderer import BackendConfig
from studio.service.requests import LinesRequest, RenderRequest
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for
from tests.serve.servers import API_KEY, DESIGN, STEPS, TEXT, speech_like_wav

OPTIONS = GenerationOptions(decode=DecodeOptions(num_step=STEPS))
REF_TEXT = "A clip of speech for the test."


class Studio:
    """A worker with no model loaded, its signals collected (slots run on this thread)."""

    def __init__(self, folder, config):
        self.folder = folder
        self.worker = InferenceWorker(data_dir=folder)
        self.worker.set_backend(config)
        self.finished, self.failed, self.cancelled, self.chunks = [], [], [], []
        self.lines, self.lines_done = [], []

    def job(self, stop=None, done=None):
        """Job 1, its signals collected here (``done``: the finished renders)."""
        return job_for(1, stop=stop, done=self.finished if done is None else done,
                       failed=self.failed, cancelled=self.cancelled, chunks=self.chunks,
                       lines=self.lines)

    def render(self, request, cancel=None):
        self.worker.render(self.job(cancel), request)
        assert not self.failed, self.failed
        assert not self.cancelled
        [result] = self.finished
        return result

    def takes(self):
        with TakeLibrary(self.folder, read_only=True) as library:
            return library.list()

    def close(self):
        self.worker.release()


@pytest.fixture(scope="module")
def clip_file(tmp_path_factory):
    return speech_like_wav(tmp_path_factory.mktemp("clip") / "ref.wav", seconds=3.0, seed=4)


@pytest.fixture(params=["omnivoice-server", "omnivoice-desktop"])
def server(request):
    name = request.param
    server = request.getfixturevalue("their_server" if name == "omnivoice-server"
                                     else "our_server")
    return name, server, API_KEY if name == "omnivoice-desktop" else None


@pytest.fixture
def studio(tmp_path, qapp, our_server):
    made = []

    def make(config=None):
        made.append(Studio(tmp_path / "data", config or BackendConfig(our_server.url, API_KEY)))
        return made[-1]

    yield make
    for s in made:
        s.close()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("mode", ["design", "clone"])
def test_a_remote_take_lands_in_the_take_library(server, studio, clip_file, mode, stream):
    name, srv, key = server
    s = studio(BackendConfig(srv.url, key))
    assert s.worker.engine is None  # the server renders: no local model
    request = RenderRequest(TEXT, instruct=DESIGN if mode == "design" else None,
                            reference=clip_file if mode == "clone" else None,
                            ref_text=REF_TEXT if mode == "clone" else None, seeds=(11,),
                            options=OPTIONS, mode=mode, stream=stream)
    result = s.render(request)
    [take_audio] = result.takes
    assert result.device == "remote" and result.precision == name
    assert take_audio.seed == 11 and take_audio.sample_rate == 24000
    assert np.abs(take_audio.audio).max() > 0.01
    if stream:
        assert s.chunks and s.chunks[0].index == 0 and s.chunks[0].start == 0
        assert np.array_equal(np.concatenate([c.audio for c in s.chunks]), take_audio.audio)
        assert result.first_audio_seconds is not None
    else:
        assert not s.chunks
    [take] = s.takes()
    assert take.id == take_audio.take_id
    assert take.settings.text == TEXT and take.settings.seed == 11 and take.settings.mode == mode
    with RemoteBackend(srv.url, key) as remote:
        info = remote.info()
    assert take.run.backend == srv.url and take.run.server_model == info.model
    assert take.run.device == "remote" and take.run.precision == name
    assert isinstance(take.run.reported, dict)
    if mode == "clone":
        assert take.settings.reference_sha256 is not None
    with TakeLibrary(s.folder, read_only=True) as library:
        stored, rate = library.read_audio(take.id)
    assert rate == 24000 and np.abs(stored - take_audio.audio).max() < 1e-4


def test_the_remote_take_is_the_servers_render_of_that_seed(studio, our_server):
    s = studio()
    result = s.render(RenderRequest(TEXT, instruct=DESIGN, seeds=(21, 22), options=OPTIONS,
                                    mode="design"))
    with RemoteBackend(our_server.url, API_KEY) as remote:
        for take in result.takes:
            direct = remote.render(RemoteRequest(text=TEXT, instruct=DESIGN, steps=STEPS,
                                                 seed=take.seed))
            assert np.array_equal(direct.audio, take.audio)
    assert len(s.takes()) == 2 and len({t.batch for t in s.takes()}) == 1


def test_a_pause_tag_is_exact_silence_between_two_server_renders(studio, our_server):
    s = studio()
    result = s.render(RenderRequest("Good morning. [pause 500ms] Did you sleep well?",
                                    instruct=DESIGN, seeds=(5,), options=OPTIONS, mode="design"))
    audio = result.takes[0].audio
    with RemoteBackend(our_server.url, API_KEY) as remote:
        first, second = (remote.render(RemoteRequest(text=t, instruct=DESIGN, steps=STEPS,
                                                     seed=5)).audio
                         for t in ("Good morning.", "Did you sleep well?"))
    assert audio.size == first.size + 12000 + second.size
    assert np.array_equal(audio[:first.size], first)
    assert not audio[first.size:first.size + 12000].any()
    assert np.array_equal(audio[first.size + 12000:], second)


def test_the_pronunciation_dictionary_applies_before_the_text_leaves(studio, our_server,
                                                                     tmp_path):
    s = studio()
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "pronunciations.json").write_text('{"Siobhan": "Shiv-awn"}')
    result = s.render(RenderRequest("Siobhan is here.", instruct=DESIGN, seeds=(8,),
                                    options=OPTIONS, mode="design"))
    with RemoteBackend(our_server.url, API_KEY) as remote:
        said = remote.render(RemoteRequest(text="Shiv-awn is here.", instruct=DESIGN,
                                           steps=STEPS, seed=8)).audio
        unsaid = remote.render(RemoteRequest(text="Siobhan is here.", instruct=DESIGN,
                                             steps=STEPS, seed=8)).audio
    assert np.array_equal(result.takes[0].audio, said)
    assert said.shape != unsaid.shape or not np.array_equal(said, unsaid)


def test_a_saved_voice_travels_as_its_clip_and_transcript(studio, our_server, tmp_path):
    shutil.copytree(our_server.data, tmp_path / "data", dirs_exist_ok=True)
    s = studio()
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary(tmp_path / "data") as library:
        voice = library.find("Narrator")
        clip = library.clip_path(voice.id).read_bytes()
    result = s.render(RenderRequest(TEXT, voice_id=voice.id, seeds=(3,), options=OPTIONS))
    with RemoteBackend(our_server.url, API_KEY) as remote:
        direct = remote.render(RemoteRequest(text=TEXT, ref_audio=clip, ref_text=REF_TEXT,
                                             steps=STEPS, seed=3)).audio
    assert np.array_equal(result.takes[0].audio, direct)
    [take] = s.takes()
    assert take.settings.voice_id == voice.id


def test_a_scripts_lines_render_on_the_server(studio, clip_file):
    s = studio()
    lines = (RenderRequest("Good morning.", instruct=DESIGN, seeds=(1,), options=OPTIONS,
                           mode="design"),
             RenderRequest("Morning to you.", reference=clip_file, ref_text=REF_TEXT,
                           seeds=(2,), options=OPTIONS),
             RenderRequest("Sleep well?", instruct=DESIGN, seeds=(3,), options=OPTIONS,
                           mode="design"))
    s.worker.render_lines(s.job(done=s.lines_done), LinesRequest(lines, (7, 8, 9)))
    assert not s.failed
    assert [d.key for d in s.lines] == [7, 8, 9]
    [done] = s.lines_done
    assert done.rendered == 3
    by_id = {t.id: t for t in s.takes()}
    for d, line in zip(s.lines, lines):
        take = by_id[d.take.take_id]
        assert take.settings.text == line.text and take.run.device == "remote"
    assert len({t.batch for t in s.takes()}) == 1, "one render, one batch (listed together)"


def test_failures_are_one_sentence_and_leave_no_take(studio, our_server):
    cases = [(BackendConfig(closed_port_url()), "cannot be reached"),
             (BackendConfig(our_server.url, "wrong"), "refused the API key"),
             (BackendConfig(""), "has no address"),
             (BackendConfig("ftp://box"), "must start with http")]
    for config, said in cases:
        s = studio(config)
        s.worker.render(s.job(), RenderRequest(TEXT, instruct=DESIGN, options=OPTIONS,
                                         mode="design"))
        [sentence] = s.failed
        assert said in sentence and "\n" not in sentence
        assert not s.finished and not s.takes()
        s.failed.clear()
    s = studio()
    s.worker.render(s.job(), RenderRequest(TEXT, reference=our_server.data / "missing.wav",
                                     options=OPTIONS))
    assert s.failed and "transcript" in s.failed[0]


def test_cancel_closes_a_request_the_server_is_still_rendering(studio, our_server):
    s = studio()
    cancel = threading.Event()
    long_text = " ".join([TEXT] * 12)
    request = RenderRequest(long_text, instruct=DESIGN, seeds=(1,), mode="design",
                            options=GenerationOptions(decode=DecodeOptions(num_step=64)))
    with RemoteBackend(our_server.url, API_KEY) as remote:
        threading.Timer(1.0, cancel.set).start()
        started = time.perf_counter()
        s.worker.render(s.job(cancel), request)
        cancelled_after = time.perf_counter() - started
        # The same render to its end, for scale: the cancel must not have waited for it.
        started = time.perf_counter()
        remote.render(RemoteRequest(text=long_text, instruct=DESIGN, steps=64, seed=1))
        whole = time.perf_counter() - started
    assert s.cancelled == [1] and not s.failed and not s.takes()
    assert cancelled_after < whole / 2, (cancelled_after, whole)


def test_a_render_s_takes_reach_the_server_together(studio, our_server, monkeypatch):
    """Takes: 3 sends three requests at once, so the server batches them; each take is
    still the server's render of its own seed."""
    from studio.service.remote_renderer import RemoteRenderer

    real, batch_sizes = RemoteRenderer.render, []

    def render(self, *args, **kwargs):  # what the server said of each take's batch
        result = real(self, *args, **kwargs)
        batch_sizes.append(int(result.reported["x-batch-size"]))
        return result

    monkeypatch.setattr(RemoteRenderer, "render", render)
    s = studio()
    steps = 24  # a first request renders long enough for the other two to arrive meanwhile
    result = s.render(RenderRequest(TEXT, instruct=DESIGN, seeds=(31, 32, 33), mode="design",
                                    options=GenerationOptions(decode=DecodeOptions(num_step=steps))))
    assert [t.seed for t in result.takes] == [31, 32, 33] and len(s.takes()) == 3
    # One at a time, every batch is 1; at once, the server's idle worker takes the first
    # to arrive and the two that arrive during its render share the next batch.
    assert max(batch_sizes) >= 2, batch_sizes
    with RemoteBackend(our_server.url, API_KEY) as remote:
        for take in result.takes:
            direct = remote.render(RemoteRequest(text=TEXT, instruct=DESIGN, steps=steps,
                                                 seed=take.seed))
            assert np.array_equal(direct.audio, take.audio)


def test_takes_at_once_on_omnivoice_server(studio, their_server):
    """Another author's server takes the concurrent requests too (it queues them)."""
    s = studio(BackendConfig(their_server.url))
    result = s.render(RenderRequest(TEXT, instruct=DESIGN, seeds=(7, 8), options=OPTIONS,
                                    mode="design"))
    assert [t.seed for t in result.takes] == [7, 8] and len(s.takes()) == 2
    assert all(np.abs(t.audio).max() > 0.01 for t in result.takes)
    assert not np.array_equal(result.takes[0].audio, result.takes[1].audio)


def test_one_failed_take_fails_the_render_and_stops_the_others(studio, monkeypatch):
    from studio.errors import UserError
    from studio.service.remote_renderer import RemoteRenderer

    real, seen = RemoteRenderer.render, []

    def render(self, request, voice, seed, **kw):
        seen.append((seed, kw["cancel"]))
        if seed == 42:
            time.sleep(0.2)  # its siblings are on the wire by now
            raise UserError("The server at x refused take 42.")
        return real(self, request, voice, seed, **kw)

    monkeypatch.setattr(RemoteRenderer, "render", render)
    s = studio()
    long_text = " ".join([TEXT] * 12)
    started = time.perf_counter()
    s.worker.render(s.job(), RenderRequest(long_text, instruct=DESIGN, seeds=(41, 42, 43), mode="design",
                                     options=GenerationOptions(decode=DecodeOptions(num_step=64))))
    failed_after = time.perf_counter() - started
    assert s.failed == ["The server at x refused take 42."] and not s.finished
    assert not s.takes()  # no half of the takes kept
    assert sorted(seed for seed, _ in seen) == [41, 42, 43]
    # The other two were closed when 42 failed, not rendered to their end (64 steps of a
    # long text: far longer than this).
    assert failed_after < 5, failed_after


def test_cancel_closes_every_take_s_request(studio, our_server):
    s = studio()
    cancel = threading.Event()
    request = RenderRequest(" ".join([TEXT] * 12), instruct=DESIGN, seeds=(1, 2, 3),
                            mode="design",
                            options=GenerationOptions(decode=DecodeOptions(num_step=64)))
    threading.Timer(1.0, cancel.set).start()
    started = time.perf_counter()
    s.worker.render(s.job(cancel), request)
    assert s.cancelled == [1] and not s.failed and not s.takes()
    assert time.perf_counter() - started < 10
    deadline = time.monotonic() + 10  # and the server lets all three go
    while httpx.get(f"{our_server.url}/health").json()["queue"]["admitted"] and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    assert httpx.get(f"{our_server.url}/health").json()["queue"]["admitted"] == 0


def closed_port_url() -> str:
    """The address of a port nothing listens on."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"
