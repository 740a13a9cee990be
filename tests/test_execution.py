"""Tool execution: approvals, validation, concurrency, timeouts and the results it records."""

import enum
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import pytest

from agentmsg import ToolCall, ToolDefinition
from agentmsg.io.execution import ApprovalPolicy, Tool, ToolExecutor, ToolRegistry, ToolRun, ToolRunInterrupted
from agentmsg.records import ToolRequest, ToolResultRecord, decode


class Flaky(Exception):
    """An error the tool marks as recoverable (retrying may help)."""


def request(*calls, id="q1"):
    return ToolRequest.of([ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(calls, 1)], id=id)


@pytest.fixture
def registry():
    registry = ToolRegistry()

    @registry.register(safe=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.register(recoverable=[Flaky])
    def fetch(url: str, retries: int = 3) -> dict:
        """Fetch a URL (pretend)."""
        if url == "flaky":
            raise Flaky("try again later")
        if url == "broken":
            raise KeyError(url)
        return {"url": url, "retries": retries}

    @registry.register
    def weird() -> object:
        """Return something that is not JSON."""
        return {"when": object()}

    @registry.register(timeout=0.3)
    def sleepy(seconds: float) -> str:
        """Sleep, then answer."""
        time.sleep(seconds)
        return "awake"

    @registry.register
    def delete_file(path: str) -> str:
        """Delete a file (pretend)."""
        return f"deleted {path}"

    return registry


def test_auto_runs_ask_waits_deny_refuses(registry):
    policy = ApprovalPolicy({"add": "auto", "delete_file": "deny"}, default="ask")
    executor = ToolExecutor(registry, policy)
    run = executor.process(request(("add", {"a": 1, "b": 2}), ("fetch", {"url": "x", "retries": 1}), ("delete_file", {"path": "a"})))
    assert run.request.approvals == ("approved", "pending", "denied")
    assert [(r.tool_call_id, r.status, r.output) for r in run.results] == [("c1", "success", 3)]
    assert [item.id for item in run.pending] == ["c2"] and not run.finished
    # a person approves the pending call; processing again runs only it
    approved = run.request.approve("c2")
    again = executor.process(approved, completed=run.results)
    assert again.finished and again.request.approvals == ("approved", "approved", "denied")
    assert [(r.tool_call_id, r.output) for r in again.results] == [("c2", {"url": "x", "retries": 1})]


def test_person_denies_a_pending_call(registry):
    executor = ToolExecutor(registry)  # asks for everything
    run = executor.process(request(("add", {"a": 1, "b": 2})))
    assert run.results == () and run.request.approvals == ("pending",)
    denied = executor.process(run.request.deny("c1"))
    assert denied.results == () and denied.finished


def test_this_process_approvals_run_once(registry):
    executor = ToolExecutor(registry)  # asks for everything
    approved = request(("delete_file", {"path": "a"}), id="once").approve("c1")
    run = executor.process(approved)
    assert run.request.approvals == ("approved",) and run.results[0].output == "deleted a"
    again = executor.process(approved)  # the same approval, used a second time: asks again
    assert again.results == () and again.request.approvals == ("pending",)


def stored(*calls, id="q1"):
    """A request as it comes back from storage or from a client: every call already marked approved."""
    return ToolRequest.from_dict({"type": "tool_request", "version": 1, "id": id, "data": {"calls": [
        {"id": f"c{i}", "name": name, "arguments": args, "approval": "approved"} for i, (name, args) in enumerate(calls, 1)
    ]}})


def test_deny_wins_over_an_approval_made_here_or_stored(registry):
    """Security item 2: a deny policy stops calls already marked approved."""
    ran = []
    registry.add(Tool(ToolDefinition("wipe", "Wipe the disk.", {"type": "object"}, strict=False), lambda: ran.append("wipe")))
    executor = ToolExecutor(registry, ApprovalPolicy({"delete_file": "deny", "wipe": "deny"}))
    for req in (stored(("delete_file", {"path": "a"}), ("wipe", {})),
                request(("delete_file", {"path": "a"}), ("wipe", {})).approve("c1").approve("c2")):
        for trust in (False, True):
            run = executor.process(req, trust_approvals=trust)
            assert run.results == () and run.request.approvals == ("denied", "denied") and run.finished
    assert ran == []


def test_a_persons_denial_stays_denied_under_an_auto_policy(registry):
    ran = []
    registry.add(Tool(ToolDefinition("wipe", "Wipe the disk.", {"type": "object"}, strict=False), lambda: ran.append("wipe")))
    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"))
    denied = request(("wipe", {}), ("add", {"a": 1, "b": 2})).deny("c1")  # a person said no to c1
    for trust in (False, True):
        assert executor.apply_policy(denied, trust_approvals=trust).approvals == ("denied", "approved")
        run = executor.process(denied, trust_approvals=trust)
        assert run.request.approvals == ("denied", "approved") and [r.output for r in run.results] == [3]
    assert ran == []


def test_approvals_that_did_not_come_from_this_process_are_not_trusted(registry):
    """Security item 2: an 'approved' mark decoded from storage or a client goes back to pending."""
    executor = ToolExecutor(registry)  # asks for everything
    run = executor.process(stored(("delete_file", {"path": "a"}), id="from-client"))
    assert run.results == () and run.request.approvals == ("pending",) and [i.id for i in run.pending] == ["c1"]
    # the caller vouches for where the request came from
    trusted = executor.process(stored(("delete_file", {"path": "b"}), id="from-store"), trust_approvals=True)
    assert [r.output for r in trusted.results] == ["deleted b"]
    # an approval given here does not carry over to other arguments under the same ids
    mine = request(("delete_file", {"path": "a"}), id="swap").approve("c1")
    swapped = stored(("delete_file", {"path": "/etc"}), id="swap")
    assert executor.process(swapped).request.approvals == ("pending",)
    assert [r.output for r in executor.process(mine).results] == ["deleted a"]


def test_result_records_carry_duration_and_timestamp(registry):
    before = datetime.now(timezone.utc)
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(request(("add", {"a": 2, "b": 2})))
    (result,) = run.results
    assert isinstance(result, ToolResultRecord)
    assert result.duration_seconds >= 0 and before <= result.finished_at <= datetime.now(timezone.utc)
    assert decode(result.to_dict()) == result


def test_invalid_arguments_never_reach_the_function():
    calls = []
    registry = ToolRegistry()

    @registry.register
    def move(source: str, target: str) -> str:
        """Move a file."""
        calls.append((source, target))
        return "moved"

    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"))
    run = executor.process(request(("move", {"source": "a"}), ("move", {"source": "a", "target": 5}), ("move", {"source": "a", "target": "b", "force": True})))
    errors = [r.error for r in run.results]
    assert errors[0] == "invalid arguments: target: is required"
    assert errors[1].startswith("invalid arguments: target:")
    assert errors[2].startswith("invalid arguments: force:")
    assert all(r.status == "error" and r.recoverable and r.stack_trace is None for r in run.results)
    assert calls == []


def test_a_tool_that_raises(registry):
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(
        request(("fetch", {"url": "flaky", "retries": None}), ("fetch", {"url": "broken", "retries": None}))
    )
    flaky, broken = run.results
    assert (flaky.status, flaky.error, flaky.recoverable) == ("error", "Flaky: try again later", True)
    assert (broken.status, broken.error, broken.recoverable) == ("error", "KeyError: 'broken'", False)
    for result in run.results:
        assert result.stack_trace.startswith("Traceback (most recent call last):")
        assert "in fetch" in result.stack_trace


def test_a_tool_that_hangs_times_out(registry):
    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"), timeout=30)
    started = time.monotonic()
    run = executor.process(request(("sleepy", {"seconds": 5}), ("sleepy", {"seconds": 0})))
    assert time.monotonic() - started < 4
    hung, quick = run.results
    assert (hung.status, hung.error, hung.recoverable) == ("error", "timed out after 0.3 s", True)
    assert 0.3 <= hung.duration_seconds < 4
    assert (quick.status, quick.output) == ("success", "awake")


def test_executor_timeout_applies_to_every_call():
    registry = ToolRegistry()
    release = threading.Event()

    @registry.register
    def wait() -> str:
        """Wait for the test to finish."""
        release.wait(10)
        return "done"

    try:
        run = ToolExecutor(registry, ApprovalPolicy(default="auto"), timeout=0.2).process(request(("wait", {})))
        assert run.results[0].error == "timed out after 0.2 s"
    finally:
        release.set()


def test_a_tool_that_returns_something_that_is_not_json(registry):
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(request(("weird", {})))
    (result,) = run.results
    assert result.status == "error" and not result.recoverable
    assert result.error == "the tool returned a value that is not JSON at when: expected a JSON value, got object"


def test_null_for_a_defaulted_parameter_means_the_default(registry):
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(request(("fetch", {"url": "u", "retries": None})))
    assert run.results[0].output == {"url": "u", "retries": 3}


def test_an_unhashable_annotation_leaves_the_other_parameters_typed():
    # register refuses such an annotation; a Tool built by hand can still carry one
    def fetch(url: str, tags: ["x"] = None, retries: int = 3) -> dict:  # type: ignore[valid-type]  # on purpose
        return {"url": url, "tags": tags, "retries": retries}

    registry = ToolRegistry()
    registry.add(Tool(ToolDefinition("fetch", "Fetch.", {"type": "object"}, strict=False), fetch))
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(
        request(("fetch", {"url": "u", "tags": ["a"], "retries": None}))
    )
    assert run.results[0].output == {"url": "u", "tags": ("a",), "retries": 3}  # null for retries: its default

def test_typed_parameters_are_built():
    class Unit(enum.Enum):
        C = "celsius"
        F = "fahrenheit"

    @dataclass(frozen=True)
    class Place:
        city: str
        country: str

    seen = []
    registry = ToolRegistry()

    @registry.register
    def weather(place: Place, unit: Unit = Unit.C, days: tuple[int, ...] = (1,)) -> str:
        """Get the weather."""
        seen.append((place, unit, days))
        return "sunny"

    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(
        request(("weather", {"place": {"city": "Oslo", "country": "NO"}, "unit": "fahrenheit", "days": [1, 2]}))
    )
    assert run.results[0].output == "sunny"
    assert seen == [(Place("Oslo", "NO"), Unit.F, (1, 2))]


def test_unknown_tool_gets_an_error_result(registry):
    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(request(("nope", {}), ("add", {"a": 1, "b": 1})))
    unknown, ok = run.results
    assert (unknown.tool_call_id, unknown.error, unknown.recoverable) == ("c1", "no tool named 'nope' is available", True)
    assert ok.output == 2


def test_hundred_concurrent_safe_calls_overlap_and_stay_in_order():
    registry = ToolRegistry()
    barrier = threading.Barrier(100, timeout=20)
    spans = {}

    @registry.register(safe=True)
    def square(n: int) -> int:
        """Square a number once all hundred calls are running."""
        start = time.monotonic()
        barrier.wait()  # only passes when all 100 calls run at the same time
        spans[n] = (start, time.monotonic())
        return n * n

    calls = [ToolCall(f"c{n}", "square", {"n": n}) for n in range(100)]
    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"), max_workers=100)
    run = executor.process(ToolRequest.of(calls, id="many"))
    assert [r.tool_call_id for r in run.results] == [f"c{n}" for n in range(100)]
    assert [r.output for r in run.results] == [n * n for n in range(100)]
    latest_start = max(start for start, _ in spans.values())
    earliest_end = min(end for _, end in spans.values())
    assert latest_start <= earliest_end  # every call was running at one moment


def test_unsafe_calls_run_alone_in_call_order():
    registry = ToolRegistry()
    active = []
    overlaps = []
    order = []
    lock = threading.Lock()

    def enter(name):
        with lock:
            if active:
                overlaps.append((name, tuple(active)))
            active.append(name)
            order.append(name)
        time.sleep(0.05)
        with lock:
            active.remove(name)

    @registry.register
    def write(tag: str) -> str:
        """Write (not safe to overlap)."""
        enter(tag)
        return tag

    @registry.register(safe=True)
    def read(tag: str) -> str:
        """Read (safe)."""
        with lock:
            order.append(tag)
        return tag

    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(
        request(("write", {"tag": "w1"}), ("read", {"tag": "r1"}), ("read", {"tag": "r2"}), ("write", {"tag": "w2"}), ("write", {"tag": "w3"}))
    )
    assert [r.output for r in run.results] == ["w1", "r1", "r2", "w2", "w3"]
    assert overlaps == []
    assert order[0] == "w1" and set(order[1:3]) == {"r1", "r2"} and order[3:] == ["w2", "w3"]


def test_registry_and_policy_misuse(registry):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(lambda a: a, definition=ToolDefinition("add", "Add.", {"type": "object", "properties": {}, "additionalProperties": False}))
    with pytest.raises(ValueError):
        ApprovalPolicy({"add": "sometimes"})
    with pytest.raises(ValueError):
        ApprovalPolicy(default="yes")
    with pytest.raises(TypeError):
        ToolExecutor(registry, timeout=0)
    with pytest.raises(TypeError):
        ToolExecutor(registry, max_workers=0)
    with pytest.raises(TypeError):
        ToolExecutor("registry")
    with pytest.raises(TypeError):
        ToolExecutor(registry).process([ToolCall("c1", "add", {})])
    with pytest.raises(TypeError):
        Tool(registry.get("add").definition, "not callable")
    with pytest.raises(TypeError):
        Tool(registry.get("add").definition, print, recoverable=(int,))
    assert "add" in registry and len(registry) == 5 and [t.name for t in registry][0] == "add"
    assert [d.name for d in registry.definitions()] == ["add", "fetch", "weird", "sleepy", "delete_file"]
    assert repr(registry.get("fetch")) == "Tool(name='fetch', safe=False, recoverable=('Flaky',), timeout=None)"


def test_explicit_definition(registry):
    definition = ToolDefinition(
        "shout", "Upper-case a text.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False},
    )
    registry.register(lambda **kw: kw["text"].upper(), definition=definition)
    run = ToolExecutor(registry, ApprovalPolicy({"shout": "auto"})).process(request(("shout", {"text": "hi"})))
    assert run.results[0].output == "HI"


def test_a_tool_that_exits_does_not_take_the_process_down():
    registry = ToolRegistry()

    @registry.register
    def quit_now() -> str:
        """Call sys.exit."""
        raise SystemExit(3)

    (result,) = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(request(("quit_now", {}))).results
    assert result.status == "error" and result.error == "SystemExit: 3"


def test_tool_run_repr():
    run = ToolRun(request(("add", {"a": 1, "b": 2})), ())
    assert repr(run) == "ToolRun(request='q1', results=0, pending=1)"


@dataclass(frozen=True)
class Hostile:
    """An argument type whose checks raise whatever the model's value makes them raise."""

    kind: str

    def __post_init__(self) -> None:
        if self.kind == "runtime":
            raise RuntimeError("boom")
        if self.kind == "type":
            raise TypeError("not that")
        if self.kind == "key":
            raise KeyError("k")


@pytest.mark.parametrize("kind, name", [("runtime", "RuntimeError"), ("type", "TypeError"), ("key", "KeyError")])
def test_argument_types_that_raise_fail_only_their_call(kind, name):
    """Security item 6: model-controlled arguments cannot crash the run or reach the tool raw."""
    seen = []
    registry = ToolRegistry()

    @registry.register(safe=True)
    def use(value: Hostile) -> str:
        """Use a value."""
        seen.append(value)
        return "used"

    @registry.register(safe=True)
    def ok() -> str:
        """Answer ok."""
        return "ok"

    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"))
    for calls in ([("ok", {}), ("use", {"value": {"kind": kind}}), ("ok", {})],  # a parallel batch
                  [("use", {"value": {"kind": kind}})]):  # alone
        run = executor.process(request(*calls))
        by_id = {r.tool_call_id: r for r in run.results}
        assert len(run.results) == len(calls)
        bad = next(r for r in run.results if r.status == "error")
        assert bad.error.startswith(f"invalid arguments: value: could not be built ({name}") and bad.recoverable
        assert all(r.output == "ok" for i, r in by_id.items() if r is not bad)
    assert seen == []  # the raw dict never reached the tool
    good = executor.process(request(("use", {"value": {"kind": "fine"}})))
    assert good.results[0].output == "used" and seen == [Hostile("fine")]


def test_ctrl_c_keeps_the_results_finished_before_it(ctrl_c):
    """Security item 6: Ctrl-C in the middle of a run still hands back what already ran."""
    import signal
    import threading

    registry = ToolRegistry()
    @registry.register
    def first() -> str:
        """Answer first."""
        return "first"

    @registry.register
    def interrupt() -> str:
        """Press Ctrl-C."""
        # a real SIGINT to the main thread, as a terminal's Ctrl-C (interrupt_main() only sets a flag)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(2)
        return "late"

    ran = []

    @registry.register
    def third() -> str:
        """Runs only after Ctrl-C, when the caller processes again."""
        ran.append("third")
        return "third"

    executor = ToolExecutor(registry, ApprovalPolicy(default="ask"), timeout=10)
    approved = request(("first", {}), ("interrupt", {}), ("third", {}), id="ctrl-c").approve("c1").approve("c2").approve("c3")
    with pytest.raises(KeyboardInterrupt) as info:
        executor.process(approved)
    assert isinstance(info.value, ToolRunInterrupted) and ran == []
    run = info.value.run
    assert [(r.tool_call_id, r.output) for r in run.results] == [("c1", "first")]
    assert run.request.approvals == ("approved", "approved", "approved")
    # processing again: the call that never started keeps its approval; the interrupted one asks again
    again = executor.process(run.request, completed=run.results)
    assert [(r.tool_call_id, r.output) for r in again.results] == [("c3", "third")]
    assert again.request.approvals == ("approved", "pending", "approved")
