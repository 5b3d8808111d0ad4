"""Pairs of submissions whose answers are unusually alike: ``python -m autograder similarity ASSIGNMENT``
and the class report's "Similar answers" section.

What is compared: for each submission of an assignment (``submitted/<student>/<assignment>/``), the
answer cells, that is the cells its release marks ``solution: true`` (found in the submission by their
nbgrader ``grade_id``): the code cells as code, the written (markdown) answers as text. Every line that
also appears anywhere in the release notebook (the provided code, the ``# YOUR CODE HERE`` stubs, the
docstrings, the questions), white space normalised, is removed first, so provided code is never evidence.

Fingerprints: copydetect's (``CodeFingerprint``: Pygments tokenises the code, drops comments and white
space and writes every name as one letter, so renamed variables, comments and blank lines change
nothing; each run of ``CODE_K`` such characters is one fingerprint, ``TEXT_K`` characters of the
lower-cased text for the written answers, less the fingerprints of the release's own text). The window
is 1 (copydetect's default): every run is kept, not a winnowed sample, because Python's ``hash`` is
salted per process and winnowing would keep other fingerprints, and give other scores, at every run.

Score of a pair, for code and for written answers apart: each fingerprint weighs by how rare it is in the
class, ``log((n + 1) / df)`` for one that ``df`` of the ``n`` submissions have; the score is the weight
of the fingerprints the two share over the mean of their own answers' weights. 1: the two answers are
the same; what most of the class wrote weighs almost nothing, so two students who both wrote the usual
answer share little that counts, while a copy shares its rare parts too. Pairs are ranked by how
*unusual* they are: how many spreads (the median absolute deviation of all pairs' scores, as a normal
distribution's sigma) their score is above the class's median pair (of the pairs where both answered),
for code or for written answers, whichever is higher; a pair is listed only with at least ``MIN_EVIDENCE`` shared (in fingerprints that
only two submissions have). A high score is a reason to look at the two answers, not proof of copying.

``class_similarity(course, assignment)`` returns the JSON-able data (``top`` pairs, each with its shared
lines side by side); ``format_pairs`` the terminal's table.
"""
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np

from .pipeline import Course, GraderError

CODE_K = 25          # copydetect's noise threshold: characters of tokenised code (a name is one character)
TEXT_K = 40          # characters of lower-cased text, about seven words
TOP = 20             # pairs listed unless told
MIN_EVIDENCE = 20    # fingerprints' worth of code (or text) that only the two share, at least
SPREAD = 1.4826      # the median absolute deviation times this estimates a normal distribution's sigma
MIN_SPREAD = 0.05    # the spread never counts as less: a class that shares nothing has a MAD of 0
SHOWN = 1.0          # a pair's shared lines of its other kind are given from this many spreads above the median
KINDS = ("code", "text")


@dataclass
class Line:
    """One kept line of an answer: its cell's grade_id, its 1-based number in the student's cell, its text."""
    cell: str
    number: int
    text: str


@dataclass
class Document:
    """One submission's answers of one kind (code or text), provided lines removed: the `lines` kept, in
    notebook order, and the string fingerprinted (`text`), where line ``i`` is ``text[starts[i]:ends[i]]``
    (code as written; text normalised and lower-cased)."""
    lines: list = field(default_factory=list)
    text: str = ""
    starts: list = field(default_factory=list)
    ends: list = field(default_factory=list)

    def add(self, line: Line, shown: str, separator: str) -> None:
        if self.text:
            self.text += separator
        self.starts.append(len(self.text))
        self.text += shown
        self.ends.append(len(self.text))
        self.lines.append(line)

    def lines_in(self, slices: np.ndarray) -> list:
        """The lines that a 2 x m int array of character slices ``[start, end)`` of `text` touches, in order."""
        touched = set()
        for start, end in zip(*np.asarray(slices, dtype=int).reshape(2, -1)):
            first = max(int(np.searchsorted(self.starts, start, side="right")) - 1, 0)
            for i in range(first, len(self.lines)):
                if self.starts[i] >= end:
                    break
                if self.ends[i] > start:
                    touched.add(i)
        return [self.lines[i] for i in sorted(touched)]


