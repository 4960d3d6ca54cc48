"""Train the learned hex reader (needs PyTorch: ``pip install -e '.[train]'``).

    python -m devtools.training.train DATA_DIR OUT.npz [--epochs N] [--val VAL_DIR]

The network has two towers.  The photo tower turns a hex's photo patch into a map of features
(``FEATURES`` channels on a 15 × 15 grid); the schematic tower turns what a tile's code says is
printed (:mod:`vision.schematic`) into a map of the same shape.  A candidate's score is the sum of
the two maps' product: the photo is compared with what each tile would print, everywhere on the
hex.  Per hex the candidates are the looks that may lie there, the hex's own printed look (no
tile) and "hidden" (a hand or a card over it).  The loss is the cross-entropy of the true
candidate; where part of the hex is hidden, "hidden" is an acceptable answer too.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as fn
from torch import nn

from vision.catalogue import Catalogue, catalogue
from vision.hexnet import FEATURES, NET_FRAME, SCHEMATIC_FRAME

#: a hex this visible is in clear view: its tile must be read
CLEAR = 0.9


class Block(nn.Module):  # type: ignore[misc]
    """Depthwise 3×3 (stride, dilation) + BN + ReLU, pointwise + BN (+ ReLU), optional residual."""

    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1, relu: bool = True) -> None:
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, stride, dilation, dilation, groups=cin, bias=False)
        self.bn1 = nn.BatchNorm2d(cin)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = relu
        self.residual = stride == 1 and cin == cout
        self.stride, self.dilation = stride, dilation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = fn.relu(self.bn1(self.dw(x)))
        y = self.bn2(self.pw(y))
        if self.residual:
            y = y + x
        return fn.relu(y) if self.relu else y


class Tower(nn.Module):  # type: ignore[misc]
    """A stem (full 3×3 conv), blocks, a pointwise head and a global branch added everywhere."""

    def __init__(self, cin: int, stem: int, stem_stride: int, blocks: Sequence[tuple[int, int, int]]) -> None:
        super().__init__()
        self.stem = nn.Conv2d(cin, stem, 3, stem_stride, 1, bias=False)
        self.bn = nn.BatchNorm2d(stem)
        self.stem_stride = stem_stride
        layers = []
        c = stem
        for cout, stride, dilation in blocks:
            layers.append(Block(c, cout, stride, dilation))
            c = cout
        self.blocks = nn.ModuleList(layers)
        self.head = nn.Conv2d(c, FEATURES, 1)
        self.glob = nn.Linear(c, FEATURES)
        self.width = c

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = fn.relu(self.bn(self.stem(x)))
        for b in self.blocks:
            y = b(y)
        pooled = y.mean(dim=(2, 3))
        return self.head(y) + self.glob(pooled)[:, :, None, None], pooled


PHOTO_BLOCKS = ((48, 2, 1), (64, 1, 1), (64, 1, 1), (64, 1, 2), (96, 1, 3))
SCHEMATIC_BLOCKS = ((48, 1, 1), (64, 1, 2))


class HexNet(nn.Module):  # type: ignore[misc]
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.photo = Tower(3, 24, 2, PHOTO_BLOCKS)
        self.schematic = Tower(channels, 24, 2, SCHEMATIC_BLOCKS)
        self.bias = nn.Linear(self.schematic.width, 1)
        grid = NET_FRAME.size // 4
        self.hidden = nn.Parameter(torch.zeros(FEATURES, grid, grid))
        self.hidden_bias = nn.Parameter(torch.zeros(1))
        self.scale = nn.Parameter(torch.tensor(1.0 / math.sqrt(FEATURES * grid * grid)))

    def candidates(self, schematics: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        g, pooled = self.schematic(schematics)
        return g, self.bias(pooled)[:, 0]

    def scores(self, photos: torch.Tensor, g: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        f, _ = self.photo(photos)
        flat_f = f.flatten(1)
        allg = torch.cat([g.flatten(1), self.hidden.flatten()[None]], 0)
        allb = torch.cat([bias, self.hidden_bias])
        return (flat_f @ allg.T) * self.scale + allb


# ---------------------------------------------------------------- data


class Data:
    def __init__(self, folder: Path, titles: Sequence[str] | None = None) -> None:
        files = sorted(folder.glob("*.npz"))
        if not files:
            raise FileNotFoundError(f"no .npz shards in {folder}")
        # the patches go straight into one array (a concatenation would hold them twice)
        keys = ("title", "hex", "tile", "rotation", "visible", "look")
        parts: dict[str, list[np.ndarray]] = {k: [] for k in keys}
        for f in files:
            with np.load(f) as d:
                for k in keys:
                    parts[k].append(d[k])
        arrays = {k: np.concatenate(v) for k, v in parts.items()}
        keep = np.isin(arrays["title"], list(titles)) if titles else np.ones(len(arrays["title"]), bool)
        patches = np.empty((int(keep.sum()), NET_FRAME.size, NET_FRAME.size, 3), np.uint8)
        start = end = 0
        for f, titles_of in zip(files, parts["title"], strict=True):
            sel = keep[start : start + len(titles_of)]
            start += len(titles_of)
            if sel.any():
                with np.load(f) as d:
                    chunk = d["patches"][sel]
                patches[end : end + len(chunk)] = chunk
                end += len(chunk)
        arrays = {k: v[keep] for k, v in arrays.items()}
        arrays["patches"] = patches
        self.patches = torch.from_numpy(arrays["patches"])  # uint8 (N, H, W, 3)
        self.title = arrays["title"]
        self.look = arrays["look"]
        self.visible = arrays["visible"]
        self.cats: dict[str, Catalogue] = {t: catalogue(str(t), SCHEMATIC_FRAME) for t in set(self.title)}
        hex_index = {t: {h: i for i, h in enumerate(c.hexes)} for t, c in self.cats.items()}
        self.hex = np.array([hex_index[t][h] for t, h in zip(self.title, arrays["hex"], strict=True)])
        # truth: the look index, or -1 for no tile
        truth = np.full(len(self.title), -1, np.int64)
        for i, (t, tile, rot) in enumerate(zip(self.title, arrays["tile"], arrays["rotation"], strict=True)):
            if tile:
                truth[i] = self.cats[t].look_of(str(tile), int(rot))
        self.truth = truth
        self.by_title = {t: np.flatnonzero(self.title == t) for t in self.cats}

    def __len__(self) -> int:
        return len(self.title)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Photo patches (B, 3, H, W) in 0..1: light, colour cast, gamma, blur, noise, a small shift and
    turn (a tile a little off its hex, the registration a pixel off)."""
    b = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand((b, *shape), generator=gen)

    x = x * u(0.75, 1.25, 1, 1, 1) * u(0.93, 1.07, 3, 1, 1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.8, 1.2, 1, 1, 1) + mean
    x = x.clamp(0, 1.2) ** u(0.8, 1.25, 1, 1, 1)
    # a small shift, turn and scale
    ang = u(-0.07, 0.07)
    sc = u(0.96, 1.04)
    tx, ty = u(-0.06, 0.06), u(-0.06, 0.06)
    cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    grid = fn.affine_grid(theta, list(x.shape), align_corners=False)
    x = fn.grid_sample(x, grid, padding_mode="border", align_corners=False)
    # blur a third of them
    sigma = float(torch.empty(1).uniform_(0.5, 1.2, generator=gen))
    k = torch.exp(-((torch.arange(5) - 2.0) ** 2) / (2 * sigma**2))
    k = (k / k.sum()).to(x.dtype)
    blurred = fn.conv2d(
        fn.pad(x, (2, 2, 0, 0), mode="replicate"), k.view(1, 1, 1, 5).repeat(3, 1, 1, 1), groups=3
    )
    blurred = fn.conv2d(
        fn.pad(blurred, (0, 0, 2, 2), mode="replicate"), k.view(1, 1, 5, 1).repeat(3, 1, 1, 1), groups=3
    )
    pick = (torch.rand(b, 1, 1, 1, generator=gen) < 0.33).to(x.dtype)
    x = pick * blurred + (1 - pick) * x
    x = x + torch.randn(x.shape, generator=gen) * u(0.0, 0.03, 1, 1, 1)
    return x


