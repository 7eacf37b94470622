"""WM Lab's single-request suites as an Inspect AI task, scored by `wmlab score`.

    inspect eval scripts/research/inspect_task.py -T run=RUN_DIR --model openai/gpt-4o-mini

RUN_DIR is a folder of `wmlab llm run` (its log.jsonl): each item it logged with a prompt is one
Inspect sample (the prompt, the reference), and each metric WM Lab scored the item's task with is one
scorer that pipes {"metric", "reference", "prediction"} to `wmlab score` (the same code `wmlab llm run`
scores with): a model asked through Inspect is scored exactly as WM Lab scores it, with the mean and SE
of each metric. Options: -T wmlab=PATH (the wmlab binary, default `wmlab` on PATH), -T epochs=K.

What it leaves out, honestly: N-back blocks and the visual suite's trials are dialogues (a reply per
turn, fed back), not one request: run them with `wmlab llm run` and open them in Inspect with
`wmlab llm export --inspect RUN_DIR --out FILE.eval`. A run made with --no-prompts has no prompts to
ask again. The model is sampled as Inspect's options say (WM Lab sends each suite's paper sampling
unless told otherwise: the LRT at temperature 0 and 10 tokens, Minerva at 0, top-p 1, 4,096 tokens).
"""

import json
import re
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import subprocess

ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def item_id(sample_id: str) -> str:
    """The item of a sample id: a repeat's `@r<k>` dropped (wmlab_core::llm::item_id)."""
    return re.sub(r"@r\d+$", "", sample_id)


def target_text(reference) -> str:
    """The reference as text, for people (scoring uses the reference itself)."""
    if isinstance(reference, list):
        return ", ".join(reference)
    if isinstance(reference, dict):
        return "".join(f"{agent}: {', '.join(words)}\n" for agent, words in reference.items())
    return str(reference)


def read_run(run: str) -> tuple[list[Sample], list[str]]:
    """The samples of a run's log.jsonl and the metric names, in the order the log first has them."""
    outcomes: dict[str, dict] = {}
    for line in (Path(run) / "log.jsonl").read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut by an interrupted write
        if entry.get("type") == "outcome":
            outcomes[entry["sample_id"]] = entry  # the last one logged per sample
    task_metrics: dict[str, list[str]] = {}
    for o in outcomes.values():
        names = task_metrics.setdefault(o["task"], [])
        failed = [e.split(":")[0] for e in o.get("score_errors", [])]
        for m in [*o.get("scores", {}), *failed]:
            if m not in names:
                names.append(m)
    samples: dict[str, Sample] = {}
    for o in outcomes.values():
        single = "reference" in o and "answers" not in o and o.get("messages")
        if not single or item_id(o["sample_id"]) in samples or not task_metrics[o["task"]]:
            continue
        samples[item_id(o["sample_id"])] = Sample(
            id=item_id(o["sample_id"]),
            input=[ROLES[m["role"]](content=m["content"]) for m in o["messages"]],
            target=target_text(o["reference"]),
            metadata={
                "task": o["task"],
                "conditions": o.get("conditions", {}),
                "reference": o["reference"],
                "metrics": task_metrics[o["task"]],
            },
        )
    if not samples:
        raise ValueError(
            f"{run}/log.jsonl has no single-request item with its prompt "
            "(N-back and the visual suite are dialogues; --no-prompts logs no prompt)"
        )
    metrics = [m for names in task_metrics.values() for m in names]
    return list(samples.values()), list(dict.fromkeys(metrics))


def wmlab_metric(metric: str, wmlab: str):
    """The scorer of one WM Lab metric through `wmlab score`; items of tasks without it are unscored."""

    @scorer(metrics=[mean(), stderr()], name=metric)
    def make():
        async def score(state: TaskState, target: Target) -> Score | None:
            if metric not in state.metadata["metrics"]:
                return None
            reply = state.output.completion
            line = {"metric": metric, "reference": state.metadata["reference"], "prediction": reply}
            result = await subprocess([wmlab, "score"], input=json.dumps(line) + "\n", timeout=120)
            if not result.success:
                raise RuntimeError(f"wmlab score failed ({result.returncode}): {result.stderr[-500:]}")
            scored = json.loads(result.stdout)
            if "error" in scored:
                # WM Lab leaves such an item unscored too (an outcome's score_errors).
                return None
            return Score(value=scored["score"], answer=reply, explanation=f"reference: {target.text}")

        return score

    return make()


@task
def wmlab(run: str, wmlab: str = "wmlab", epochs: int = 1) -> Task:
    samples, metrics = read_run(run)
    return Task(
        dataset=MemoryDataset(samples, name=f"wmlab:{Path(run).name}"),
        solver=generate(),
        scorer=[wmlab_metric(m, wmlab) for m in metrics],
        epochs=epochs,
    )
