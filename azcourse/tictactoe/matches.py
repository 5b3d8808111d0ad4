"""Pictures of match outcomes."""
import matplotlib.pyplot as plt
import numpy as np


def outcome_histogram(results, title: str, ax=None):
    """Bar chart of losses, draws and wins.

    Args:
        results: sequence of +1 (win), 0 (draw), -1 (loss) from the first agent's view.
        title: plot title, e.g. "learned agent vs random".
        ax: matplotlib axes to draw on (a new figure when None).
    """
    results = np.asarray(results)
    counts = [int((results == outcome).sum()) for outcome in (-1, 0, 1)]
    ax = ax or plt.subplots(figsize=(4, 3))[1]
    bars = ax.bar(["loss", "draw", "win"], counts, color=["tab:red", "tab:gray", "tab:blue"])
    ax.bar_label(bars)
    ax.set_title(f"{title}\n({len(results)} games, seats alternate)")
    ax.set_ylabel("games")
    return ax
