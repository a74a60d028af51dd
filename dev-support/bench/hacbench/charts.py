"""Saving charts small enough to keep in the repository (benchmarks/ is capped at 20 %)."""

from __future__ import annotations

import io
from pathlib import Path

# A line or bar chart uses a handful of colours; 64 keep matplotlib's antialiasing smooth.
COLOURS = 64


def save(fig, path: Path, dpi: int = 110) -> None:
    """Writes FIG as a PNG of at most COLOURS colours: about a third of matplotlib's RGBA file,
    looking the same."""
    from PIL import Image  # matplotlib's own dependency

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    buf.seek(0)
    image = Image.open(buf).convert("RGB")
    image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