def _norm(line: str) -> str:
    return " ".join(line.split())


def read_notebook(path: Path):
    """(notebook, "") or (None, why it could not be read)."""
    try:
        return nbformat.reads(Path(path).read_text(encoding="utf-8", errors="replace"), as_version=4), ""
    except Exception as exc:  # nbformat raises many kinds on a broken file; the submission is skipped, not the class
        return None, f"{Path(path).name} is not a readable notebook ({type(exc).__name__})"


def release_facts(release_nb) -> tuple[dict, set, str]:
    """({grade_id: "code" or "text"} of the release's answer cells in order, the normalised lines of every
    cell of the release, the release's own text (its markdown, lower-cased, as ``TEXT_K`` sees it))."""
    answers, given, prose = {}, set(), []
    for cell in release_nb.cells:
        given.update(_norm(line) for line in cell.source.splitlines())
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id"):
            answers[meta["grade_id"]] = "code" if cell.cell_type == "code" else "text"
        if cell.cell_type == "markdown":
            prose.append(_norm(cell.source).lower())
    return answers, given, " ".join(prose)


def answer_documents(nb, answers: dict, given: set, documents=None, prefix: str = "") -> dict:
    """{"code": Document, "text": Document} of a submitted notebook: the lines of its answer cells (the first
    cell of each grade_id of `answers`) that are not blank and not in `given`, added to `documents` when
    given (an assignment's notebooks, one after the other); each line's cell is `prefix` + its grade_id."""
    sources = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader")
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        if grade_id in answers and grade_id not in sources:
            sources[grade_id] = cell.source if isinstance(cell.source, str) else "".join(cell.source)
    documents = documents if documents is not None else {kind: Document() for kind in KINDS}
    for grade_id, kind in answers.items():
        for number, line in enumerate(sources.get(grade_id, "").splitlines(), 1):
            normal = _norm(line)
            if normal and normal not in given:
                shown, separator = (line.rstrip(), "\n") if kind == "code" else (normal.lower(), " ")
                documents[kind].add(Line(prefix + grade_id, number, line.rstrip()), shown, separator)
    return documents


def fingerprint(document: Document, kind: str):
    """copydetect's fingerprint of a document (``hashes``: set of int64, ``hash_idx``, ``filtered_code``)."""
    from copydetect import CodeFingerprint

    if kind == "code":
        return CodeFingerprint("answer.py", CODE_K, 1, filter=True, language="python", fp=io.StringIO(document.text))
    return CodeFingerprint("answer.txt", TEXT_K, 1, filter=False, fp=io.StringIO(document.text))


def scores(hash_sets: list, common=frozenset()) -> tuple[np.ndarray, np.ndarray]:
    """(score, evidence), both float64 (n, n), of n submissions' fingerprint sets (`common`: fingerprints
    that never count). A fingerprint that `df` of the n submissions have weighs ``log((n + 1) / df)``,
    in units of the weight of one that only two have. evidence[i, j]: the weight of the fingerprints i and
    j share; score[i, j]: that over the mean of their own weights (see the module's docstring). The
    diagonal is 0."""
    from scipy import sparse

    n = len(hash_sets)
    kept = [np.fromiter((h for h in hashes if h not in common), dtype=np.int64) for hashes in hash_sets]
    if n < 2 or not any(len(k) for k in kept):
        return np.zeros((n, n)), np.zeros((n, n))
    _, columns = np.unique(np.concatenate(kept), return_inverse=True)
    rows = np.repeat(np.arange(n), [len(k) for k in kept])
    df = np.bincount(columns)
    weights = np.log((n + 1) / df) / math.log((n + 1) / 2)
    own = np.bincount(rows, weights=weights[columns], minlength=n)   # each submission's whole weight
    shared = df[columns] >= 2                                       # the others are in no pair
    _, narrow = np.unique(columns[shared], return_inverse=True)
    matrix = sparse.csr_matrix((weights[columns[shared]], (rows[shared], narrow)), shape=(n, narrow.max() + 1)) \
        if shared.any() else sparse.csr_matrix((n, 1))
    ones = matrix.copy()
    ones.data[:] = 1.0
    evidence = (matrix @ ones.T).toarray()
    np.fill_diagonal(evidence, 0.0)
    mean_own = (own[:, None] + own[None, :]) / 2
    score = np.divide(evidence, mean_own, out=np.zeros_like(evidence), where=mean_own > 0)
    return score, evidence


