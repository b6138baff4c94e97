"""The questions layer: the answer-line grammar, the pure reducer, the question kinds."""
