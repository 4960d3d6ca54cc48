"""Development tools beside the product, never installed with it: the benchmarks (``make bench``,
:mod:`devtools.bench`), the board looks the camera is trained and measured on (:mod:`devtools.looks`),
the camera's benchmark (:mod:`devtools.evaluate`, ``python -m devtools.vision_bench``) and the hex
reader's training (:mod:`devtools.training`, ``make train-vision``).

They import the product (``companion``, ``vision``); the product never imports them.  Run them from
the repository's root (``python -m devtools.…``); the tests find them through pytest's ``pythonpath``.
"""
