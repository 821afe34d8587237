"""Scorers for toolworlds runs: end-state and process accuracy, benchmark checkers."""
