"""What the pack's training configurations share (``azcourse.hex.config``, ``azcourse.alphazero.config``):
the TOML file, its text form, how a value of the file or the command line is checked against a field of
the configuration's dataclass (``coerce_value``), the loader (defaults <- file <- overrides,
``load_dataclass``), ``--set key=value`` (``parse_override``), the rule that a resumed run keeps its
configuration, and a trainer's run folder, started or continued (``open_run_folder``)."""
from __future__ import annotations

import csv
import dataclasses
import math
import pathlib
import tomllib
from typing import Any, Callable, Iterable, Mapping


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


KINDS = {bool: "true or false", tuple: "a list of integers", int: "an integer", float: "a number", str: "text"}


def field_kinds(cls, kinds: Mapping[str, type] | None = None) -> dict[str, type]:
    """The kind of each field of the dataclass ``cls``: ``kinds[name]`` where given (say, for a field
    whose default is ``None``, unset), else the type of its default (or of what its ``default_factory``
    makes; a dataclass for a field that holds a table)."""
    kinds = dict(kinds or {})
    out = {}
    for f in dataclasses.fields(cls):
        if f.name in kinds:
            out[f.name] = kinds[f.name]
        elif f.default is not dataclasses.MISSING:
            out[f.name] = type(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = type(f.default_factory())
    return out


def _read_text(text: str, kind: type):
    """The command line's ``text`` read as a ``kind``, or ``text`` itself when it is not one."""
    try:
        if kind is bool:
            return {"true": True, "false": False}[text.strip().lower()]
        if kind is tuple:
            return [int(v) for v in text.replace("[", " ").replace("]", " ").replace(",", " ").split()]
        return kind(text)  # int or float: Python's syntax ("12", "1_000", ".5", "1e-3", "inf")
    except (KeyError, ValueError):
        return text


def coerce_value(key: str, value, kind: type, *, text: bool = False):
    """``value`` checked against ``kind`` (``bool``, ``int``, ``float``, ``str`` or ``tuple``, a list of
    integers: ``KINDS``) and returned as one.

    The value must be of its kind as TOML (or ``parse_override``) gives it: ``true``/``false`` for a
    bool, an integer for an int (not ``3.0``, not a bool), an integer or a float for a float, text for
    text, a list of integers for a tuple. With ``text`` (a value from the command line) a ``str`` may
    also be the text of one: ``true``/``false`` in any case, ``12``, ``0.5``, ``8,8``, ``8 8`` or
    ``[8, 8]``.

    Raises:
        ConfigError: ``"<key> must be <kind>, got <value>"``.
        TypeError: ``kind`` is not a plain kind (a field that holds a table: see ``load_dataclass``'s
            ``coerce``).
    """
    if kind not in KINDS:
        raise TypeError(f"{key} is of kind {kind.__name__}, not a plain one ({', '.join(k.__name__ for k in KINDS)}): "
                        "name its kind in field_kinds' kinds, or give load_dataclass a coerce that reads it")
    if text and isinstance(value, str) and kind is not str:
        value = _read_text(value, kind)
    ok = {bool: isinstance(value, bool),
          int: isinstance(value, int) and not isinstance(value, bool),
          float: isinstance(value, (int, float)) and not isinstance(value, bool),
          str: isinstance(value, str),
          tuple: isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)}
    if not ok[kind]:
        raise ConfigError(f"{key} must be {KINDS[kind]}, got {value!r}")
    return kind(value)


def coerce_field(kinds: Mapping[str, type], key: str, value, *, text: bool = False, noun: str = "key"):
    """``value`` for the field ``key`` of ``kinds`` (``field_kinds``): ``coerce_value`` of its kind.

    Raises:
        ConfigError: an unknown key (``"unknown <noun> 'x'; known <noun>s: ..."``), or ``coerce_value``'s.
    """
    if key not in kinds:
        raise ConfigError(f"unknown {noun} {key!r}; known {noun}s: {', '.join(kinds)}")
    return coerce_value(key, value, kinds[key], text=text)


