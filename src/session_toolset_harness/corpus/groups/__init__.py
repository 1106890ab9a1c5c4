"""One module per vector group; each exposes ``vectors() -> list[Vector]``."""
