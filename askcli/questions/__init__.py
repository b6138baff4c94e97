"""Question state (the pure reducer), the answer grammar, typed values."""
