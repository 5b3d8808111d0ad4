"""Shared code of the AlphaZero course pack (games, agents, search helpers)."""
