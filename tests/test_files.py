"""File references: boundaries of a file, workspace escapes, permissions, and bad files."""

import os
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg.errors import ValidationError
from agentmsg.io.files import (
    CODER,
    GUEST,
    PLANNER,
    REVIEWER,
    ROLES,
    AgentRole,
    FileAccessError,
    FileResolver,
    Permission,
)
from agentmsg.records import FileReference, decode

FIVE = "one\ntwo\nthree\nfour\nfive\n"


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "five.txt").write_text(FIVE)
    (root / "empty.txt").write_text("")
    (root / "no_newline.txt").write_text("alpha\nbeta")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\nprint(os.getcwd())\n")
    return root


def ref(path, start=None, end=None, id="f1"):
    return FileReference(id=id, path=path, start_line=start, end_line=end)


def resolve(root, path, start=None, end=None, **kwargs):
    return FileResolver(root, **kwargs).resolve(ref(path, start, end))


# --- every boundary of a file ------------------------------------------------------------------


@pytest.mark.parametrize(
    "start, end, content",
    [
        (None, None, FIVE),
        (1, 1, "one"),  # first line
        (5, 5, "five"),  # last line
        (1, 5, "one\ntwo\nthree\nfour\nfive"),  # all lines by range
        (2, 4, "two\nthree\nfour"),
        (4, None, "four\nfive"),  # start alone: to the end
        (5, None, "five"),
    ],
)
def test_line_ranges_inside_the_file(workspace, start, end, content):
    done = resolve(workspace, "five.txt", start, end)
    assert (done.status, done.content, done.error) == ("resolved", content, None)
    assert (done.start_line, done.end_line) == (start, end)


@pytest.mark.parametrize(
    "start, end, error",
    [
        (6, None, "start_line 6 is past the end of the file (5 lines)"),  # one past the end
        (6, 6, "start_line 6 is past the end of the file (5 lines)"),
        (5, 6, "end_line 6 is past the end of the file (5 lines)"),
        (1, 100, "end_line 100 is past the end of the file (5 lines)"),
    ],
)
def test_line_ranges_beyond_the_end_fail(workspace, start, end, error):
    done = resolve(workspace, "five.txt", start, end)
    assert (done.status, done.content, done.error) == ("failed", None, error)


def test_empty_file(workspace):
    assert resolve(workspace, "empty.txt").content == ""
    done = resolve(workspace, "empty.txt", 1, 1)
    assert done.status == "failed" and done.error == "start_line 1 is past the end of the file (0 lines)"


def test_file_without_trailing_newline(workspace):
    assert resolve(workspace, "no_newline.txt", 2, 2).content == "beta"
    assert resolve(workspace, "no_newline.txt").content == "alpha\nbeta"
    assert resolve(workspace, "no_newline.txt", 3).error == "start_line 3 is past the end of the file (2 lines)"


def test_blank_lines_count(workspace):
    assert resolve(workspace, "src/app.py", 2, 3).content == "\nprint(os.getcwd())"


def test_crlf_bom_and_other_separators(workspace):
    (workspace / "dos.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\x0cc\r\nd\r\n")
    assert resolve(workspace, "dos.txt", 1, 1).content == "a"
    assert resolve(workspace, "dos.txt", 2, 2).content == "b\x0cc"  # only \n breaks lines
    assert resolve(workspace, "dos.txt", 3).content == "d"
    assert resolve(workspace, "dos.txt").content == "a\r\nb\x0cc\r\nd\r\n"


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r\x00\ufeff", blacklist_categories=("Cs",))), max_size=12),
       trailing=st.booleans(), data=st.data())
def test_any_range_matches_a_plain_slice(tmp_path_factory, lines, trailing, data):
    root = tmp_path_factory.mktemp("prop")
    text = "\n".join(lines) + ("\n" if trailing and lines else "")
    (root / "f.txt").write_bytes(text.encode("utf-8"))
    count = len(text.split("\n")) - (1 if text.endswith("\n") or not text else 0)
    start = data.draw(st.integers(1, count + 2))
    end = data.draw(st.one_of(st.none(), st.integers(start, count + 2)))
    done = resolve(root, "f.txt", start, end)
    expected = text.split("\n")[:count]
    if start > count or (end is not None and end > count):
        assert done.status == "failed" and "past the end of the file" in done.error
    else:
        assert done.content == "\n".join(expected[start - 1 : end])


