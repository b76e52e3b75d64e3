"""The worker's side of the setup card: a repo id with no copy here is "missing" (the
card offers the download), not a failure; a chosen folder is checked by the load's own
checks, with one sentence when it is not a checkpoint."""

from __future__ import annotations

import shutil

from studio.service.requests import LoadRequest
from studio.worker.worker import InferenceWorker


def test_a_repo_that_is_not_downloaded_is_missing_not_failed(qapp, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    worker = InferenceWorker(data_dir=tmp_path / "data")
    seen = {"missing": [], "failed": [], "loaded": []}
    worker.model_missing.connect(seen["missing"].append)
    worker.model_failed.connect(seen["failed"].append)
    worker.model_loaded.connect(seen["loaded"].append)
    worker.load_model(LoadRequest(source="k2-fsa/OmniVoice", device="cpu", precision="fp32"))
    assert seen == {"missing": ["k2-fsa/OmniVoice"], "failed": [], "loaded": []}


def test_a_downloaded_repo_loads_from_the_data_folder(qapp, tmp_path, monkeypatch,
                                                      tiny_checkpoint):
    from studio.engine.hub_download import COMPLETE, download_folder

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    folder = download_folder("k2-fsa/OmniVoice")
    shutil.copytree(tiny_checkpoint, folder)
    worker = InferenceWorker(data_dir=tmp_path / "data")
    missing, loaded = [], []
    worker.model_missing.connect(missing.append)
    worker.model_loaded.connect(loaded.append)
    worker.load_model(LoadRequest(source="k2-fsa/OmniVoice", device="cpu", precision="fp32"))
    assert loaded == [] and missing == ["k2-fsa/OmniVoice"]  # half a download is not a model
    (folder / COMPLETE).write_text("abc")
    worker.load_model(LoadRequest(source="k2-fsa/OmniVoice", device="cpu", precision="fp32"))
    assert len(loaded) == 1 and loaded[0].source == "k2-fsa/OmniVoice"
    worker.release()


def test_a_chosen_folder_is_checked_with_one_sentence(qapp, tmp_path, tiny_checkpoint):
    worker = InferenceWorker(data_dir=tmp_path / "data")
    answers = []
    worker.folder_checked.connect(lambda folder, sentence: answers.append((folder, sentence)))
    empty = tmp_path / "Downloads"
    empty.mkdir()
    broken = tmp_path / "copy"
    shutil.copytree(tiny_checkpoint, broken)
    (broken / "model.safetensors").unlink()
    for folder in (empty, broken, tiny_checkpoint):
        worker.check_folder(str(folder))
    assert answers[0] == (str(empty), f"{empty} does not hold an OmniVoice model; choose the "
                          "folder with config.json, model.safetensors and audio_tokenizer/ in it.")
    assert answers[1][1].startswith(f"The checkpoint is missing {broken / 'model.safetensors'};")
    assert answers[2] == (str(tiny_checkpoint), "")
