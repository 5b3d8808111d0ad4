"""The report's pictures, drawn with matplotlib (Agg, no display) and returned as PNG data URIs, so the
page holds its images and opens from disk."""
import base64
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

WIDTH, DPI = 7.0, 110
ACCENT, MUTED, WARN = "#3b6ea8", "#9db7d5", "#c0504d"


def _data_uri(figure) -> str:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=DPI)
    plt.close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def score_histogram(scores: list[float], code_scores: list[float], max_score: float, max_code: float) -> str:
    """Histogram of the total scores (and, in light, of the autograded part), one bar per point."""
    return _data_uri(histogram_figure(scores, code_scores, max_score, max_code))


def histogram_figure(scores: list[float], code_scores: list[float], max_score: float, max_code: float):
    """The figure of ``score_histogram``: bars of whole points, an axis of whole submissions."""
    figure, axes = plt.subplots(figsize=(WIDTH, 2.8))
    top = max(max_score, max_code, 1.0)
    bins = [x - 0.5 for x in range(int(top) + 2)] if top <= 60 else 30
    axes.hist(code_scores, bins=bins, color=MUTED, label="autograded tests")
    axes.hist(scores, bins=bins, color=ACCENT, alpha=0.75, label="total recorded")
    axes.set_xlim(-0.5, top + 0.5)
    axes.set_xlabel(f"points (of {max_score:g}; tests: {max_code:g})")
    axes.set_ylabel("submissions")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count of submissions: whole numbers only
    axes.legend(frameon=False, loc="upper left")
    axes.spines[["top", "right"]].set_visible(False)
    return figure


def test_bars(rows: list[dict]) -> str:
    """Horizontal bars, hardest test on top: the share of students passing each test."""
    figure, axes = plt.subplots(figsize=(WIDTH, 0.45 + 0.32 * max(len(rows), 1)))
    names = [r["test"] for r in rows][::-1]
    rates = [100 * (r["pass_rate"] or 0) for r in rows][::-1]
    colours = [WARN if rate < 50 else ACCENT for rate in rates]
    axes.barh(names, rates, color=colours)
    for y, rate in enumerate(rates):
        axes.text(min(rate + 1, 92), y, f"{rate:.0f}%", va="center", fontsize=8)
    axes.set_xlim(0, 100)
    axes.set_xlabel("students passing (%)")
    axes.spines[["top", "right"]].set_visible(False)
    return _data_uri(figure)


def course_trend(rows: list[dict]) -> str:
    """The class's score per assignment, in course order: median with the quartiles as a band, and the mean,
    each as a percentage of the assignment's points."""
    figure, axes = plt.subplots(figsize=(WIDTH, 2.8))
    labels = [r["assignment"] for r in rows]
    pct = lambda key: [100 * (r[key] or 0) / (r["max_score"] or 1) for r in rows]  # noqa: E731
    x = range(len(rows))
    axes.fill_between(x, pct("q1"), pct("q3"), color=MUTED, alpha=0.6, label="middle half (quartiles)")
    axes.plot(x, pct("median"), "o-", color=ACCENT, label="median")
    axes.plot(x, pct("mean"), "s--", color=WARN, label="mean")
    axes.set_xticks(list(x), labels, rotation=15, fontsize=8)
    axes.set_ylim(0, 105)
    axes.set_ylabel("score (% of points)")
    axes.legend(frameon=False, fontsize=8, loc="lower left")
    axes.spines[["top", "right"]].set_visible(False)
    return _data_uri(figure)
