"""vision.hexnet: the learned hex reader's network in numpy, its weights and its readings."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.hexnet import conv3x3, depthwise3x3, pointwise


def _naive_conv(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, dilation: int, depthwise: bool
) -> np.ndarray:
    n, h, wd, c = x.shape
    d = dilation
    pad = d
    ho, wo = (h - 1) // stride + 1, (wd - 1) // stride + 1
    xp = np.zeros((n, h + 2 * pad, wd + 2 * pad, c), np.float64)
    xp[:, pad : pad + h, pad : pad + wd] = x
    cout = c if depthwise else w.shape[-1]
    out = np.zeros((n, ho, wo, cout))
    for i in range(ho):
        for j in range(wo):
            for dy in range(3):
                for dx in range(3):
                    v = xp[:, i * stride + dy * d, j * stride + dx * d, :]
                    out[:, i, j, :] += v * w[dy, dx] if depthwise else v @ w[dy, dx]
    return out + b


shapes = st.tuples(st.integers(1, 3), st.integers(3, 9), st.integers(3, 9), st.integers(1, 5))


@settings(max_examples=40, deadline=None)
@given(shapes, st.integers(1, 4), st.sampled_from([1, 2]), st.integers(0, 2**31 - 1))
def test_full_convolution_is_the_plain_sum(
    shape: tuple[int, int, int, int], cout: int, stride: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(np.float32)
    w = rng.normal(size=(3, 3, shape[3], cout)).astype(np.float32)
    b = rng.normal(size=cout).astype(np.float32)
    got = conv3x3(x, w, b, stride)
    assert np.allclose(got, _naive_conv(x, w, b, stride, 1, False), atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(shapes, st.sampled_from([1, 2]), st.sampled_from([1, 2, 3]), st.integers(0, 2**31 - 1))
def test_depthwise_convolution_is_the_plain_sum(
    shape: tuple[int, int, int, int], stride: int, dilation: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(np.float32)
    w = rng.normal(size=(3, 3, shape[3])).astype(np.float32)
    b = rng.normal(size=shape[3]).astype(np.float32)
    got = depthwise3x3(x, w, b, stride, dilation)
    assert np.allclose(got, _naive_conv(x, w, b, stride, dilation, True), atol=1e-4)


def test_pointwise_is_a_matrix_product_per_pixel() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 4, 5, 6)).astype(np.float32)
    w = rng.normal(size=(6, 3)).astype(np.float32)
    b = rng.normal(size=3).astype(np.float32)
    got = pointwise(x, w, b)
    assert np.allclose(got, np.einsum("nhwc,cd->nhwd", x, w) + b, atol=1e-5)
