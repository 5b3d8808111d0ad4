"""What the pack's training configurations share (``azcourse.hex.config``, ``azcourse.alphazero.config``):
the TOML file, its text form, and the rule that a resumed run keeps its configuration."""
from __future__ import annotations

import math
import pathlib
import tomllib
from typing import Iterable, Mapping


class ConfigError(ValueError):
    """A configuration that cannot be used; the message says which key and why."""


def read_table(path) -> dict:
    """The TOML table of the file at ``path``.

    Raises:
        ConfigError: no such file, or not valid TOML.
    """
    path = pathlib.Path(path)
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"no configuration file at {path}") from None
    except tomllib.TOMLDecodeError as problem:
        raise ConfigError(f"{path} is not valid TOML: {problem}") from None


def toml_text(values: Mapping) -> str:
    """``key = value`` lines of plain values (booleans, numbers, text, lists of numbers) as TOML, then each
    mapping value as a ``[key]`` table of such lines."""
    def text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return f'"{value}"'
        if isinstance(value, float) and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    plain = "".join(f"{key} = {text(value)}\n" for key, value in values.items() if not isinstance(value, Mapping))
    tables = "".join(f"\n[{key}]\n" + toml_text(value) for key, value in values.items() if isinstance(value, Mapping))
    return plain + tables


def check_resumable(saved: Mapping, current: Mapping, resumable: Iterable[str], run_dir) -> None:
    """Refuse to continue a run whose saved configuration differs from ``current`` in a key other
    than ``resumable`` ones.

    Raises:
        ConfigError: naming every changed key and its saved value.
    """
    resumable = tuple(resumable)
    changed = sorted(k for k, v in current.items() if k not in resumable and saved.get(k) != v)
    if changed:
        raise ConfigError(f"{run_dir} holds a run with a different configuration "
                          f"({', '.join(f'{k}: {saved.get(k)!r} there' for k in changed)}); only "
                          f"{', '.join(resumable)} may change when a run continues. "
                          "Use another run folder for a new run.")
