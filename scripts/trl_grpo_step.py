"""One real `GRPOTrainer` step on a toolworlds task set, offline, with a tiny random model.

Run (in a venv with trl and torch; they are not in the `dev` extra):
    python scripts/trl_grpo_step.py [--family banking] [--task banking_multi_step_4] [--generations 2]
or the opt-in test that does the same: python -m pytest -m trl_training tests/test_env.py

The model is built here, not downloaded: a byte-level BPE tokenizer trained on the task set's own
prompts, TRL's shipped Qwen3 chat template (so TRL knows how to read its tool calls), and a one-layer
Qwen3 with random weights. It writes nonsense, so the reward is 0.0; what the step shows is the wiring:
`trl_dataset` rows make each GRPO group one task, `trl_environments` gives each prompt exactly its
task's tools, and every rollout's environment is reset to its row's task and scored.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolworlds.env import trl_dataset, trl_environments

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>",
           "<tool_response>", "</tool_response>"]


def tiny_model(texts: list[str], vocab: int = 2000) -> tuple[Any, Any]:
    """A tokenizer trained on `texts` with TRL's Qwen3 chat template, and a one-layer Qwen3 with random weights."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab, special_tokens=SPECIAL,
                                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   padding_side="left")
    fast.chat_template = qwen3_chat_template
    config = Qwen3Config(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=32768,
                         eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id, tie_word_embeddings=True)
    return fast, Qwen3ForCausalLM(config)


def grpo_step(family: str, tasks: list[str], generations: int, output: Path) -> Any:
    """Train one step; returns the trainer (its `environments` are the last batch's)."""
    from trl import GRPOConfig, GRPOTrainer

    dataset = trl_dataset(family, tasks, repeats=generations)
    environments = trl_environments(family, tasks)
    texts = [json.dumps(row, ensure_ascii=False) for row in dataset["prompt"]]
    tokenizer, model = tiny_model(texts)
    args = GRPOConfig(output_dir=str(output), max_steps=1, per_device_train_batch_size=generations,
                      num_generations=generations, max_completion_length=24, learning_rate=1e-4,
                      report_to="none", use_cpu=True, save_strategy="no", logging_steps=1, seed=0,
                      dataloader_num_workers=0)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, train_dataset=dataset,
                          environment_factory=environments)
    trainer.train()
    return trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", default="banking")
    parser.add_argument("--task", action="append", help="task id (repeatable; default banking_multi_step_4)")
    parser.add_argument("--generations", type=int, default=2)
    args = parser.parse_args()
    tasks = args.task or ["banking_multi_step_4"]
    start = time.process_time()
    with tempfile.TemporaryDirectory() as output:
        trainer = grpo_step(args.family, tasks, args.generations, Path(output))
    used = [(type(env).__name__, env._env.task.id) for env in trainer.environments]
    print(json.dumps({"steps": trainer.state.global_step, "rollouts": used,
                      "log": trainer.state.log_history[-1] if trainer.state.log_history else {},
                      "cpu_seconds": round(time.process_time() - start, 1)}, indent=1, default=str))


if __name__ == "__main__":
    main()
