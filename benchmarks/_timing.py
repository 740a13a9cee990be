"""Shared timing helpers for the benchmark scripts (not part of the package)."""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any


def ns_per_op(fn: Callable[[], Any], repeat: int = 5, min_time: float = 0.2) -> float:
    """Return the best ns per call of ``fn`` over ``repeat`` runs of at least ``min_time`` s."""
    timer = timeit.Timer(fn)
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= min_time / 4:
            break
        number *= 2 if elapsed == 0 else max(2, int(min_time / 4 / elapsed))
    best = min(timer.repeat(repeat=repeat, number=number))
    return best / number * 1e9


def fmt(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:,.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:,.1f} µs"
    return f"{ns:,.0f} ns"


def ratio(ours: float, theirs: float | None) -> str:
    if theirs is None:
        return "-"
    return f"{ours / theirs:.2f}×"


def table(title: str, rows: list[tuple[str, float, dict[str, float | None]]], peers: list[str]) -> None:
    """Print rows of (operation, agentmsg ns, {peer: ns}) with agentmsg/peer ratios."""
    print(f"\n## {title}")
    head = f"{'operation':<44} {'agentmsg':>10}"
    for peer in peers:
        head += f" {peer:>10} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for name, ours, theirs in rows:
        line = f"{name:<44} {fmt(ours):>10}"
        for peer in peers:
            value = theirs.get(peer)
            line += f" {fmt(value):>10} {ratio(ours, value):>7}"
        print(line)
    print("(ratio = agentmsg time / peer time; below 1 means agentmsg is faster)")
