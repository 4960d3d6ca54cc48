"""Training the learned hex reader (:mod:`vision.hexnet`): synthetic photos of boards in the
training looks (:data:`devtools.looks.TUNED`), and the network's training (needs PyTorch, the
``train`` extra; nothing here is imported at run time)."""
