"""Image recognition: the model's vision, Tesseract OCR, and the ``auto`` mode between them.

>>> def describe(source):
...     return "A bar chart of monthly sales."
>>> recognizer = ImageRecognizer(vision=describe, supports_vision=True)
>>> done = recognizer.recognize(ImageRecord(id="i1", source=ImageSource.from_url("https://example.com/c.png")))
>>> done.state, done.recognized_by, done.analysis
('recognized', 'vision', 'A bar chart of monthly sales.')

Theory of operation. ``ImageRecognizer.recognize`` takes a pending (or failed, to retry)
``ImageRecord`` and returns a new one. The record's ``mode`` decides: ``vision`` calls the vision
callable (the caller's bridge to a model that can see) and needs ``supports_vision``; ``ocr``
runs the OCR engine; ``auto`` tries vision first when the model supports it, falls back to OCR
when vision fails, and goes straight to OCR when the model has no vision, telling the caller so
through ``on_notice`` (and the ``agentmsg.io.recognition`` logger). ``recognized_by`` records the
mode actually used. Every failure (no tesseract, an unreadable image, a vision error) gives a
failed record with a clear error; nothing escapes, so the caller can retry.

``TesseractOcr`` runs the real ``tesseract`` command with ``subprocess``: the image bytes go in on
stdin (never a path: given a text file, tesseract would read the files it lists, so only known
image formats are passed), TSV comes out on stdout and gives the words, their layout and a
confidence per word. The text is rebuilt line by line; the confidence is the mean over the
words (0..1). Tesseract cannot name a language from one model; with several candidate languages
the one that reads the image with the best confidence is reported, else the script found by
orientation and script detection (``--psm 0``) as ``"script:Latin"``, else ``"unknown"``.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .._images import decode_base64, sniff, split_data_url
from ..content import ImageSource
from ..errors import ProcessingError
from ..records import ImageRecord
from .files import FileAccessError, _read_fd, open_confined

__all__ = [
    "OcrError",
    "OcrResult",
    "OcrEngine",
    "TesseractOcr",
    "Recognizer",
    "ImageRecognizer",
    "image_bytes",
]

log = logging.getLogger(__name__)

_MAX_IMAGE_BYTES = 20 * 1024 * 1024


# Tesseract's OpenMP threads slow it down on small images; one thread unless the caller chose.
_ENV = {} if "OMP_THREAD_LIMIT" in os.environ else {**os.environ, "OMP_THREAD_LIMIT": "1"}


class OcrError(ProcessingError):
    """OCR could not read an image; ``code`` says why.

    >>> OcrError("tesseract is not installed", "missing").code
    'missing'

    Codes: ``missing`` (no tesseract command), ``source`` (no image bytes to read: an http URL,
    a missing file), ``format`` (not a known image format), ``failed`` (tesseract exited with
    an error), ``timeout``.
    """


@dataclass(frozen=True, slots=True)
class OcrResult:
    """Hold what OCR read: the text, the mean word confidence (0..1, None without words), the language.

    >>> OcrResult("Hello", 0.96, "unknown")
    OcrResult(text=<5 chars>, confidence=0.96, language='unknown')
    """

    text: str
    confidence: float | None
    language: str

    def __repr__(self) -> str:
        return f"OcrResult(text=<{len(self.text)} chars>, confidence={self.confidence}, language={self.language!r})"


@runtime_checkable
class OcrEngine(Protocol):
    """Read text from image bytes (what ``ImageRecognizer`` needs from an OCR engine).

    >>> class Fixed:
    ...     def read(self, data: bytes) -> OcrResult:
    ...         return OcrResult("42", 0.9, "unknown")
    >>> isinstance(Fixed(), OcrEngine), isinstance(TesseractOcr(), OcrEngine)
    (True, True)
    """

    def read(self, data: bytes) -> OcrResult:
        """Return the text in the image, raising ``OcrError``."""
        ...


@runtime_checkable
class Recognizer(Protocol):
    """Turn a pending ``ImageRecord`` into a recognized or failed one.

    >>> isinstance(ImageRecognizer(), Recognizer)
    True
    """

    def recognize(self, record: ImageRecord) -> ImageRecord:
        """Return a new record with the results (or the error)."""
        ...


def image_bytes(
    source: ImageSource,
    root: str | None = None,
    max_bytes: int = _MAX_IMAGE_BYTES,
    *,
    confine_absolute: bool = True,
) -> bytes:
    """Return the bytes of an image source (a file, base64 data or a ``data:`` URL), raising ``OcrError``.

    >>> image_bytes(ImageSource.from_base64("R0lGODlhAQABAAAAACw=", "image/gif"))[:6]
    b'GIF89a'
    >>> try:
    ...     image_bytes(ImageSource.from_url("https://example.com/a.png"))
    ... except OcrError as exc:
    ...     print(exc)
    OCR needs the image's bytes: give a file or base64 source (http URLs are not downloaded)

    A file is opened by the rules of ``FileResolver``: confined to ``root`` (an absolute path
    too, unless ``confine_absolute=False``), symbolic links resolved without leaving it, never
    blocking on a FIFO, a regular file of at most ``max_bytes``.
    """
    if source.type == "base64":
        return _b64(source.data or "")
    if source.type == "url":
        parts = split_data_url(source.url or "")
        if parts is not None:
            return _b64(parts[1])
        raise OcrError(
            "OCR needs the image's bytes: give a file or base64 source (http URLs are not downloaded)", "source"
        )
    try:
        return _read_fd(open_confined(root, source.path or "", confine_absolute), max_bytes)
    except FileAccessError as exc:
        if exc.code == "not_found":
            raise OcrError("the image file does not exist", "source") from None
        if exc.code == "directory":
            raise OcrError("the image path is a directory", "source") from None
        if exc.code == "too_large":
            raise OcrError(f"the image is over the limit of {max_bytes} bytes", "source") from None
        raise OcrError(f"the image file could not be read: {exc.message}", "source") from None


def _b64(payload: str) -> bytes:
    try:
        return decode_base64(payload)
    except ValueError:
        raise OcrError("the image data is not valid base64", "source") from None


class TesseractOcr:
    """Run the ``tesseract`` command on image bytes: text, mean confidence and language.

    >>> ocr = TesseractOcr(languages=("eng", "deu"), timeout=30)
    >>> ocr
    TesseractOcr(command='tesseract', languages=('eng', 'deu'))
    >>> try:
    ...     ocr.read(b"plain text, not an image")
    ... except OcrError as exc:
    ...     print(exc)
    not a known image format (PNG, JPEG, GIF, TIFF, BMP, PNM or WebP)

    ``languages`` are Tesseract language codes (their ``.traineddata`` must be installed, as
    Debian's ``tesseract-ocr`` installs ``eng`` and ``osd``). ``psm`` is Tesseract's page
    segmentation mode (3: automatic). ``detect_script`` runs orientation and script detection
    when one language is given.
    """

    def __init__(
        self,
        command: str = "tesseract",
        *,
        languages: Sequence[str] = ("eng",),
        psm: int = 3,
        timeout: float = 60.0,
        detect_script: bool = True,
    ) -> None:
        if isinstance(languages, str) or not languages or not all(
            isinstance(x, str) and x.replace("_", "").isalnum() for x in languages
        ):
            raise TypeError("languages must be a non-empty sequence of Tesseract codes such as ('eng',)")
        self.command = command
        self.languages = tuple(languages)
        self.psm = int(psm)
        self.timeout = float(timeout)
        self.detect_script = bool(detect_script)

    def __repr__(self) -> str:
        return f"TesseractOcr(command={self.command!r}, languages={self.languages!r})"

    def read(self, data: bytes) -> OcrResult:
        """Return the text Tesseract reads in the image ``data``, raising ``OcrError``."""
        if sniff(data) is None:
            raise OcrError("not a known image format (PNG, JPEG, GIF, TIFF, BMP, PNM or WebP)", "format")
        best: tuple[str, float | None, str] | None = None
        for language in self.languages:
            text, confidence = _parse_tsv(self._run(data, ["-l", language, "--psm", str(self.psm), "tsv"]))
            if best is None or (confidence or 0.0) > (best[1] or 0.0):
                best = (text, confidence, language)
        assert best is not None
        text, confidence, language = best
        if len(self.languages) > 1 and text:
            return OcrResult(text, confidence, language)
        return OcrResult(text, confidence, self._script(data) if text and self.detect_script else "unknown")

    def _script(self, data: bytes) -> str:
        try:
            out = self._run(data, ["--psm", "0"])
        except OcrError:  # e.g. "Too few characters": Tesseract cannot tell
            return "unknown"
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Script" and value.strip():
                return f"script:{value.strip()}"
        return "unknown"

    def _run(self, data: bytes, args: list[str]) -> str:
        argv = [self.command, "stdin", "stdout", *args]
        try:
            done = subprocess.run(
                argv, input=data, capture_output=True, timeout=self.timeout, check=False, env=_ENV or None
            )
        except FileNotFoundError:
            raise OcrError(
                f"the OCR command {self.command!r} is not installed (Debian: apt-get install tesseract-ocr)",
                "missing",
            ) from None
        except subprocess.TimeoutExpired:
            raise OcrError(f"tesseract took longer than {self.timeout:g} s", "timeout") from None
        except OSError as exc:
            raise OcrError(f"could not run tesseract ({exc.strerror or type(exc).__name__})", "missing") from None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
            detail = f": {lines[-1][:200]}" if lines else ""
            raise OcrError(f"tesseract could not read the image (exit status {done.returncode}){detail}", "failed")
        return done.stdout.decode("utf-8", "replace")


def _parse_tsv(tsv: str) -> tuple[str, float | None]:
    """Rebuild the text from Tesseract's TSV (one line per text line, a blank line between blocks)."""
    lines: list[tuple[tuple[str, str, str], tuple[str, str, str, str], list[str]]] = []
    scores: list[float] = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        word = cols[11].strip()
        if not word:
            continue
        try:
            conf = float(cols[10])
        except ValueError:
            conf = -1.0
        if conf >= 0:
            scores.append(conf)
        par = (cols[1], cols[2], cols[3])
        key = (cols[1], cols[2], cols[3], cols[4])
        if lines and lines[-1][1] == key:
            lines[-1][2].append(word)
        else:
            lines.append((par, key, [word]))
    out: list[str] = []
    for index, (par, _, words) in enumerate(lines):
        if index and lines[index - 1][0] != par:
            out.append("")
        out.append(" ".join(words))
    confidence = round(sum(scores) / len(scores) / 100.0, 4) if scores else None
    if confidence is not None:
        confidence = min(max(confidence, 0.0), 1.0)
    return "\n".join(out), confidence


Vision = Callable[[ImageSource], str]


class ImageRecognizer:
    """Recognize ``ImageRecord`` records with the model's vision, OCR, or ``auto`` between them.

    >>> recognizer = ImageRecognizer(supports_vision=False)
    >>> record = ImageRecord(id="i2", source=ImageSource.from_url("https://example.com/a.png"), mode="vision")
    >>> recognizer.recognize(record).error
    "the model does not support vision; use mode 'ocr' or 'auto'"

    ``vision(source) -> str`` returns the model's analysis of the image; ``supports_vision`` says
    whether the current model can see. ``ocr`` is the OCR engine (default ``TesseractOcr()``).
    ``on_notice(record, message)`` is told when ``auto`` had to use OCR (no vision, or vision
    failed), so the user can be informed. ``root`` is the workspace image files are confined to
    (``confine_absolute=False`` lets absolute paths read anywhere, an explicit opt-in).
    """

    def __init__(
        self,
        vision: Vision | None = None,
        *,
        supports_vision: bool = False,
        ocr: OcrEngine | None = None,
        on_notice: Callable[[ImageRecord, str], None] | None = None,
        root: str | None = None,
        confine_absolute: bool = True,
    ) -> None:
        self.vision = vision
        self.supports_vision = bool(supports_vision)
        self.ocr: OcrEngine = TesseractOcr() if ocr is None else ocr
        self.on_notice = on_notice
        self.root = root
        self.confine_absolute = bool(confine_absolute)

    def __repr__(self) -> str:
        return f"ImageRecognizer(supports_vision={self.supports_vision}, ocr={self.ocr!r})"

    @property
    def can_see(self) -> bool:
        """Return True when vision is both supported by the model and provided."""
        return self.supports_vision and self.vision is not None

    def recognize(self, record: ImageRecord) -> ImageRecord:
        """Return ``record`` recognized (recording the mode used) or failed; a recognized one is unchanged."""
        if not isinstance(record, ImageRecord):
            raise TypeError(f"expected an ImageRecord, got {type(record).__name__}")
        if record.state == "recognized":
            return record
        if record.mode == "vision":
            if not self.can_see:
                return record.fail("the model does not support vision; use mode 'ocr' or 'auto'")
            analysis, error = self._see(record)
            return record.fail(error) if analysis is None else record.with_vision(analysis)
        if record.mode == "ocr":
            return self._read(record)
        if not self.can_see:
            self._notice(record, "the model has no vision, so the image was read with OCR")
            return self._read(record)
        analysis, error = self._see(record)
        if analysis is not None:
            return record.with_vision(analysis)
        self._notice(record, f"{error}; fell back to OCR")
        done = self._read(record)
        if done.state == "failed":
            return record.fail(f"{error}; OCR fallback failed too: {done.error}")
        return done

    def _see(self, record: ImageRecord) -> tuple[str | None, str]:
        assert self.vision is not None
        try:
            analysis = self.vision(record.source)
        except Exception as exc:  # the caller's model bridge may fail in any way
            text = str(exc)[:200]
            return None, f"vision failed ({type(exc).__name__}{': ' + text if text else ''})"
        if not isinstance(analysis, str):
            return None, f"vision failed (the callable returned {type(analysis).__name__}, not str)"
        return analysis, ""

    def _read(self, record: ImageRecord) -> ImageRecord:
        try:
            result = self.ocr.read(image_bytes(record.source, self.root, confine_absolute=self.confine_absolute))
        except OcrError as exc:
            return record.fail(f"OCR failed: {exc.message}")
        return record.with_ocr(result.text, confidence=result.confidence, language=result.language)

    def _notice(self, record: ImageRecord, message: str) -> None:
        log.info("image %s: %s", record.id, message)
        if self.on_notice is not None:
            self.on_notice(record, message)
