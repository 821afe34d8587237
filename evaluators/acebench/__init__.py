"""ACEBench's normal and special checkers, agent scoring, summaries and overall score.

Two modes: `compat` reproduces the reference's verdicts item by item, quirks included;
`strict` applies the same rules with those bugs fixed (docs/evaluators.md lists every
difference). Model output is never evaluated. One module per thing scored:
`normal_compat`/`normal_strict` (function calls), `special` (the special categories),
`agent` (end state and process), `items` (items and categories), `summary` (group means,
the overall score, result folders).
"""

from scenarios.acebench.answers import canonical_special, render_answer

from .agent import score_agent
from .categories import AGENT_CATEGORIES, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, WEIGHTS
from .decoding import decode_compat, decode_strict
from .episode import score_episode
from .items import CategoryScore, check_item, read_jsonl, score_category
from .normal_compat import compat_normal, standardize
from .normal_strict import strict_normal
from .run_results import score_run, write_result_files
from .special import special
from .summary import missing_categories, paper_table, score_directory, score_results, summarize
from .verdicts import PASS, Mode, Verdict

__all__ = [
    "AGENT_CATEGORIES", "NORMAL_CATEGORIES", "PASS", "SPECIAL_CATEGORIES", "WEIGHTS", "CategoryScore", "Mode",
    "Verdict", "canonical_special", "check_item", "compat_normal", "decode_compat", "decode_strict",
    "missing_categories", "read_jsonl", "render_answer", "score_agent", "score_category", "score_directory",
    "score_episode", "score_results", "score_run", "special", "standardize", "strict_normal", "summarize",
    "paper_table", "write_result_files",
]
