"""Settings view: every declared setting is editable and written through Settings, env
overrides are read-only and say so, the acceleration combo shows what this machine
can run, and the model download confirms the license and runs off the GUI thread."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QComboBox, QLineEdit, QMessageBox
from studio_fakes import CPU_ONLY, PLAYABLE, SILENT, make_settings

from studio.engine.accel_probe import probe
from studio.engine.checkpoint import LICENSE_NOTICE
from studio.errors import UserError
from studio.settings import SETTINGS, Settings
from studio.views.model_download import DOWNLOAD_FAILED, confirm_license, looks_like_repo
from studio.views.settings_view import SettingsView


def make_view(qtbot, settings: Settings, **kwargs) -> SettingsView:
    kwargs.setdefault("probe", lambda: CPU_ONLY)
    kwargs.setdefault("audio_status", PLAYABLE)
    view = SettingsView(settings, **kwargs)
    qtbot.addWidget(view)
    return view


@pytest.fixture
def settings(tmp_path) -> Settings:
    return make_settings(tmp_path / "settings.ini")


@pytest.fixture
def view(qtbot, settings) -> SettingsView:
    return make_view(qtbot, settings)


def test_every_declared_setting_has_a_labelled_control(view):
    assert view.objectName() == "settingsView"
    for setting in SETTINGS:
        control = view.control(setting.key)
        assert control.accessibleName() == setting.label and control.toolTip(), setting.key


def test_controls_write_through_settings(qtbot, view, settings):
    view.deviceCombo.setCurrentIndex(view.deviceCombo.findData("cpu"))
    view.precisionCombo.setCurrentIndex(view.precisionCombo.findData("bf16"))
    view.diskCacheCheck.setChecked(False)
    view.diskItemsSpin.setValue(64)
    view.memoryItemsSpin.setValue(4)
    view.outputCombo.setCurrentIndex(view.outputCombo.findData(3))
    view.asrEdit.setText("openai/whisper-small")
    view.asrEdit.editingFinished.emit()
    view.set_source("/models/OmniVoice")
    assert settings.value("model/device") == "cpu"
    assert settings.value("model/precision") == "bf16"
    assert settings.value("cache/disk") is False
    assert settings.value("cache/disk_items") == 64
    assert settings.value("cache/memory_items") == 4
    assert settings.value("audio/output_device") == 3
    assert settings.value("asr/model") == "openai/whisper-small"
    assert settings.value("model/source") == "/models/OmniVoice"


def test_model_changes_reload_once_and_accel_changes_do_not(qtbot, view):
    with qtbot.waitSignal(view.reload_requested, timeout=2000):
        view.deviceCombo.setCurrentIndex(view.deviceCombo.findData("cpu"))
        view.precisionCombo.setCurrentIndex(view.precisionCombo.findData("fp32"))
    with qtbot.assertNotEmitted(view.reload_requested, wait=600):
        with qtbot.waitSignal(view.accel_requested) as asked:
            view.accelCombo.setCurrentIndex(view.accelCombo.findData("compile"))
    assert asked.args == ["compile"]


def test_values_stored_elsewhere_show_up(view, settings):
    settings.set_value("model/precision", "fp16")
    assert view.precisionCombo.currentData() == "fp16"


def test_env_override_is_read_only_and_named(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_DEVICE", "cuda")
    monkeypatch.setenv("OMNIVOICE_FLASHINFER", "1")
    monkeypatch.setenv("OMNIVOICE_MODEL", "/opt/omnivoice")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    view = make_view(qtbot, settings)
    assert view.deviceCombo.currentData() == "cuda" and not view.deviceCombo.isEnabled()
    assert "OMNIVOICE_DEVICE" in view._notes["model/device"].text()
    assert view._notes["model/device"].isVisibleTo(view)
    assert view.accelCombo.currentData() == "flashinfer" and not view.accelCombo.isEnabled()
    assert "OMNIVOICE_FLASHINFER" in view._notes["accel/mode"].text()
    assert view.sourceEdit.isReadOnly() and view.sourceEdit.text() == "/opt/omnivoice"
    assert not view.browseButton.isEnabled() and not view.downloadButton.isEnabled()
    assert view.precisionCombo.isEnabled()  # not overridden
    assert not view._notes["model/precision"].isVisibleTo(view)
    view.deviceCombo.setCurrentIndex(view.deviceCombo.findData("cpu"))  # even if forced
    assert settings.stored("model/device") == "auto"


def test_session_override_from_the_command_line(qtbot, settings):
    view = make_view(qtbot, settings,
                     session_overrides={"model/source": ("--model", "/tmp/ckpt")})
    assert view.sourceEdit.text() == "/tmp/ckpt" and view.sourceEdit.isReadOnly()
    assert "--model" in view._notes["model/source"].text()


def test_accel_combo_on_this_cpu_machine_disables_accelerated_options(qtbot, settings):
    view = make_view(qtbot, settings, probe=probe)  # the real probe
    combo = view.findChild(QComboBox, "accelCombo")
    assert combo is view.accelCombo
    items = combo.model()
    assert items.item(combo.findData("off")).isEnabled()
    for mode, prefix in (("compile", "compile: "), ("flashinfer", "flashinfer: "),
                         ("flashinfer-graph", "flashinfer: ")):
        row = combo.findData(mode)
        assert not items.item(row).isEnabled(), mode
        reason = items.item(row).toolTip()
        assert reason.startswith(prefix) and "CUDA GPU" in reason, reason
        assert "unavailable" in combo.itemText(row)
    shown = view.accelAvailability.text()
    assert "Needs an NVIDIA GPU" in shown and "no CUDA GPU" not in shown  # said once


def test_accel_state_from_the_worker_is_shown(view):
    view.set_accel_state(SimpleNamespace(requested="flashinfer", active="off",
                                         reason="flashinfer: package not installed"))
    assert "standard path" in view.accelActive.text()
    assert "flashinfer: package not installed" in view.accelActive.text()


# ---------------------------------------------------------------- the probe itself

class _FakeCuda:
    def __init__(self, capability, archs):
        self._capability, self._archs = capability, archs

    def is_available(self):
        return self._capability is not None

    def get_device_capability(self):
        return self._capability

    def get_arch_list(self):
        return self._archs


def _torch(capability, archs=("sm_80", "sm_86", "sm_90")):
    return SimpleNamespace(cuda=_FakeCuda(capability, list(archs)))


def _spec(*present):
    return lambda name: object() if name in present else None


def test_probe_on_a_hopper_gpu_with_everything_installed():
    result = probe(_torch((9, 0)), _spec("flashinfer", "triton"))
    assert all(ok for ok, _ in result.values()) and all(r is None for _, r in result.values())


def test_probe_names_what_is_missing():
    no_gpu = probe(_torch(None), _spec("triton"))
    assert no_gpu["compile"] == (False, "compile: no CUDA GPU")
    assert no_gpu["flashinfer"] == (False, "flashinfer: package not installed; no CUDA GPU")
    old = probe(_torch((7, 5), ("sm_75", "sm_80")), _spec("flashinfer", "triton"))
    assert old["compile"] == (True, None)
    assert old["flashinfer"] == (False, "flashinfer: GPU sm_75 is older than sm_80")
    new = probe(_torch((12, 0)), _spec("flashinfer", "triton"))
    assert new["compile"] == (False, "compile: GPU sm_120 not in this torch build")
    no_triton = probe(_torch((8, 6)), _spec("flashinfer"))
    assert no_triton["compile"] == (False, "compile: triton not installed")
    assert no_triton["flashinfer-graph"] == (True, None)


def test_probe_accepts_ptx_of_the_same_major():
    result = probe(_torch((9, 0), ("sm_80", "compute_90")), _spec("triton", "flashinfer"))
    assert result["compile"] == (True, None)


# ---------------------------------------------------------------- cache, audio, data

def test_clear_cache_button_emits(qtbot, view):
    with qtbot.waitSignal(view.clear_cache_requested):
        view.clearCacheButton.click()


def test_audio_unavailable_shows_the_reason(qtbot, settings):
    view = make_view(qtbot, settings, audio_status=SILENT)
    assert not view.outputCombo.isEnabled()
    assert view.audioReason.text() == SILENT.reason and view.audioReason.isVisibleTo(view)
    assert view.outputCombo.toolTip() == SILENT.reason


def test_output_devices_are_listed(view):
    names = [view.outputCombo.itemText(i) for i in range(view.outputCombo.count())]
    assert names == ["System default", "Speakers", "HDMI Output"]


def test_data_folder_is_read_only_and_opens(qtbot, settings, tmp_path, monkeypatch):
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    view = make_view(qtbot, settings, data_folder=tmp_path / "data")
    edit = view.findChild(QLineEdit, "dataFolderEdit")
    assert edit.isReadOnly() and edit.text() == str(tmp_path / "data")
    view.openDataButton.click()
    assert opened and opened[0].toLocalFile() == str(tmp_path / "data")
    assert (tmp_path / "data").is_dir()


# ---------------------------------------------------------------- download

def test_looks_like_repo(tmp_path):
    assert looks_like_repo("k2-fsa/OmniVoice")
    assert not looks_like_repo("/models/OmniVoice") and not looks_like_repo("./x/y")
    assert not looks_like_repo("a/b/c") and not looks_like_repo("owner/")


def test_download_needs_the_license_accepted(qtbot, settings):
    asked: list[str] = []
    fetched: list[str] = []
    view = make_view(qtbot, settings, confirm=lambda parent, repo: asked.append(repo) or False,
                     downloader=lambda repo, **_: fetched.append(repo))
    view.downloadButton.click()
    assert asked == ["k2-fsa/OmniVoice"] and fetched == []
    assert not view.is_downloading()


def test_download_runs_off_the_gui_thread_and_reloads(qtbot, settings, tmp_path):
    threads: list[threading.Thread] = []
    gate = threading.Event()

    def fetch(repo: str, **_) -> Path:
        threads.append(threading.current_thread())
        gate.wait(5)
        return tmp_path / "snapshot"

    view = make_view(qtbot, settings, confirm=lambda parent, repo: True, downloader=fetch)
    view.sourceEdit.setText("someone/Voice")
    assert view.start_download()
    assert view.downloadProgress.isVisibleTo(view) and not view.downloadButton.isEnabled()
    gate.set()
    with qtbot.waitSignal(view.download_finished, timeout=5000) as done:
        pass
    assert done.args == [str(tmp_path / "snapshot")]
    assert threads and threads[0] is not threading.main_thread()
    assert settings.value("model/source") == "someone/Voice"
    qtbot.waitSignal(view.reload_requested, timeout=2000).wait()
    assert not view.downloadProgress.isVisibleTo(view)
    assert view.downloadMessage.text() == "Downloaded someone/Voice."


def test_offline_download_failure_is_one_sentence_inline(qtbot, settings):
    sentence = ("Cannot download k2-fsa/OmniVoice from the Hugging Face hub (ConnectError); "
                "check your connection and run the download again, it resumes where it stopped.")

    def offline(repo: str, **_) -> Path:
        raise UserError(sentence)

    view = make_view(qtbot, settings, confirm=lambda parent, repo: True, downloader=offline)
    view.start_download()
    qtbot.waitUntil(lambda: view.downloadMessage.isVisibleTo(view), timeout=5000)
    assert view.downloadMessage.text() == sentence and view.downloadMessage.is_error()
    assert view.downloadButton.isEnabled()


def test_a_download_error_goes_once_a_model_is_ready(qtbot, settings):
    """Issue 25: the red error stayed after a model folder was chosen and loaded."""
    def offline(repo: str, **_) -> Path:
        raise UserError("Cannot download k2-fsa/OmniVoice: offline.")

    view = make_view(qtbot, settings, confirm=lambda parent, repo: True, downloader=offline)
    view.start_download()
    qtbot.waitUntil(lambda: view.downloadMessage.isVisibleTo(view), timeout=5000)
    view.set_model_ready(False)  # still loading: the error stays
    assert view.downloadMessage.isVisibleTo(view)
    view.set_model_ready(True)
    assert not view.downloadMessage.isVisibleTo(view) and not view.downloadMessage.is_error()


def test_unexpected_download_failure_points_at_the_log(qtbot, settings):
    def broken(repo: str, **_) -> Path:
        raise RuntimeError("boom")

    view = make_view(qtbot, settings, confirm=lambda parent, repo: True, downloader=broken)
    view.start_download()
    qtbot.waitUntil(lambda: view.downloadMessage.isVisibleTo(view), timeout=5000)
    assert view.downloadMessage.text() == DOWNLOAD_FAILED


def test_license_dialog_shows_the_notice(qtbot, monkeypatch):
    shown: list[str] = []

    def fake_exec(box: QMessageBox) -> int:
        shown.append(box.informativeText())
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    assert confirm_license(None, "k2-fsa/OmniVoice") is False  # nothing clicked: no download
    assert shown == [LICENSE_NOTICE]


def test_a_mistyped_override_is_ignored_and_said(qtbot, tmp_path):
    environ = {"OMNIVOICE_FLASHINFER": "maybe", "OMNIVOICE_DEVICE": "gpu",
               "OMNIVOICE_PRECISION": "BF16"}
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        environ=environ)
    assert settings.value("accel/mode") == "off" and settings.value("model/device") == "auto"
    assert settings.value("model/precision") == "bf16"  # any case is a valid value
    assert settings.override("model/device") is None
    assert settings.problems() == [
        "OMNIVOICE_DEVICE must be one of auto, cpu, cuda, mps; got 'gpu', so it is ignored and "
        "the saved setting is used.",
        "OMNIVOICE_FLASHINFER must be 1/on/true or 0/off/false; got 'maybe'; it is ignored and "
        "the saved setting is used.",
    ]
    view = make_view(qtbot, settings)
    assert view.deviceCombo.isEnabled(), "an ignored variable locks nothing"
    note = view._notes["model/device"]
    assert note.isVisibleTo(view) and note.text() == settings.problem("model/device")
    assert not view.precisionCombo.isEnabled()  # BF16 is a real override


def test_model_rows_fit_the_narrowest_view(qtbot, settings):
    """Issue 25: at 1024x640 the Model path showed only "w-model" and Precision went under
    its label, unlike every other row."""
    from PySide6.QtWidgets import QLabel

    from studio.views.main_window import VIEW_MIN_WIDTH

    view = make_view(qtbot, settings)
    view.resize(VIEW_MIN_WIDTH, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)
    assert view.sourceEdit.width() >= view.sourceEdit.fontMetrics().horizontalAdvance("x" * 28)
    for combo in (view.deviceCombo, view.precisionCombo):
        label = next(w for w in view.findChildren(QLabel) if w.buddy() is combo)
        top = combo.mapTo(view, combo.rect().topLeft())
        beside = label.mapTo(view, label.rect().topRight())
        assert top.x() > beside.x() and abs(top.y() - beside.y()) < combo.height(), label.text()


# Each row the header names, and how its new value reaches the settings: the header must
# say of each what it does (a review found it promising a reload that precision asks about).
_RELOAD_ROWS = {
    "model/device": lambda v: v.deviceCombo.setCurrentIndex(v.deviceCombo.findData("cpu")),
    "model/precision": lambda v: v.precisionCombo.setCurrentIndex(
        v.precisionCombo.findData("fp32")),
    "model/source": lambda v: v.set_source("/models/Other"),
    "cache/disk": lambda v: v.diskCacheCheck.setChecked(not v.diskCacheCheck.isChecked()),
    "cache/disk_items": lambda v: v.diskItemsSpin.setValue(v.diskItemsSpin.value() + 1),
    "cache/memory_items": lambda v: v.memoryItemsSpin.setValue(v.memoryItemsSpin.value() + 1),
    "asr/model": lambda v: (v.asrEdit.setText("openai/whisper-small"),
                            v.asrEdit.editingFinished.emit()),
}


@pytest.mark.parametrize("key", sorted(_RELOAD_ROWS))
def test_the_header_says_what_each_model_setting_does(qtbot, settings, key):
    from studio.views.settings_view import ASK_FIRST_KEYS, RELOAD_KEYS

    assert set(_RELOAD_ROWS) == RELOAD_KEYS  # every row that reloads is checked here
    view = make_view(qtbot, settings)
    view.set_model_ready(True)  # a model is working: the case the header is about
    header = view.header.text()
    at_once, asking = header.split("; ", 1)  # the two halves of the header's sentence
    with qtbot.assertNotEmitted(view.reload_requested, wait=600) if key in ASK_FIRST_KEYS \
            else qtbot.waitSignal(view.reload_requested, timeout=2000):
        _RELOAD_ROWS[key](view)
    assert view.reloadConfirm.isVisibleTo(view) == (key in ASK_FIRST_KEYS)
    word = {"model/source": "model", "asr/model": "transcription model"}.get(
        key, "voice prompt cache" if key.startswith("cache/") else key.split("/")[1])
    said = asking if key in ASK_FIRST_KEYS else at_once  # the half that names the row
    assert any(f"{lead}{word}" in said for lead in ("new ", ", ", "or ")), (key, header)
    assert ("asks first" in said) == (key in ASK_FIRST_KEYS), header