def shared_lines(first, second, documents: tuple) -> tuple[list, list]:
    """The lines of each of two documents that their shared fingerprints cover (copydetect's
    ``compare_files``: copied slices mapped back to the text the student wrote)."""
    from copydetect import compare_files

    if not first.hashes or not second.hashes:
        return [], []
    _, _, (slices_a, slices_b) = compare_files(first, second)
    if np.size(slices_a) == 0:
        return [], []
    return documents[0].lines_in(slices_a), documents[1].lines_in(slices_b)


def _blocks(lines: list) -> list:
    """[{"cell", "lines": [{"number", "text"} or {"gap": True}]}]: consecutive lines of a cell together."""
    blocks = []
    for line in lines:
        if not blocks or blocks[-1]["cell"] != line.cell:
            blocks.append({"cell": line.cell, "lines": []})
        elif blocks[-1]["lines"][-1]["number"] != line.number - 1:
            blocks[-1]["lines"].append({"gap": True, "number": line.number - 1})
        blocks[-1]["lines"].append({"number": line.number, "text": line.text})
    return blocks


def rank(documents: dict, top: int = TOP, boilerplate: str = "") -> dict:
    """The ranked pairs of a class. `documents`: {student: {"code": Document, "text": Document}};
    `boilerplate`: the release's own text (its fingerprints never count in written answers).

    Returns {"compared": n, "pairs": n(n-1)/2, "class": {kind: {"median", "spread"}} of the pairs' scores,
    "top": [{"students": [a, b], "unusual", "kind", "code", "text", "shared": {kind: {"a": blocks, "b":
    blocks}}}]}: at most `top` pairs, most unusual first. A pair's ``unusual`` is, for the kind (code or
    text) where it is highest, how many spreads (``SPREAD`` x the median absolute deviation, at least
    ``MIN_SPREAD``) its score is above the median of the pairs where both answered (the class's usual pair);
    a pair is listed only above it and with at least ``MIN_EVIDENCE`` shared in that kind. ``shared`` gives
    each side's lines that the two share (``_blocks``), in that kind and in the other if the pair is
    ``SHOWN`` spreads above the median there too."""
    students = sorted(documents)
    n = len(students)
    upper = np.triu_indices(n, 1)
    prints, scored, spread, unusual = {}, {}, {}, {}
    for kind in KINDS:
        prints[kind] = [fingerprint(documents[s][kind], kind) for s in students]
        released = kind == "text" and boilerplate
        common = frozenset(fingerprint(Document(text=boilerplate), kind).hashes) if released else frozenset()
        scored[kind], evidence = scores([p.hashes for p in prints[kind]], common)
        values = scored[kind][upper]
        answered = np.array([len(p.hashes) > 0 for p in prints[kind]], dtype=bool)
        usual = values[answered[upper[0]] & answered[upper[1]]]    # the class's pairs: a blank answer is no pair
        median = float(np.median(usual)) if len(usual) else 0.0
        width = max(SPREAD * float(np.median(np.abs(usual - median))) if len(usual) else 0.0, MIN_SPREAD)
        spread[kind] = {"median": round(median, 3), "spread": round(width, 3)}
        unusual[kind] = np.where(evidence[upper] >= MIN_EVIDENCE, (values - median) / width, -np.inf)
    key = np.maximum(unusual["code"], unusual["text"])
    candidates = np.flatnonzero(key > 0)
    order = candidates[np.lexsort((candidates, -key[candidates]))][:top]   # ties: the earlier pair first
    listed = []
    for index in order:
        i, j = int(upper[0][index]), int(upper[1][index])
        kind = "code" if unusual["code"][index] >= unusual["text"][index] else "text"
        row = {"students": [students[i], students[j]], "unusual": round(float(key[index]), 1), "kind": kind,
               "code": round(float(scored["code"][i, j]), 3), "text": round(float(scored["text"][i, j]), 3),
               "shared": {}}
        for part in [kind] + [other for other in KINDS if other != kind and unusual[other][index] >= SHOWN]:
            lines_a, lines_b = shared_lines(prints[part][i], prints[part][j],
                                            (documents[students[i]][part], documents[students[j]][part]))
            if lines_a or lines_b:
                row["shared"][part] = {"a": _blocks(lines_a), "b": _blocks(lines_b)}
        listed.append(row)
    return {"compared": n, "pairs": n * (n - 1) // 2, "class": spread, "top": listed}


def read_class(course: Course, assignment: str, students: list) -> tuple[dict, dict, str]:
    """({student: {kind: Document}} of every student of `students` with a submission of `assignment` in
    ``submitted/``, {student: why it was skipped}, the release's own text). GraderError without a release."""
    release = sorted((Path(course.release) / assignment).glob("*.ipynb"))
    if not release:
        raise GraderError(f"no release of {assignment} in {course.release}: run `python -m autograder build` first")
    facts = []
    for path in release:
        nb, why = read_notebook(path)
        if nb is None:
            raise GraderError(f"the release of {assignment}: {why}")
        facts.append((path.name, f"{path.stem}/" if len(release) > 1 else "", release_facts(nb)))
    documents, skipped = {}, {}
    for student in students:
        folder = Path(course.submitted) / student / assignment
        if not folder.is_dir():
            continue
        mine = {kind: Document() for kind in KINDS}
        for name, prefix, (answers, given, _) in facts:
            nb, why = read_notebook(folder / name) if (folder / name).exists() else (None, f"no {name}")
            if nb is None:
                skipped[student] = why
                break
            answer_documents(nb, answers, given, mine, prefix)
        else:
            documents[student] = mine
    return documents, skipped, " ".join(prose for _, _, (_, _, prose) in facts)


def roster(course: Course) -> tuple[list, dict]:
    """(every student id of the gradebook, sorted; {id: "First Last"} where the gradebook has a name)."""
    from nbgrader.api import Gradebook

    from .grading_config import COURSE_ID

    course.require_gradebook()
    with Gradebook(course.db_url, COURSE_ID) as gb:
        students = gb.students
        return (sorted(s.id for s in students),
                {s.id: " ".join(filter(None, [s.first_name, s.last_name])) for s in students
                 if s.first_name or s.last_name})


def class_similarity(course: Course, assignment: str, top: int = TOP, students=None) -> dict:
    """The similarity data of `assignment` (``rank``'s, plus ``skipped``: [{"student", "why"}]) for the
    roster's students (or `students`)."""
    if students is None:
        students, _ = roster(course)
    documents, skipped, boilerplate = read_class(course, assignment, students)
    data = rank(documents, top, boilerplate)
    data["skipped"] = [{"student": s, "why": why} for s, why in sorted(skipped.items())]
    return data


def format_pairs(data: dict, label) -> str:
    """The terminal's table of ranked pairs; `label(student)` names a student ("student 17" or the id)."""
    classes = "; ".join(f"{kind}: median {c['median']:.2f}, spread {c['spread']:.2f}" for kind, c in data["class"].items())
    lines = [f"{data['compared']} submissions compared ({data['pairs']} pairs); the pairs' scores, {classes}.",
             "unusual: spreads above the class's median score, for code or written answers, whichever is higher. "
             "A reason to look, not proof of copying."]
    if not data["top"]:
        lines.append("no pair is more alike than the class's usual pair")
    else:
        lines.append(f"{'':>4} {'unusual':>7}  {'code':>5}  {'text':>5}  pair")
    for number, row in enumerate(data["top"], 1):
        a, b = (label(s) for s in row["students"])
        shared = ", ".join(f"{_count(row['shared'][kind]['a'])} {kind} lines" for kind in KINDS if kind in row["shared"])
        lines.append(f"{number:>3}. {row['unusual']:>7.1f}  {row['code']:>5.2f}  {row['text']:>5.2f}  {a} and {b}"
                     + (f" ({shared} shared)" if shared else ""))
    for row in data["skipped"]:
        lines.append(f"skipped {label(row['student'])}: {row['why']}")
    return "\n".join(lines)


def _count(blocks: list) -> int:
    return sum(1 for block in blocks for line in block["lines"] if "gap" not in line)