def to_input(patches: torch.Tensor) -> torch.Tensor:
    """uint8 (B, H, W, 3) → float (B, 3, H, W), 0..1."""
    return patches.permute(0, 3, 1, 2).float() / 255.0


def batch_loss(
    net: HexNet, data: Data, idx: np.ndarray, gen: torch.Generator | None, schem: dict[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Loss, predictions and targets of samples ``idx`` (all of one title)."""
    title = str(data.title[idx[0]])
    cat = data.cats[title]
    k = len(cat.looks)
    hexes = data.hex[idx]
    uniq, inverse = np.unique(hexes, return_inverse=True)
    s = torch.cat([schem[title], torch.from_numpy(cat.empties[uniq])], 0)
    g, bias = net.candidates(s)
    x = to_input(data.patches[torch.from_numpy(idx)])
    if gen is not None:
        x = augment(x, gen)
    scores = net.scores(x - 0.5, g, bias)  # (B, K + U + 1)
    b = len(idx)
    allowed = torch.zeros(b, k + len(uniq) + 1, dtype=torch.bool)
    allowed[:, :k] = torch.from_numpy(cat.allowed[hexes])
    allowed[torch.arange(b), k + torch.from_numpy(inverse)] = True
    allowed[:, -1] = True
    truth = data.truth[idx]
    target = torch.from_numpy(np.where(truth >= 0, truth, k + inverse))
    # a tile that may not lie on its hex (a wrong tile laid) is still a candidate for its own photo
    allowed[torch.arange(b), target] = True
    scores = scores.masked_fill(~allowed, -1e4)
    logp = fn.log_softmax(scores, dim=1)
    true_lp = logp[torch.arange(b), target]
    hidden_lp = logp[:, -1]
    clear = torch.from_numpy(data.visible[idx] >= CLEAR)
    either = torch.logsumexp(torch.stack([true_lp, hidden_lp]), 0)
    loss = torch.where(clear, -true_lp, -either).mean()
    pred = scores.argmax(1)
    # predictions as: look index, or -1 - (1) no tile, or -3 hidden
    pred_kind = torch.where(pred < k, pred, torch.where(pred == scores.shape[1] - 1, -3, -1))
    return loss, pred_kind, torch.from_numpy(np.where(truth >= 0, truth, -1))


def evaluate(net: HexNet, data: Data, schem: dict[str, torch.Tensor], limit: int = 6000) -> dict[str, Any]:
    net.eval()
    out: dict[str, list[int]] = {}
    with torch.no_grad():
        for _title, rows in data.by_title.items():
            rows = rows[:limit]
            for start in range(0, len(rows), 512):
                idx = rows[start : start + 512]
                _, pred, truth = batch_loss(net, data, idx, None, schem)
                for look, p, t, v in zip(
                    data.look[idx], pred.tolist(), truth.tolist(), data.visible[idx], strict=True
                ):
                    if v < CLEAR:
                        continue
                    res = out.setdefault(str(look), [0, 0, 0])
                    res[0] += 1
                    res[1] += int(p == t)
                    res[2] += int(p == -3)
    net.train()
    return {look: {"n": n, "right": r / n, "hidden": h / n} for look, (n, r, h) in sorted(out.items())}


# ---------------------------------------------------------------- export


def _fold(conv: nn.Conv2d, bn: nn.BatchNorm2d) -> tuple[np.ndarray, np.ndarray]:
    w = conv.weight.detach().double()
    std = torch.sqrt(bn.running_var.double() + bn.eps)
    gamma = bn.weight.detach().double() / std
    wf = w * gamma[:, None, None, None]
    bf = bn.bias.detach().double() - bn.running_mean.double() * gamma
    return wf.float().numpy(), bf.float().numpy()


def export_tower(tower: Tower, prefix: str, out: dict[str, np.ndarray]) -> None:
    w, b = _fold(tower.stem, tower.bn)
    out[f"{prefix}.stem.w"] = w.transpose(2, 3, 1, 0)  # (3, 3, cin, cout)
    out[f"{prefix}.stem.b"] = b
    for i, blk in enumerate(tower.blocks):
        w, b = _fold(blk.dw, blk.bn1)
        out[f"{prefix}.{i}.dw.w"] = w[:, 0].transpose(1, 2, 0)  # (3, 3, c)
        out[f"{prefix}.{i}.dw.b"] = b
        w, b = _fold(blk.pw, blk.bn2)
        out[f"{prefix}.{i}.pw.w"] = w[:, :, 0, 0].T  # (cin, cout)
        out[f"{prefix}.{i}.pw.b"] = b
    out[f"{prefix}.head.w"] = tower.head.weight.detach()[:, :, 0, 0].T.numpy()
    out[f"{prefix}.head.b"] = tower.head.bias.detach().numpy()
    out[f"{prefix}.glob.w"] = tower.glob.weight.detach().T.numpy()
    out[f"{prefix}.glob.b"] = tower.glob.bias.detach().numpy()


def export(net: HexNet, path: Path, meta: dict[str, Any]) -> None:
    out: dict[str, np.ndarray] = {}
    export_tower(net.photo, "photo", out)
    export_tower(net.schematic, "schematic", out)
    out["bias.w"] = net.bias.weight.detach()[0].numpy()
    out["bias.b"] = net.bias.bias.detach().numpy()
    out["hidden"] = net.hidden.detach().permute(1, 2, 0).numpy()  # (grid, grid, features)
    out["hidden_bias"] = net.hidden_bias.detach().numpy()
    out["scale"] = net.scale.detach().numpy().reshape(1)
    arch = {
        "photo": [list(b) for b in PHOTO_BLOCKS],
        "schematic": [list(b) for b in SCHEMATIC_BLOCKS],
        "photo_stem": [24, 2],
        "schematic_stem": [24, 2],
        **meta,
    }
    out["arch"] = np.array(json.dumps(arch))
    savez: Any = np.savez_compressed  # (numpy's stubs take keyword arrays for its own options)
    savez(path, **out)


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--val", type=Path)
    parser.add_argument("--epochs", type=float, default=10.0)
    parser.add_argument("--batch", type=int, default=192)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", type=Path, help="a checkpoint (.pt) to start from")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = Data(args.data)
    val = Data(args.val) if args.val else None
    print(f"{len(data)} training patches; titles {sorted(data.cats)}", flush=True)
    channels = data.cats[next(iter(data.cats))].schematics.shape[1]
    net = HexNet(channels)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    schem = {t: torch.from_numpy(c.schematics) for t, c in data.cats.items()}
    vschem = {t: torch.from_numpy(c.schematics) for t, c in val.cats.items()} if val else {}
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = int(args.epochs * len(data) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    gen = torch.Generator().manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    titles = sorted(data.by_title)
    weights = np.array([len(data.by_title[t]) for t in titles], np.float64)
    start = time.time()
    running = 0.0
    for step in range(steps):
        title = titles[int(rng.choice(len(titles), p=weights / weights.sum()))]
        idx = rng.choice(data.by_title[title], size=args.batch, replace=False)
        loss, _, _ = batch_loss(net, data, idx, gen, schem)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step}/{steps} loss {running:.4f} {time.time() - start:.0f} s", flush=True)
        if val is not None and (step % 2000 == 1999 or step == steps - 1):
            print(json.dumps(evaluate(net, val, vschem)), flush=True)
            torch.save(net.state_dict(), args.out.with_suffix(".pt"))
    net.eval()
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))
    export(net, args.out, {"channels": channels, "trained": time.strftime("%Y-%m-%d")})
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    main()
