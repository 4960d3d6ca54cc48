"""Camera sources: every one delivers BGR numpy frames through ``read()``.

* :class:`Picamera2Camera`: the Raspberry Pi camera (``picamera2`` imported
  lazily; its whole configuration is :class:`CameraConfig`, captured straight
  into numpy with ``capture_array``);
* :class:`OpenCVCamera`: a USB camera through ``cv2.VideoCapture``;
* :class:`ImageFileSource` and :class:`VideoFileSource`: recorded photos/videos;
* :class:`SimulatedCamera`: renders a board description and photographs it
  through :mod:`vision.perturb` (perspective, lighting, hands, glare, noise);
  the default off the Pi.

:func:`open_camera` turns a short spec (``picamera2``, ``usb:0``,
``image:PATH``, ``video:PATH``, ``sim``) into a source.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

Frame = NDArray[np.uint8]


class CameraError(RuntimeError):
    """A camera that cannot be opened or read."""


class CameraSource(Protocol):
    """Anything that yields BGR frames (``uint8``, shape ``(h, w, 3)``)."""

    def read(self) -> Frame: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class CameraConfig:
    """The one place the Pi camera is configured."""

    resolution: tuple[int, int] = (1640, 1232)
    format: str = "RGB888"  # picamera2's RGB888 is B,G,R in memory: what OpenCV expects
    buffer_count: int = 2
    controls: tuple[tuple[str, Any], ...] = (("AwbEnable", True), ("AeEnable", True))


def _check(frame: Any, source: str) -> Frame:
    arr = np.asarray(frame)
    if arr.ndim == 3 and arr.shape[2] == 4:
        arr = arr[:, :, :3]
    if arr.ndim != 3 or arr.shape[2] != 3 or arr.dtype != np.uint8:
        raise CameraError(
            f"{source} gave a frame of shape {arr.shape} dtype {arr.dtype}, expected (h, w, 3) uint8"
        )
    return np.ascontiguousarray(arr)


class Picamera2Camera:
    """The Raspberry Pi camera through picamera2 (only importable on a Pi)."""

    def __init__(self, config: CameraConfig | None = None) -> None:
        self.config = config or CameraConfig()
        try:
            module = importlib.import_module("picamera2")
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not installed: on Raspberry Pi OS run 'sudo apt install python3-picamera2' "
                '(or choose another camera in the configuration: [camera] mode = "usb" or "simulated")'
            ) from exc
        self._cam = module.Picamera2()
        cfg = self._cam.create_video_configuration(
            main={"size": tuple(self.config.resolution), "format": self.config.format},
            buffer_count=self.config.buffer_count,
            controls=dict(self.config.controls),
        )
        self._cam.configure(cfg)
        self._cam.start()
        self._closed = False

    def read(self) -> Frame:
        if self._closed:
            raise CameraError("camera is closed")
        return _check(self._cam.capture_array("main"), "picamera2")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._cam.stop()
            self._cam.close()


class OpenCVCamera:
    """A USB (V4L2) camera through OpenCV."""

    def __init__(self, index: int = 0, resolution: tuple[int, int] = (1640, 1232)) -> None:
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise CameraError(f"cannot open camera {index} (is it plugged in? try 'ls /dev/video*')")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])

    def read(self) -> Frame:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError("the camera returned no frame")
        return _check(frame, "camera")

    def close(self) -> None:
        self._cap.release()


class ImageFileSource:
    """Still photos: each ``read()`` returns the next file, cycling when ``loop`` (a still camera)."""

    def __init__(self, paths: Sequence[str | Path], loop: bool = True) -> None:
        if not paths:
            raise CameraError("no image files given")
        self._frames: list[Frame] = []
        for p in paths:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise CameraError(f"cannot read image {p} (missing, or not a PNG/JPEG)")
            self._frames.append(np.asarray(img, dtype=np.uint8))
        self._loop = loop
        self._next = 0

    def read(self) -> Frame:
        if self._next >= len(self._frames):
            if not self._loop:
                raise CameraError("no more images")
            self._next = 0
        frame = self._frames[self._next]
        self._next += 1
        return frame.copy()

    def close(self) -> None:
        self._frames.clear()
        self._next = 0
        self._loop = False


class VideoFileSource:
    """Frames of a video file, in order; ``loop`` starts over at the end."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        if not Path(path).exists():
            raise CameraError(f"video file {path} does not exist")
        self._path = str(path)
        self._cap = cv2.VideoCapture(self._path)
        if not self._cap.isOpened():
            raise CameraError(f"cannot open video {path}")
        self._loop = loop

    def read(self) -> Frame:
        ok, frame = self._cap.read()
        if (not ok or frame is None) and self._loop:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"end of video {self._path}")
        return _check(frame, "video")

    def close(self) -> None:
        self._cap.release()


class SimulatedCamera:
    """Photographs a board description: render, then perspective/lighting/occlusion perturbation.

    ``strength`` 0 is a clean straight-on view; 1 is the full benchmark mix.
    Frames are deterministic for a seed; ``show(board)`` changes what lies on the table.  With
    ``follows_game`` the table is whatever the game's map says, as if the players laid every tile
    they recorded (``sync(game)`` before each look; the app does it).
    """

    def __init__(
        self,
        board: Any,
        seed: int = 0,
        strength: float = 1.0,
        size: tuple[int, int] = (1640, 1232),
        *,
        follows_game: bool = False,
    ) -> None:
        from vision.perturb import random_perturbation

        self._random = random_perturbation
        self._board = board
        self._rng = np.random.default_rng(seed)
        self._strength = strength
        self._size = size
        self._closed = False
        self.last: Any = None

        self.follows_game = follows_game

    def show(self, board: Any) -> None:
        self._board = board

    def sync(self, game: Any) -> None:
        """Put the game's map on the table, if this camera follows the game."""
        if self.follows_game:
            from companion.table.camera import board_from_game

            self._board = board_from_game(game)

    def read(self) -> Frame:
        from vision.perturb import simulate_frame

        if self._closed:
            raise CameraError("camera is closed")
        sim = simulate_frame(self._board, self._random(self._rng, self._strength), self._size)
        self.last = sim
        return sim.image

    def close(self) -> None:
        self._closed = True


def open_camera(spec: str, board: Any = None, seed: int = 0) -> CameraSource:
    """``picamera2`` | ``usb[:INDEX]`` | ``image:PATH[,PATH…]`` | ``video:PATH`` | ``sim`` (needs ``board``)."""
    kind, _, arg = spec.partition(":")
    if kind == "picamera2":
        return Picamera2Camera()
    if kind == "usb":
        try:
            index = int(arg or 0)
        except ValueError:
            raise CameraError(f"bad camera index in {spec!r} (expected usb:0, usb:1, …)") from None
        return OpenCVCamera(index)
    if kind == "image":
        return ImageFileSource([p for p in arg.split(",") if p])
    if kind == "video":
        return VideoFileSource(arg)
    if kind == "sim":
        if board is None:
            raise CameraError("the simulated camera needs a board to photograph")
        return SimulatedCamera(board, seed)
    raise CameraError(f"unknown camera {spec!r}: use picamera2, usb:N, image:PATH, video:PATH or sim")