# --- paths and the workspace root --------------------------------------------------------------


def test_relative_path_needs_a_root(workspace):
    done = FileResolver(None).resolve(ref("five.txt"))
    assert done.error == "a relative path needs a workspace root (FileResolver(root=...))"


def test_absolute_paths_are_confined_by_default(workspace, tmp_path):
    """Security item 1: FileReference(path="/etc/passwd") is refused unless the caller opts out."""
    outside = tmp_path / "outside.txt"
    outside.write_text("hello\n")
    for path in (str(outside), "/etc/passwd"):
        done = FileResolver(workspace).resolve(ref(path))
        assert done.status == "failed" and done.error == "the path escapes the workspace root"
    assert FileResolver(workspace).resolve(ref(str(workspace / "five.txt"), 1, 1)).content == "one"
    with pytest.raises(FileAccessError) as info:
        FileResolver(None).read(str(workspace / "five.txt"))
    assert info.value.code == "no_root"
    # reading outside the root is an explicit opt-in
    anywhere = FileResolver(workspace, confine_absolute=False)
    assert anywhere.resolve(ref(str(outside))).content == "hello\n"
    assert FileResolver(None, confine_absolute=False).resolve(ref(str(workspace / "five.txt"), 2, 2)).content == "two"


@pytest.fixture
def sibling(tmp_path, workspace):
    """A folder next to the workspace whose name starts with the workspace's: ws-secret."""
    secret = tmp_path / "ws-secret"
    secret.mkdir()
    (secret / "key").write_text("sk-live-123\n")
    return secret


@pytest.fixture(params=["dir_fd", "without dir_fd"])
def opening(request, monkeypatch):
    """Both ways of opening: component by component with ``dir_fd``, and the fallback without it."""
    import agentmsg.io.files as files

    if request.param == "dir_fd" and not files._BENEATH:
        pytest.skip("this platform's os.open takes no dir_fd: only the fallback runs here")
    monkeypatch.setattr(files, "_BENEATH", request.param == "dir_fd")
    return request.param


def test_a_sibling_folder_sharing_the_prefix_is_outside(workspace, sibling, opening):
    """Guard: confinement compares paths, not text prefixes (root ws, sibling ws-secret)."""
    resolver = FileResolver(workspace)
    for path in ("../ws-secret/key", str(sibling / "key"), str(workspace) + "-secret/key",
                 str(workspace / ".." / "ws-secret" / "key")):
        with pytest.raises(FileAccessError) as info:
            resolver.read(path)
        assert info.value.code == "escape", path
    os.symlink("../ws-secret", workspace / "link")
    done = resolver.resolve(ref("link/key"))
    assert done.status == "failed" and done.error == "the path escapes the workspace root through a symbolic link"
    os.symlink(str(sibling), workspace / "abslink")
    assert resolver.resolve(ref("abslink/key")).status == "failed"
    assert "sk-live" not in repr(done) + str(done.to_dict())


def test_symlinks_that_stay_inside_are_followed_component_by_component(workspace, opening):
    (workspace / "src" / "deep").mkdir()
    (workspace / "src" / "deep" / "f.txt").write_text("deep\n")
    os.symlink("src/deep", workspace / "shortcut")  # a relative link to a directory
    os.symlink("../five.txt", workspace / "src" / "up.txt")  # climbs, but stays inside
    os.symlink(str(workspace / "src"), workspace / "abs")  # an absolute link inside the root
    os.symlink("loop2", workspace / "loop1")
    os.symlink("loop1", workspace / "loop2")
    resolver = FileResolver(workspace)
    assert resolver.read("shortcut/f.txt") == "deep\n"
    assert resolver.read("src/up.txt", 1, 1) == "one"
    assert resolver.read("abs/deep/f.txt") == "deep\n"
    assert resolver.read("shortcut/../up.txt", 2, 2) == "two"  # .. after a link: the link's parent
    with pytest.raises(FileAccessError) as info:
        resolver.read("loop1")
    assert info.value.code == "os" and "symbolic links" in info.value.message
    with pytest.raises(FileAccessError) as info:
        resolver.read("five.txt/x")
    assert info.value.code == "not_found"


