"""Image recognition: real Tesseract on committed images, and the vision / OCR / auto mode logic."""

import base64
import pickle
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from agentmsg import ImageSource
from agentmsg.io.recognition import (
    ImageRecognizer,
    OcrEngine,
    OcrError,
    OcrResult,
    Recognizer,
    TesseractOcr,
    image_bytes,
)
from agentmsg.records import ImageRecord, decode

IMAGES = Path(__file__).parent / "data" / "images"
HELLO_WORDS = ["Hello", "Agent", "Invoice", "2041", "total", "42"]
FAST_OCR = TesseractOcr(detect_script=False)  # the mode tests need the words, not the script


def image(name, mode="ocr", id="i1"):
    return ImageRecord(id=id, source=ImageSource.from_path(str(IMAGES / name)), mode=mode)


def in_images(*args, **kwargs):
    """An ImageRecognizer whose workspace is the test images folder (image files are confined to it)."""
    return ImageRecognizer(*args, root=str(IMAGES), **kwargs)


def data(name):
    return (IMAGES / name).read_bytes()


@pytest.fixture(scope="module")
def tesseract():
    return TesseractOcr()


def fake_command(tmp_path, body):
    """Write an executable stand-in for the tesseract command (a small Python script)."""
    script = tmp_path / "fake-tesseract"
    script.write_text(f"#!{sys.executable}\nimport sys, time\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


# --- real Tesseract ----------------------------------------------------------------------------


def test_tesseract_reads_the_words(tesseract):
    result = tesseract.read(data("hello.png"))
    assert result.text.split() == HELLO_WORDS
    assert result.text.splitlines() == ["Hello Agent", "Invoice 2041 total 42"]
    assert 0.8 <= result.confidence <= 1.0
    assert result.language == "unknown"  # one line of text: too little for script detection


def test_tesseract_detects_the_script_of_a_paragraph(tesseract):
    result = tesseract.read(data("paragraph.png"))
    words = result.text.replace(",", " ").replace(".", " ").replace(";", " ").split()
    for word in ["quick", "brown", "fox", "jumps", "lazy", "quartz", "zebras"]:
        assert word in words
    assert len([line for line in result.text.splitlines() if line]) == 6
    assert result.language == "script:Latin"


def test_blank_image_has_no_words(tesseract):
    assert tesseract.read(data("blank.png")) == OcrResult("", None, "unknown")


def test_not_an_image_never_reaches_tesseract(tesseract):
    with pytest.raises(OcrError) as info:
        tesseract.read(data("not_an_image.png"))
    assert info.value.code == "format"


def test_corrupt_image_is_a_tesseract_failure(tesseract):
    with pytest.raises(OcrError) as info:
        tesseract.read(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    assert info.value.code == "failed" and "tesseract could not read the image (exit status" in info.value.message


def test_missing_tesseract():
    with pytest.raises(OcrError) as info:
        TesseractOcr("/nonexistent/tesseract").read(data("hello.png"))
    assert info.value.code == "missing" and "apt-get install tesseract-ocr" in info.value.message
    record = in_images(ocr=TesseractOcr("/nonexistent/tesseract")).recognize(image("hello.png"))
    assert record.state == "failed" and record.error.startswith("OCR failed: the OCR command")


def test_tesseract_timeout(tmp_path):
    command = fake_command(tmp_path, "time.sleep(30)\n")
    with pytest.raises(OcrError) as info:
        TesseractOcr(command, timeout=0.5).read(data("hello.png"))
    assert info.value.code == "timeout"


def test_best_language_wins_among_candidates(tmp_path):
    command = fake_command(
        tmp_path,
        """
        lang = sys.argv[sys.argv.index("-l") + 1]
        conf = {"eng": "61.5", "deu": "93.0"}[lang]
        word = {"eng": "Strasse", "deu": "Straße"}[lang]
        sys.stdin.buffer.read()
        print("level\\tpage_num\\tblock_num\\tpar_num\\tline_num\\tword_num\\tleft\\ttop\\twidth\\theight\\tconf\\ttext")
        print(f"5\\t1\\t1\\t1\\t1\\t1\\t0\\t0\\t9\\t9\\t{conf}\\t{word}")
        """,
    )
    result = TesseractOcr(command, languages=("eng", "deu")).read(data("hello.png"))
    assert result == OcrResult("Straße", 0.93, "deu")


def test_tsv_layout_rebuilds_lines_and_paragraphs(tmp_path):
    rows = [
        "5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tfirst",
        "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tline",
        "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tsecond",
        "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t-1\t ",
        "5\t1\t2\t1\t1\t2\t0\t0\t1\t1\t60\tnext",
        "4\t1\t2\t1\t1\t0\t0\t0\t1\t1\t-1\t",
    ]
    body = "sys.stdin.buffer.read()\nprint('header')\n" + "".join(f"print({r!r})\n" for r in rows)
    result = TesseractOcr(fake_command(tmp_path, body), detect_script=False).read(data("hello.png"))
    assert result.text == "first line\nsecond\n\nnext"
    assert result.confidence == 0.75


def test_image_bytes_from_every_source(tmp_path):
    raw = data("hello.png")
    encoded = base64.b64encode(raw).decode()
    assert image_bytes(ImageSource.from_path(str(IMAGES / "hello.png")), root=str(IMAGES)) == raw
    assert image_bytes(ImageSource.from_path(str(IMAGES / "hello.png")), confine_absolute=False) == raw
    assert image_bytes(ImageSource.from_base64(encoded, "image/png")) == raw
    assert image_bytes(ImageSource.from_url(f"data:image/png;base64,{encoded}")) == raw
    assert image_bytes(ImageSource.from_path("hello.png"), root=str(IMAGES)) == raw
    for source, message in [
        (ImageSource.from_url("https://example.com/a.png"), "http URLs are not downloaded"),
        (ImageSource.from_path(str(tmp_path / "missing.png")), "does not exist"),
        (ImageSource.from_path(str(tmp_path)), "is a directory"),
    ]:
        with pytest.raises(OcrError, match=message) as info:
            image_bytes(source, root=str(tmp_path))
        assert info.value.code == "source"
    with pytest.raises(OcrError, match="over the limit"):
        image_bytes(ImageSource.from_path(str(IMAGES / "hello.png")), root=str(IMAGES), max_bytes=10)


def test_image_files_follow_the_file_resolver_rules(tmp_path):
    """OCR opens image paths confined to the root, refuses to block on a FIFO, and needs a root for absolute paths."""
    import os

    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-secret").mkdir()
    (tmp_path / "ws-secret" / "hello.png").write_bytes(data("hello.png"))
    os.symlink("../ws-secret/hello.png", tmp_path / "ws" / "link.png")
    os.mkfifo(tmp_path / "ws" / "pipe.png")
    root = str(tmp_path / "ws")
    for source, message in [
        (ImageSource.from_path(str(tmp_path / "ws-secret" / "hello.png")), "escapes the workspace root"),
        (ImageSource.from_path("link.png"), "escapes the workspace root through a symbolic link"),
        (ImageSource.from_path("pipe.png"), "not a regular file"),
    ]:
        with pytest.raises(OcrError, match=message) as info:
            image_bytes(source, root=root)
        assert info.value.code == "source"
    with pytest.raises(OcrError, match="needs a workspace root"):
        image_bytes(ImageSource.from_path(str(IMAGES / "hello.png")))
    done = ImageRecognizer(root=root, ocr=FAST_OCR).recognize(
        ImageRecord(id="i", source=ImageSource.from_path("pipe.png"), mode="ocr"))
    assert done.state == "failed" and "not a regular file" in done.error


# --- modes -------------------------------------------------------------------------------------


class Vision:
    """A stand-in for the caller's bridge to a model that can see."""

    def __init__(self, answer="A picture of a greeting.", error=None):
        self.answer, self.error, self.seen = answer, error, []

    def __call__(self, source):
        self.seen.append(source)
        if self.error is not None:
            raise self.error
        return self.answer


def test_ocr_mode_uses_tesseract():
    done = in_images().recognize(image("hello.png", "ocr"))
    assert (done.state, done.recognized_by, done.mode) == ("recognized", "ocr", "ocr")
    assert done.text.split() == HELLO_WORDS and done.confidence > 0.8 and done.language == "unknown"
    assert decode(done.to_dict()) == done


def test_ocr_mode_ignores_vision():
    vision = Vision()
    done = in_images(vision, supports_vision=True, ocr=FAST_OCR).recognize(image("hello.png", "ocr"))
    assert done.recognized_by == "ocr" and vision.seen == []


def test_vision_mode():
    vision = Vision()
    record = image("hello.png", "vision")
    done = in_images(vision, supports_vision=True).recognize(record)
    assert (done.state, done.recognized_by, done.analysis, done.text) == (
        "recognized", "vision", "A picture of a greeting.", None,
    )
    assert vision.seen == [record.source]


def test_vision_mode_without_vision_fails():
    for recognizer in (in_images(Vision(), supports_vision=False), in_images(None, supports_vision=True)):
        done = recognizer.recognize(image("hello.png", "vision"))
        assert done.state == "failed" and done.error == "the model does not support vision; use mode 'ocr' or 'auto'"


def test_vision_error_fails_and_can_be_retried():
    vision = Vision(error=ConnectionError("model unreachable"))
    recognizer = in_images(vision, supports_vision=True)
    failed = recognizer.recognize(image("hello.png", "vision"))
    assert failed.state == "failed" and failed.error == "vision failed (ConnectionError: model unreachable)"
    vision.error = None
    done = recognizer.recognize(failed)
    assert (done.id, done.state, done.recognized_by, done.error) == ("i1", "recognized", "vision", None)
    assert recognizer.recognize(done) is done


def test_vision_returning_something_else_fails():
    done = in_images(lambda source: 42, supports_vision=True).recognize(image("hello.png", "vision"))
    assert done.error == "vision failed (the callable returned int, not str)"


def test_auto_prefers_vision():
    notices = []
    done = in_images(Vision(), supports_vision=True, on_notice=lambda r, m: notices.append(m)).recognize(
        image("hello.png", "auto")
    )
    assert (done.recognized_by, done.mode) == ("vision", "auto") and notices == []


def test_auto_without_vision_uses_ocr_and_says_so(caplog):
    notices = []
    record = image("hello.png", "auto")
    with caplog.at_level("INFO", logger="agentmsg.io.recognition"):
        done = in_images(Vision(), supports_vision=False, on_notice=lambda r, m: notices.append((r.id, m))).recognize(record)
    assert (done.state, done.recognized_by) == ("recognized", "ocr")
    assert done.text.split() == HELLO_WORDS
    assert notices == [("i1", "the model has no vision, so the image was read with OCR")]
    assert "the model has no vision" in caplog.text


def test_auto_falls_back_to_ocr_when_vision_fails():
    notices = []
    recognizer = in_images(
        Vision(error=TimeoutError("slow")), supports_vision=True, ocr=FAST_OCR, on_notice=lambda r, m: notices.append(m)
    )
    done = recognizer.recognize(image("hello.png", "auto"))
    assert (done.state, done.recognized_by) == ("recognized", "ocr") and done.text.split() == HELLO_WORDS
    assert notices == ["vision failed (TimeoutError: slow); fell back to OCR"]


def test_auto_fails_when_both_fail():
    recognizer = in_images(Vision(error=RuntimeError("down")), supports_vision=True)
    done = recognizer.recognize(ImageRecord(id="u", source=ImageSource.from_url("https://example.com/a.png")))
    assert done.state == "failed"
    assert done.error == (
        "vision failed (RuntimeError: down); OCR fallback failed too: OCR failed: OCR needs the image's bytes: "
        "give a file or base64 source (http URLs are not downloaded)"
    )


def test_ocr_of_base64_and_unreadable_images():
    encoded = base64.b64encode(data("hello.png")).decode()
    record = ImageRecord(id="b", source=ImageSource.from_base64(encoded, "image/png"), mode="ocr")
    assert in_images(ocr=FAST_OCR).recognize(record).text.split() == HELLO_WORDS
    bad = in_images().recognize(image("not_an_image.png"))
    assert bad.state == "failed" and bad.error == "OCR failed: not a known image format (PNG, JPEG, GIF, TIFF, BMP, PNM or WebP)"


def test_relative_image_paths_use_the_root():
    record = ImageRecord(id="r", source=ImageSource.from_path("hello.png"), mode="ocr")
    assert ImageRecognizer(root=str(IMAGES), ocr=FAST_OCR).recognize(record).state == "recognized"


def test_protocols_and_misuse():
    assert isinstance(ImageRecognizer(), Recognizer)
    assert isinstance(TesseractOcr(), OcrEngine)
    with pytest.raises(TypeError):
        ImageRecognizer().recognize("hello.png")
    with pytest.raises(TypeError):
        TesseractOcr(languages="eng")
    with pytest.raises(TypeError):
        TesseractOcr(languages=("eng; rm -rf /",))
    err = pickle.loads(pickle.dumps(OcrError("boom", "failed")))
    assert (err.message, err.code) == ("boom", "failed")


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from agentmsg.io.recognition import _parse_tsv  # noqa: E402


@given(st.lists(st.lists(st.sampled_from(["5", "4", "1", "-1", "95.5", "x", "", "word", "\t"]), max_size=13), max_size=8))
def test_any_tsv_parses_without_error(rows):
    text, confidence = _parse_tsv("header\n" + "\n".join("\t".join(r) for r in rows))
    assert isinstance(text, str)
    assert confidence is None or 0.0 <= confidence <= 1.0
