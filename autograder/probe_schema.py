"""The shape probe data must have before any judge sees it (grader side only).

Every probe declares, beside its judge, a schema of the data it returns: one entry per case,
each with fixed keys, types and lengths, and the alternatives a probe may write instead (an
error raised by student code is described as a string). ``validate`` checks what came back
from a kernel against that schema *and* against the reference probe's own output on the same
cases (``length=REF``: a list exactly as long as the reference's at the same place), so
empty, short, long, ``None``, ``{}`` and wrongly typed data never reach a judge.
"""
REF = "as long as the reference's"
MAX_TEXT = 10_000          # characters of one string (probes cut descriptions at ~1,500)
MAX_ITEMS = 2_000_000      # entries of one list


class Malformed(ValueError):
    """Probe data that does not have the declared shape; the message says where and how."""


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int):
        return "an int"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"a dict with keys {sorted(map(str, value))[:8]}"
    return type(value).__name__


class Schema:
    description = "?"

    def problem(self, got, ref, path: str) -> str | None:
        """None if `got` fits, else where and how it does not (`ref`: the reference's value here)."""
        raise NotImplementedError

    def __repr__(self):
        return self.description


class _Scalar(Schema):
    def __init__(self, description: str, accepts):
        self.description, self._accepts = description, accepts

    def problem(self, got, ref, path):
        return None if self._accepts(got) else f"{path}: expected {self.description}, got {_kind(got)}"


Int = _Scalar("an int", lambda v: isinstance(v, int) and not isinstance(v, bool))
Num = _Scalar("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
Bool = _Scalar("a bool", lambda v: isinstance(v, bool))
Str = _Scalar("a string", lambda v: isinstance(v, str) and len(v) <= MAX_TEXT)


class ListOf(Schema):
    """A list of `item`s: `length` an int, REF (as long as the reference's list here), or None."""

    def __init__(self, item: Schema, length=None, max_length: int = MAX_ITEMS):
        self.item, self.length, self.max_length = item, length, max_length
        size = "" if length is None else f"{length} " if isinstance(length, int) else "(as many as the reference) "
        self.description = f"a list of {size}{item!r}"

    def problem(self, got, ref, path):
        if not isinstance(got, list):
            return f"{path}: expected {self.description}, got {_kind(got)}"
        want = len(ref) if self.length == REF and isinstance(ref, list) else \
            self.length if isinstance(self.length, int) else None
        if want is not None and len(got) != want:
            return f"{path}: expected {want} entries, got {len(got)}"
        if len(got) > self.max_length:
            return f"{path}: more than {self.max_length} entries"
        if isinstance(self.item, _Scalar):  # no reference to follow: one test per entry, a path only for a misfit
            accepts = self.item._accepts
            for i, value in enumerate(got):
                if not accepts(value):
                    return self.item.problem(value, None, f"{path}[{i}]")
            return None
        aligned = isinstance(ref, list) and len(ref) == len(got)
        for i, value in enumerate(got):
            found = self.item.problem(value, ref[i] if aligned else None, f"{path}[{i}]")
            if found:
                return found
        return None


class Record(Schema):
    """A dict with exactly these keys, each value of its schema."""

    def __init__(self, **fields: Schema):
        self.fields = fields
        self.description = "{" + ", ".join(f"{k}: {v!r}" for k, v in fields.items()) + "}"

    def problem(self, got, ref, path):
        if not isinstance(got, dict):
            return f"{path}: expected a dict with keys {sorted(self.fields)}, got {_kind(got)}"
        if set(got) != set(self.fields):
            return f"{path}: expected the keys {sorted(self.fields)}, got {sorted(map(str, got))[:12]}"
        for key, schema in self.fields.items():
            found = schema.problem(got[key], ref.get(key) if isinstance(ref, dict) else None, f"{path}[{key!r}]")
            if found:
                return found
        return None


class Either(Schema):
    """One of several shapes (e.g. a result, or the string describing the error raised)."""

    def __init__(self, *options: Schema):
        self.options = options
        self.description = " or ".join(map(repr, options))

    def problem(self, got, ref, path):
        problems = []
        for option in self.options:
            # the reference's value guides lengths only when it has this option's shape itself
            guide = ref if ref is not None and option.problem(ref, None, "") is None else None
            found = option.problem(got, guide, path)
            if found is None:
                return None
            problems.append(found)
        deepest = max(problems, key=lambda p: p.count("["))
        return deepest if deepest.count("[") > path.count("[") else \
            f"{path}: expected {self.description}, got {_kind(got)}"


def per_case(item: Schema) -> ListOf:
    """One entry per case: a list exactly as long as the reference probe's output."""
    return ListOf(item, REF)


def validate(schema: Schema, outputs, reference_outputs) -> None:
    """Raise Malformed unless `outputs` fits `schema` as the reference's output on the same cases does."""
    found = schema.problem(outputs, reference_outputs, "outputs")
    if found:
        raise Malformed(found)

