"""With Settings → Backend on a speech server, the studio starts without loading the
local model (a laptop that renders elsewhere should not spend minutes and gigabytes
on it): renders go to the server with no model here, and the model loads at the first
job that needs it here (saving a voice encodes its clip) or when Backend goes back to
This computer. The session's start-up (purging last session's deleted takes) runs
either way."""

from __future__ import annotations

import pytest

from studio.library.takes import TakeLibrary
from studio.service.remote_renderer import BackendConfig
from studio.service.requests import LoadRequest, RenderRequest, VoiceSaveRequest
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for
from tests.serve.servers import API_KEY, DESIGN, TEXT, speech_like_wav
from tests.serve.test_remote_takes import OPTIONS


class Session:
    """A worker on this thread (slots called directly) that counts its model loads."""

    def __init__(self, engine, folder, url):
        self.loads = 0

        def load(*_args, **_kwargs):
            self.loads += 1
            return engine

        self.worker = InferenceWorker(load_engine=load, data_dir=folder)
        self.folder = folder
        self.events, self.failed, self.finished, self.saved = [], [], [], []
        self.worker.model_loaded.connect(lambda info: self.events.append("loaded"))
        self.worker.accel_availability.connect(lambda _modes: self.events.append("modes"))
        self.worker.set_backend(BackendConfig(url, API_KEY))
        self.worker.defer_model(LoadRequest(source="tiny"))

    def design(self, text: str):
        self.worker.render(job_for(len(self.finished) + 1, done=self.finished, failed=self.failed),
                           RenderRequest(text, instruct=DESIGN, mode="design", seeds=(3,),
                                         options=OPTIONS))
        assert not self.failed, self.failed
        return self.finished[-1]


@pytest.fixture
def session(engine, tmp_path, qapp, our_server):
    made = Session(engine, tmp_path / "data", our_server.url)
    yield made
    made.worker.release()


def test_renders_go_to_the_server_with_no_model_loaded_here(session):
    assert session.loads == 0 and session.worker.engine is None
    assert session.events == ["modes"]  # Settings' acceleration list still gets filled in
    result = session.design(TEXT)
    assert result.device == "remote" and session.loads == 0
    with TakeLibrary(session.folder, read_only=True) as library:
        [take] = library.list()
    assert take.run.device == "remote"


def test_saving_a_voice_loads_the_model_then(session, tmp_path):
    clip = speech_like_wav(tmp_path / "me.wav")
    session.worker.save_voice(job_for(done=session.saved, failed=session.failed), VoiceSaveRequest("Me", clip, "A clip of speech for the test."))
    assert session.failed == [] and len(session.saved) == 1
    assert session.loads == 1 and session.events == ["modes", "loaded", "modes"]
    session.design(TEXT)  # still on the server, and the model is not loaded again
    assert session.finished[-1].device == "remote" and session.loads == 1


def test_back_on_this_computer_the_model_loads_at_once(session):
    session.worker.set_backend(None)
    assert session.loads == 1 and "loaded" in session.events
    assert session.design(TEXT).device == "cpu"


def test_a_deferred_session_purges_last_session_s_deleted_takes(engine, tmp_path, qapp,
                                                                our_server):
    folder = tmp_path / "data"
    first = Session(engine, folder, our_server.url)
    take = first.design(TEXT).takes[0].take_id
    first.worker.delete_takes([take])  # undo lasts one session
    first.worker.release()
    second = Session(engine, folder, our_server.url)
    try:
        with TakeLibrary(folder, read_only=True) as library:
            assert library.list(include_deleted=True) == []
    finally:
        second.worker.release()
