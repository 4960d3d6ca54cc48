"""Camera sources: image files, video files, the simulated camera, picamera2 with a fake module."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.hardware.camera import (
    CameraConfig,
    CameraError,
    ImageFileSource,
    Picamera2Camera,
    SimulatedCamera,
    VideoFileSource,
    open_camera,
)
from vision.board import board_from_title


def test_image_files_cycle(tmp_path: Path) -> None:
    paths = []
    for i in range(2):
        p = tmp_path / f"{i}.png"
        cv2.imwrite(str(p), np.full((20, 30, 3), 50 * (i + 1), np.uint8))
        paths.append(p)
    cam = ImageFileSource(paths)
    frames = [cam.read() for _ in range(3)]
    assert [int(f[0, 0, 0]) for f in frames] == [50, 100, 50]
    assert frames[0].shape == (20, 30, 3)
    once = ImageFileSource(paths[:1], loop=False)
    once.read()
    with pytest.raises(CameraError, match="no more images"):
        once.read()
    with pytest.raises(CameraError, match="cannot read image"):
        ImageFileSource([tmp_path / "missing.png"])
    cam2 = open_camera(f"image:{paths[1]}")
    assert int(cam2.read()[0, 0, 0]) == 100
    cam2.close()


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    assert writer.isOpened()
    for i in range(3):
        writer.write(np.full((48, 64, 3), 40 + 60 * i, np.uint8))
    writer.release()
    cam = VideoFileSource(path)
    values = [int(cam.read().mean()) for _ in range(3)]
    assert values[0] < values[1] < values[2]
    with pytest.raises(CameraError, match="end of video"):
        cam.read()
    cam.close()
    looping = open_camera(f"video:{path}")
    assert isinstance(looping, VideoFileSource)
    with pytest.raises(CameraError, match="does not exist"):
        VideoFileSource(tmp_path / "nope.avi")


def test_simulated_camera_is_deterministic() -> None:
    board = board_from_title("1870", {"F13": ("9", 2)})
    a = SimulatedCamera(board, seed=5, size=(640, 480))
    b = SimulatedCamera(board, seed=5, size=(640, 480))
    fa, fb = a.read(), b.read()
    assert fa.shape == (480, 640, 3) and fa.dtype == np.uint8
    assert np.array_equal(fa, fb)
    assert not np.array_equal(a.read(), fa)  # the next frame is a new photo
    a.close()
    with pytest.raises(CameraError, match="closed"):
        a.read()
    with pytest.raises(CameraError, match="needs a board"):
        open_camera("sim")
    assert isinstance(open_camera("sim", board=board), SimulatedCamera)


def test_unknown_camera_spec() -> None:
    with pytest.raises(CameraError, match="unknown camera"):
        open_camera("webcam9")
    with pytest.raises(CameraError, match="bad camera index"):
        open_camera("usb:x")


class _FakePicamera2:
    instances: list[_FakePicamera2] = []

    def __init__(self) -> None:
        self.config: Any = None
        self.started = False
        self.closed = False
        _FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {"main": main, **kwargs}

    def configure(self, config: Any) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_array(self, stream: str) -> np.ndarray:
        assert stream == "main" and self.started
        w, h = self.config["main"]["size"]
        return np.full((h, w, 4), 7, np.uint8)  # XBGR-style 4-channel buffer

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


def test_picamera2_adapter_with_fake_module(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    cam = Picamera2Camera(CameraConfig(resolution=(320, 240)))
    fake = _FakePicamera2.instances[-1]
    assert fake.config["main"] == {"size": (320, 240), "format": "RGB888"}
    frame = cam.read()
    assert frame.shape == (240, 320, 3) and int(frame[0, 0, 0]) == 7
    cam.close()
    assert fake.closed
    with pytest.raises(CameraError, match="closed"):
        cam.read()
    assert CameraConfig().resolution == (1640, 1232)


def test_picamera2_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        Picamera2Camera()
