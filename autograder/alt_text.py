"""Alternative text for every picture of the feedback (screen readers; nbconvert's accessibility check).

A notebook's figures come out of its kernel as bare PNG (or JPEG, SVG) outputs, with no description:
nbconvert then writes ``alt="No description has been provided for this image"`` and warns "Alternative
text is missing on N image(s)". ``DescribeFigures`` runs in the trusted grader, on the notebook that the
feedback shows, and gives each such picture a description from the cell that drew it: the call that
drew it (the cell's last line that calls something) and its place in the cell, e.g. "Figure 1 of 2 drawn
by the code cell above: plot_tree_layers(tree, rules, root, max_depth=4)", or its title when the cell
sets one ("Figure drawn by the code cell above, titled: MCTS strength, ... games per point"). Alternative text that an
output already carries is kept.
"""
import re

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List

IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
_CALL = re.compile(r"^\s*[^#\s].*\(")
_HOUSEKEEPING = re.compile(r"^\s*(plt|fig|ax\w*)\.(show|tight_layout|close|savefig|legend|grid|axis|set_[xy]\w*|axhline)\(|"
                          r"^\s*(display|print)\(")
_TITLE = re.compile(r"(?:(?:set_title|suptitle|title)\(\s*|\btitle=)f?([\"'])(.+?)\1")


def drawing_call(source: str) -> str:
    """What drew the cell's pictures, in words: its titles ("titled: ...", f-string fields as "..."), else
    its last line that calls something other than show/layout/print (stripped); "" if none."""
    titles = [re.sub(r"\{[^}]*\}", "...", match.group(2)) for match in _TITLE.finditer(source)]
    if titles:
        return "titled: " + "; ".join(titles)[:200]
    calls = [line.strip() for line in source.splitlines() if _CALL.match(line) and not _HOUSEKEEPING.match(line)]
    return calls[-1][:160] if calls else ""


def describe(cell) -> int:
    """Set the alternative text of every picture output of `cell` that has none; returns how many."""
    pictures = [(output, mime) for output in cell.get("outputs", []) for mime in IMAGE_TYPES
                if mime in output.get("data", {})]
    call = drawing_call(cell.source)
    described = 0
    for number, (output, mime) in enumerate(pictures, start=1):
        metadata = output.setdefault("metadata", {})
        per_type = metadata.setdefault(mime, {})
        if per_type.get("alt") or metadata.get("alt"):
            continue
        place = f"Figure {number} of {len(pictures)}" if len(pictures) > 1 else "Figure"
        per_type["alt"] = f"{place} drawn by the code cell above" + (f", {call}" if call.startswith("titled") else
                                                                     f": {call}" if call else "")
        described += 1
    return described


class DescribeFigures(NbGraderPreprocessor):
    """Feedback step: alternative text on every picture (see the module docstring)."""

    display_data_priority = List().tag(config=True)  # as feedback_guard.WithholdLeakingFeedback: no warning

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            describe(cell)
        return cell, resources