def test_swapping_a_directory_for_a_symlink_mid_read_never_escapes(workspace, tmp_path):
    """Security item 3: check and open are one step; a concurrent swapper cannot win the race."""
    import threading
    import time

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file.txt").write_text("SECRET\n")
    (workspace / "d").mkdir()
    (workspace / "d" / "file.txt").write_text("inside\n")
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:
        d, saved = workspace / "d", workspace / "d.saved"
        while not stop.is_set():
            os.rename(d, saved)
            os.symlink(outside, d)
            time.sleep(0)  # let the reader run while the link is in place
            os.unlink(d)
            os.rename(saved, d)
            time.sleep(0)  # and while the real directory is back
            swaps[0] += 1

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    resolver = FileResolver(workspace)
    outcomes: dict[str, int] = {}
    deadline = time.monotonic() + 20  # a bound on the test's run, not an assertion on speed
    try:
        for _ in range(4000):
            if time.monotonic() > deadline:
                break
            try:
                text = resolver.read("d/file.txt")
            except FileAccessError as exc:  # never a raw OSError
                key = exc.code
            else:
                key = text
            outcomes[key] = outcomes.get(key, 0) + 1
            assert key != "SECRET\n", outcomes
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive() and swaps[0] > 0
    assert set(outcomes) <= {"inside\n", "not_found", "escape", "os"}, outcomes


@pytest.mark.parametrize(
    "path, start, end, code",
    [
        ("five\x00.txt", None, None, "path"),
        ("five\udc80.txt", None, None, "path"),
        ("", None, None, "path"),
        ("five.txt", 1.5, None, "line_range"),
        ("five.txt", 1, 2.0, "line_range"),
        ("five.txt", True, None, "line_range"),
    ],
)
def test_unusable_paths_and_lines_are_file_access_errors(workspace, path, start, end, code):
    """A NUL byte, a lone surrogate or a float line number: FileAccessError, not ValueError/UnicodeEncodeError/TypeError."""
    with pytest.raises(FileAccessError) as info:
        FileResolver(workspace).read(path, start, end)
    assert info.value.code == code


def test_dotdot_is_refused_by_the_record_itself():
    with pytest.raises(ValidationError) as info:
        ref("src/../../etc/passwd")
    assert info.value.path == "path"