def parse_override(text: str, option: str = "--set") -> tuple[str, Any]:
    """``"key=value"`` from the command line as ``(key, value)``; the value is read as a TOML value
    (``3``, ``0.5``, ``true``, ``[64, 64]``, ``"adam"``), or as text when it is not one (``adam``).

    Raises:
        ConfigError: no ``=``, or no key.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{option} takes key=value, got {text!r}")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return key.strip(), value


def load_dataclass(cls, path=None, overrides: Mapping[str, Any] | None = None, *,
                   coerce: Callable[[str, Any, bool], Any] | None = None,
                   upgrade: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None, noun: str = "key"):
    """The dataclass ``cls`` of its defaults, updated by the TOML file at ``path`` (if any), then by
    ``overrides`` (an override of ``None`` is none: a flag not given).

    Args:
        coerce: ``coerce(key, value, text) -> value`` checks each value (``text``: an override, which may be
            the command line's text of a value), default ``coerce_field`` over ``field_kinds(cls)``, which
            knows plain fields only. The hook for a field that holds a table (a dataclass): it gets that
            table (a mapping) under the field's name and each override of one of its settings as
            ``<field>.<name>``, and returns what ``cls`` takes for it (say, a mapping its ``__post_init__``
            reads); the loader merges the file's table and the overrides, setting by setting.
        upgrade: turns the file's table, and the overrides, of an older shape into today's.
        noun: what the unknown-key message calls a key (default coerce).
    Raises:
        ConfigError: unreadable file, unknown key, wrong kind of value, or one ``cls`` refuses.
    """
    if coerce is None:
        kinds = field_kinds(cls)
        coerce = lambda key, value, text: coerce_field(kinds, key, value, text=text, noun=noun)  # noqa: E731
    upgrade = upgrade or dict
    values: dict[str, Any] = {}
    if path is not None:
        values.update({key: coerce(key, value, False) for key, value in upgrade(read_table(path)).items()})
    given = {key: value for key, value in (overrides or {}).items() if value is not None}
    for key, value in upgrade(given).items():
        new = coerce(key, value, True)
        field, dot, setting = key.partition(".")
        if dot:
            values[field] = {**values.get(field, {}), setting: new}
        elif isinstance(new, Mapping) and isinstance(values.get(key), Mapping):
            values[key] = {**values[key], **new}
        else:
            values[key] = new
    return cls(**values)


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


CONFIG_FILE, RESUME_FILE = "config.toml", "resume/state.msgpack"


def trim_log(path: pathlib.Path, fields, counter: str, done: int) -> None:
    """Keep the header and the rows of the csv log ``path`` whose ``counter`` column is at most ``done``
    (an interruption may leave rows of work the resumable state does not hold)."""
    if not path.exists():
        return
    with path.open() as f:
        rows = [r for r in csv.DictReader(f) if int(r[counter]) <= done]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        writer.writerows(rows)


def open_run_folder(run_dir, run, config_text: str, *, log_file: str, log_fields, counter: str,
                    start: Callable[[], None] = lambda: None) -> pathlib.Path:
    """Start or continue a trainer's run in the folder ``run_dir``; returns its resumable state's path.

    A folder holding ``RESUME_FILE`` continues: ``run.restore(path)`` (which refuses another run's
    config: ``check_resumable``), and the log ``log_file`` keeps the rows up to ``getattr(run, counter)``,
    the work done (``counter`` names both the run's attribute and the log's column). A new or empty folder
    starts: ``start()`` (the run's first files), the log's header, ``run.save(path)``. Either way the folder's
    ``CONFIG_FILE`` is then ``config_text``.

    Raises:
        ConfigError: the folder holds files but no resumable run (so a run never overwrites another), or
            ``run.restore``'s.
    """
    run_dir = pathlib.Path(run_dir)
    resume, log = run_dir / RESUME_FILE, run_dir / log_file
    if resume.exists():
        run.restore(resume)
        trim_log(log, log_fields, counter, getattr(run, counter))
    else:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise ConfigError(f"{run_dir} is not empty and holds no resumable run ({RESUME_FILE}); "
                              "choose a new run folder")
        run_dir.mkdir(parents=True, exist_ok=True)
        start()
        with log.open("w", newline="") as f:
            csv.DictWriter(f, log_fields).writeheader()
        run.save(resume)
    (run_dir / CONFIG_FILE).write_text(config_text)
    return resume
