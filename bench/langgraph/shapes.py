"""The shapes of bench/langgraph.sh, run in LangGraph: a chain of N nodes, and a fan-out of N
items whose node waits DELAY_MS per call (asyncio.sleep, as an agent call waits on the
network). Prints one line per shape: `shape n import_s compile_s run_s`.

    python shapes.py chain 1000
    python shapes.py fanout 1000 10
"""

import sys
import time

t0 = time.perf_counter()
import asyncio  # noqa: E402
import operator  # noqa: E402
from typing import Annotated, TypedDict  # noqa: E402

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Send  # noqa: E402

IMPORT_S = time.perf_counter() - t0


class ChainState(TypedDict):
    value: int


def chain(n: int) -> None:
    g = StateGraph(ChainState)

    def step(state: ChainState) -> dict:
        return {"value": state["value"] + 1}

    for i in range(n):
        g.add_node(f"n{i}", step)
    g.add_edge(START, "n0")
    for i in range(n - 1):
        g.add_edge(f"n{i}", f"n{i + 1}")
    g.add_edge(f"n{n - 1}", END)
    t1 = time.perf_counter()
    app = g.compile()
    t2 = time.perf_counter()
    out = app.invoke({"value": 0}, {"recursion_limit": n + 10})
    t3 = time.perf_counter()
    assert out["value"] == n, out
    print(f"chain {n} {IMPORT_S:.3f} {t2 - t1:.3f} {t3 - t2:.3f}")


class FanState(TypedDict):
    items: list
    results: Annotated[list, operator.add]


class ItemState(TypedDict):
    item: int


def fanout(n: int, delay_ms: int) -> None:
    g = StateGraph(FanState)

    async def work(state: ItemState) -> dict:
        await asyncio.sleep(delay_ms / 1000)
        return {"results": [state["item"]]}

    def spread(state: FanState) -> list:
        return [Send("work", {"item": i}) for i in state["items"]]

    g.add_node("work", work)
    g.add_conditional_edges(START, spread, ["work"])
    g.add_edge("work", END)
    t1 = time.perf_counter()
    app = g.compile()
    t2 = time.perf_counter()
    out = asyncio.run(app.ainvoke({"items": list(range(n)), "results": []}))
    t3 = time.perf_counter()
    assert len(out["results"]) == n, len(out["results"])
    print(f"fanout {n} {IMPORT_S:.3f} {t2 - t1:.3f} {t3 - t2:.3f}")


if __name__ == "__main__":
    shape, n = sys.argv[1], int(sys.argv[2])
    if shape == "chain":
        chain(n)
    else:
        fanout(n, int(sys.argv[3]))
