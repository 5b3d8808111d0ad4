"""The class's numbers: score summaries and item analysis of the tests (numpy only).

Item analysis as Gradescope's question statistics and PrairieLearn's assessment statistics do it:
for each test, its pass rate, its mean points, its *difficulty* (the share of its points the class
lost: 0 = everyone passed, 1 = nobody scored) and its *discrimination*, the correlation of the
test's score with the rest of the assignment's score (the students' autograded total minus this
test), so a test that good students pass and weak students fail has a high value, and a test that
says nothing about the rest (everyone passes, or passing is luck) is near 0 (None when either
score does not vary).
"""
import numpy as np


def summary(scores, max_score: float) -> dict:
    """Mean, median, quartiles, min and max of `scores` (a sequence of floats), and their count;
    the values are None when there is no score."""
    values = np.asarray(list(scores), dtype=float)
    if not len(values):
        return {"count": 0, "max_score": max_score, "mean": None, "median": None, "q1": None, "q3": None,
                "min": None, "max": None}
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return {"count": int(len(values)), "max_score": max_score, "mean": round(float(values.mean()), 3),
            "median": round(float(median), 3), "q1": round(float(q1), 3), "q3": round(float(q3), 3),
            "min": round(float(values.min()), 3), "max": round(float(values.max()), 3)}


def correlation(x, y) -> float | None:
    """Pearson's correlation of two equally long sequences; None when either is constant (or shorter
    than 2)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def item_analysis(points: np.ndarray, max_points: list[float], names: list[str]) -> list[dict]:
    """One row per test, the hardest first.

    `points`: float array of shape (students, tests), the points each student scored on each test;
    `max_points`: each test's points; `names`: each test's name. A row is ``{"test", "max_points",
    "pass_rate", "mean_points", "difficulty", "discrimination", "passed", "students"}``; a test is
    passed with all its points. Hardest first: lowest mean share of points, then lowest pass rate,
    then name.
    """
    points = np.asarray(points, dtype=float).reshape(-1, len(names))
    total = points.sum(axis=1)
    rows = []
    for j, (name, top) in enumerate(zip(names, max_points)):
        column = points[:, j]
        count = len(column)
        passed = int(np.sum(column >= top - 1e-9)) if count else 0
        mean = float(column.mean()) if count else None
        rows.append({
            "test": name, "max_points": float(top), "students": count, "passed": passed,
            "pass_rate": round(passed / count, 4) if count else None,
            "mean_points": round(mean, 3) if mean is not None else None,
            "difficulty": round(1 - mean / top, 4) if count and top else None,
            "discrimination": _rounded(correlation(column, total - column)),
        })
    return sorted(rows, key=lambda r: (-(r["difficulty"] or 0), r["pass_rate"] if r["pass_rate"] is not None else 1,
                                       r["test"]))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
