"""Image recognition: the model's vision, Tesseract OCR, and the ``auto`` mode between them.

The module lives in ``agentmsg.io.recognition`` with the other modules that do I/O; this path keeps
working.
"""

from __future__ import annotations

from .io.recognition import *  # noqa: F403
from .io.recognition import __all__ as __all__