def test_symlink_to_a_file_outside_is_refused(workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    os.symlink(secret, workspace / "innocent.txt")
    done = resolve(workspace, "innocent.txt")
    assert done.status == "failed"
    assert done.error == "the path escapes the workspace root through a symbolic link"
    assert "top secret" not in repr(done)


def test_symlinked_directory_outside_is_refused(workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keys.txt").write_text("k\n")
    os.symlink(elsewhere, workspace / "linked")
    assert resolve(workspace, "linked/keys.txt").error == "the path escapes the workspace root through a symbolic link"


def test_symlink_chain_that_ends_outside_is_refused(workspace, tmp_path):
    (tmp_path / "target.txt").write_text("t\n")
    os.symlink(tmp_path / "target.txt", workspace / "hop2")
    os.symlink("hop2", workspace / "hop1")
    assert resolve(workspace, "hop1").status == "failed"


def test_symlink_inside_the_workspace_is_followed(workspace):
    os.symlink("five.txt", workspace / "alias.txt")
    assert resolve(workspace, "alias.txt", 3, 3).content == "three"


def test_workspace_root_that_is_a_symlink(workspace, tmp_path):
    os.symlink(workspace, tmp_path / "ws-link")
    assert resolve(tmp_path / "ws-link", "five.txt", 1, 1).content == "one"


def test_dangling_symlink_is_missing(workspace):
    os.symlink("does-not-exist.txt", workspace / "dangling")
    assert resolve(workspace, "dangling").error == "no such file"


# --- permissions -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", [PLANNER, CODER, REVIEWER])
def test_roles_that_may_read(workspace, role):
    assert resolve(workspace, "five.txt", 1, 1, role=role).content == "one"


def test_denied_read_names_the_role_and_the_permission(workspace):
    done = resolve(workspace, "five.txt", role=GUEST)
    assert done.status == "failed"
    assert done.error == "role 'guest' lacks the 'read' permission"
    with pytest.raises(FileAccessError) as info:
        FileResolver(workspace, role=AgentRole("scribe", {"write"})).read("five.txt")
    assert info.value.code == "permission" and "'scribe'" in info.value.message and "'read'" in info.value.message


def test_role_sets():
    assert set(ROLES) == {"planner", "coder", "reviewer", "guest"}
    assert PLANNER.permissions == frozenset({Permission.READ})
    assert CODER.allows("write") and CODER.allows(Permission.EXECUTE)
    assert not REVIEWER.allows("write") and not GUEST.permissions
    assert hash(AgentRole("a", ["read"])) == hash(AgentRole("a", {Permission.READ}))
    with pytest.raises(ValueError):
        AgentRole("a", {"fly"})
    with pytest.raises(TypeError):
        AgentRole("", set())
    with pytest.raises(TypeError):
        AgentRole("a", "read")
    with pytest.raises(TypeError):
        FileResolver(None, role="coder")


# --- files that cannot be read -----------------------------------------------------------------


def test_missing_file(workspace):
    assert resolve(workspace, "nope.txt").error == "no such file"
    assert resolve(workspace, "five.txt/child").error == "no such file (a parent is not a directory)"


def test_directory(workspace):
    done = resolve(workspace, "src")
    assert (done.status, done.error) == ("failed", "is a directory, not a file")


def test_binary_files(workspace):
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (workspace / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    assert resolve(workspace, "image.png").error == "not a text file (it holds NUL bytes)"
    assert resolve(workspace, "latin1.txt").error == "not a text file (not valid UTF-8)"


def test_size_limit(workspace):
    (workspace / "big.txt").write_text("x" * 100)
    assert resolve(workspace, "big.txt", max_bytes=100).content == "x" * 100
    done = resolve(workspace, "big.txt", max_bytes=99)
    assert done.error == "the file is 100 bytes, over the limit of 99"
    with pytest.raises(TypeError):
        FileResolver(workspace, max_bytes=-1)


def test_fifo_does_not_hang(workspace):
    os.mkfifo(workspace / "pipe")
    assert resolve(workspace, "pipe").error == "not a regular file (a device, FIFO or socket)"


def test_failed_record_is_retried_and_resolved_one_is_kept(workspace):
    resolver = FileResolver(workspace)
    failed = resolver.resolve(ref("later.txt"))
    assert failed.status == "failed"
    (workspace / "later.txt").write_text("now here\n")
    done = resolver.resolve(failed)
    assert (done.id, done.status, done.content, done.error) == ("f1", "resolved", "now here\n", None)
    (workspace / "later.txt").write_text("changed\n")
    assert resolver.resolve(done) is done
    assert decode(done.to_dict()) == done


def test_read_raises_with_codes(workspace):
    resolver = FileResolver(workspace)
    assert resolver.read("five.txt", 2, 3) == "two\nthree"
    for args, code in [
        (("nope",), "not_found"),
        (("src",), "directory"),
        (("five.txt", 9), "line_range"),
        (("five.txt", None, 2), "line_range"),
        (("five.txt", 3, 2), "line_range"),
        (("",), "path"),
    ]:
        with pytest.raises(FileAccessError) as info:
            resolver.read(*args)
        assert info.value.code == code
    err = pickle.loads(pickle.dumps(FileAccessError("no such file", "not_found")))
    assert (err.message, err.code) == ("no such file", "not_found")


def test_resolve_refuses_other_records(workspace):
    with pytest.raises(TypeError):
        FileResolver(workspace).resolve("five.txt")
    assert repr(FileResolver(workspace, role=PLANNER)).endswith("role='planner', max_bytes=1048576)")


def test_resolver_and_renderer_share_one_definition_of_a_line(workspace):
    """A form feed, U+2028, U+2029, \\x1c-\\x1e, NEL or a lone \\r does not end a line for either."""
    from agentmsg.context import _render_file

    odd = ["a\x0cb", "c\u2028d\u2029e", "f\x1cg\x1dh\x1ei", "j\x85k", "l\rm", "last"]
    (workspace / "odd.txt").write_text("\n".join(odd) + "\n", newline="")
    resolver = FileResolver(workspace)
    for start in range(1, len(odd) + 1):
        done = resolver.resolve(ref("odd.txt", start, start))
        assert done.content == odd[start - 1]
        rendered = _render_file(done)
        assert f'lines="{start}-{start}"' in rendered and f"{start} | {odd[start - 1]}\n" in rendered
    whole = _render_file(resolver.resolve(ref("odd.txt", 2)))
    assert f'lines="2-{len(odd)}"' in whole and f"{len(odd)} | last\n" in whole
