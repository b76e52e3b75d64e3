"""The one model state: its words, when Generate may run, when the setup card shows."""

from studio.model_state import ModelState, ModelStatus, Phase


def test_the_words_are_the_same_everywhere():
    assert ModelState(Phase.NOT_DOWNLOADED, "k2-fsa/OmniVoice").label == "Not downloaded"
    assert ModelState(Phase.DOWNLOADING, percent=34).label == "Downloading 34 %"
    assert ModelState(Phase.LOADING).label == "Loading"
    assert ModelState(Phase.READY, "/m/OmniVoice").label == "Ready"
    assert ModelState(Phase.FAILED, detail="The folder is empty.").label == \
        "Failed: The folder is empty."
    assert ModelState(Phase.SERVER, "http://gpu-box:8000/").label == "Server: gpu-box:8000"
    assert ModelState(Phase.SERVER, "http://gpu-box:8000/", answered=False).label == \
        "Connecting: gpu-box:8000"
    assert ModelState(Phase.SERVER, "http://gpu-box:8000/", "It cannot be reached.").label == \
        "Failed: It cannot be reached."


def test_only_ready_or_a_server_can_generate_and_the_rest_say_why():
    for phase in Phase:
        state = ModelState(phase)
        assert state.can_generate == (phase in (Phase.READY, Phase.SERVER))
        assert bool(state.generate_reason()) != state.can_generate
    for waiting in (ModelState(Phase.SERVER, "http://a:1", answered=False),
                    ModelState(Phase.SERVER, "http://a:1", "It cannot be reached.")):
        assert not waiting.can_generate and "server at a:1" in waiting.generate_reason()


def test_the_owner_reports_each_change_once_and_a_download_never_hides_a_model():
    seen = []
    status = ModelStatus(seen.append)
    status.not_downloaded("k2-fsa/OmniVoice")
    status.downloading("k2-fsa/OmniVoice", 34, 100)
    status.downloading("k2-fsa/OmniVoice", 34, 100)  # no change: not reported again
    status.loading("/m/OmniVoice")
    status.downloading("k2-fsa/OmniVoice", 50, 100)  # a model is loading: it stays Loading
    status.ready("/m/OmniVoice", "cpu · fp32")
    assert [s.label for s in seen] == ["Not downloaded", "Downloading 34 %", "Loading", "Ready"]
    assert seen[0].needs_setup and seen[1].needs_setup and not seen[-1].needs_setup


def test_a_server_shows_while_it_is_used_and_the_local_state_comes_back_after():
    seen = []
    status = ModelStatus(seen.append)
    status.failed("/m/x", "The model folder /m/x does not exist.")
    status.use_server("http://gpu-box:8000")
    assert not status.state.can_generate  # asked first
    status.server_answered("http://old-box:8000")  # a late answer about another server
    status.server_answered("http://gpu-box:8000")
    status.ready("/m/x")  # loaded here meanwhile (for transcription): the server still shows
    assert status.state.label == "Server: gpu-box:8000" and status.state.can_generate
    status.use_server(None)
    assert [s.label for s in seen] == ["Failed: The model folder /m/x does not exist.",
                                       "Connecting: gpu-box:8000", "Server: gpu-box:8000",
                                       "Ready"]
