"""``azcourse.run_config``: the one rule both trainers' configurations check a value by (a file's value must be
of its field's kind; a command-line override may also be the text of one), the loader's order (defaults <- file
<- overrides), its hook for a field that holds a table, and the run folder's start and continuation."""
import dataclasses
import json

import pytest

from azcourse.run_config import (CONFIG_FILE, RESUME_FILE, ConfigError, check_resumable, coerce_value, field_kinds,
                                 load_dataclass, open_run_folder, parse_override)


@dataclasses.dataclass(frozen=True)
class Inner:
    depth: int = 2
    limit: float | None = None


@dataclasses.dataclass(frozen=True)
class Plain:
    size: int = 5
    rate: float = 0.5
    name: str = "adam"
    shown: bool = False
    widths: tuple = (8, 8)


@pytest.mark.parametrize("kind, value, text, expected", [
    (int, 3, False, 3), (int, "12", True, 12), (int, "1_000", True, 1000),
    (float, 2, False, 2.0), (float, ".5", True, 0.5), (float, "1e-3", True, 0.001), (float, "inf", True, float("inf")),
    (bool, True, False, True), (bool, "True", True, True), (bool, "false", True, False),
    (str, "sgd", False, "sgd"), (str, "12", True, "12"),
    (tuple, [4, 2], False, (4, 2)), (tuple, "8,8,8", True, (8, 8, 8)), (tuple, "[8, 4]", True, (8, 4)),
    (tuple, "8 4", True, (8, 4)), (tuple, "[]", True, ()),
])
def test_accepted_values(kind, value, text, expected):
    assert coerce_value("k", value, kind, text=text) == expected


@pytest.mark.parametrize("kind, value, text, message", [
    (int, 3.0, False, "k must be an integer, got 3.0"), (int, True, False, "an integer"), (int, "3.0", True, "an integer"),
    (int, "12", False, "an integer, got '12'"),  # a file's text is not a number
    (float, True, False, "a number"), (float, "x", True, "a number, got 'x'"),
    (bool, 1, False, "true or false"), (bool, "yes", True, "true or false, got 'yes'"), (bool, "1", True, "true or false"),
    (str, 3, False, "k must be text, got 3"),
    (tuple, [8.0, 8], False, "a list of integers"), (tuple, ["8"], False, "a list of integers"),
    (tuple, "8.5,3", True, "a list of integers, got '8.5,3'"),
])
def test_refused_values_name_the_key_and_the_kind(kind, value, text, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        coerce_value("k", value, kind, text=text)


def test_file_then_overrides_and_unknown_keys(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('size = 4\nname = "sgd"\nwidths = [3]\n')
    loaded = load_dataclass(Plain, path, {"size": "7", "shown": "true", "rate": None})  # None: not given
    assert loaded == Plain(size=7, rate=0.5, name="sgd", shown=True, widths=(3,))
    with pytest.raises(ConfigError, match="unknown parameter 'sise'; known parameters: size, rate"):
        load_dataclass(Plain, None, {"sise": 3}, noun="parameter")
    assert parse_override("widths=[4, 4]") == ("widths", [4, 4]) and parse_override("name=adam") == ("name", "adam")
    with pytest.raises(ConfigError, match="--set takes key=value"):
        parse_override("size")


def test_a_field_holding_a_table_needs_the_coerce_hook_which_gets_the_table_and_dotted_overrides(tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Outer:
        seed: int = 0
        inner: Inner = dataclasses.field(default_factory=Inner)

        def __post_init__(self):
            if not isinstance(self.inner, Inner):
                object.__setattr__(self, "inner", Inner(**self.inner))

    assert field_kinds(Outer) == {"seed": int, "inner": Inner}
    path = tmp_path / "c.toml"
    path.write_text("seed = 1\n[inner]\ndepth = 3\n")
    with pytest.raises(TypeError, match="inner is of kind Inner, not a plain one"):
        load_dataclass(Outer, path)
    kinds, inner = field_kinds(Outer), field_kinds(Inner, {"limit": float})

    def coerce(key, value, text):
        if key == "inner":
            return {name: coerce(f"inner.{name}", v, text) for name, v in value.items()}
        if key.startswith("inner."):
            return coerce_value(key, value, inner[key.removeprefix("inner.")], text=text)
        return coerce_value(key, value, kinds[key], text=text)

    loaded = load_dataclass(Outer, path, {"inner.limit": "0.5"}, coerce=coerce)
    assert loaded == Outer(seed=1, inner=Inner(depth=3, limit=0.5))  # the file's table and the override merged


class _Counter:
    """A run with the protocol ``open_run_folder`` needs: ``save``, ``restore``, a counter attribute."""

    def __init__(self, config):
        self.config, self.step = config, 0

    def save(self, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"step": self.step, "config": self.config}))

    def restore(self, path):
        blob = json.loads(path.read_text())
        if blob["config"] != self.config:
            raise ConfigError("another run")
        self.step = blob["step"]


def test_a_run_folder_starts_continues_and_refuses_other_files(tmp_path):
    run_dir, started = tmp_path / "run", []
    first = _Counter("a")
    resume = open_run_folder(run_dir, first, "x = 1\n", log_file="log.csv", log_fields=("step", "loss"),
                             counter="step", start=lambda: started.append(1))
    assert resume == run_dir / RESUME_FILE and started == [1] and (run_dir / CONFIG_FILE).read_text() == "x = 1\n"
    with (run_dir / "log.csv").open("a") as f:
        f.write("1,0.5\n2,0.4\n3,0.3\n")  # the state saved after step 2, the log went on to 3
    first.step = 2
    first.save(resume)
    again = _Counter("a")
    open_run_folder(run_dir, again, "x = 2\n", log_file="log.csv", log_fields=("step", "loss"), counter="step",
                    start=lambda: started.append(2))
    assert again.step == 2 and started == [1] and (run_dir / CONFIG_FILE).read_text() == "x = 2\n"
    assert (run_dir / "log.csv").read_text().splitlines() == ["step,loss", "1,0.5", "2,0.4"]
    with pytest.raises(ConfigError, match="another run"):
        open_run_folder(run_dir, _Counter("b"), "", log_file="log.csv", log_fields=("step",), counter="step")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="is not empty and holds no resumable run"):
        open_run_folder(tmp_path / "other", _Counter("a"), "", log_file="log.csv", log_fields=("step",), counter="step")


def test_a_search_setting_set_on_one_side_only_is_a_change_when_a_run_continues(tmp_path):
    from azcourse.alphazero.config import AlphaZeroConfig

    urgent, plain = AlphaZeroConfig(search={"fpu_reduction": 0.1}), AlphaZeroConfig()
    for saved, current in ((urgent, plain), (plain, urgent)):
        with pytest.raises(ConfigError, match="search.fpu_reduction"):
            check_resumable(saved.flat(), current.flat(), (), tmp_path)
    check_resumable(urgent.flat(), AlphaZeroConfig.from_data(urgent.to_dict()).flat(), (), tmp_path)


COMMITTED_CONFIG = {"azul_strong": "azul_az"}  # a shipped run named otherwise than its configs/ file
EXECUTION_KEYS = ("selfplay_batch", "workers")  # where self-play ran, not what it learned


def test_every_shipped_run_was_trained_by_its_committed_config():
    """A shipped run's ``config.toml`` and its best card's training config (what its trainer wrote: the card's
    command may name the copy it ran from) are ``configs/<name>.toml`` key for key, but for where an AlphaZero
    run's self-play ran (``EXECUTION_KEYS``), so the committed config reproduces every run."""
    from pathlib import Path

    from azcourse.alphazero.config import AlphaZeroConfig, load_config
    from azcourse.hex.config import load_config as load_hex_config

    def differing(shipped: dict, source: dict, allowed=()) -> list[str]:
        return sorted(k for k in set(shipped) | set(source) if k not in allowed and shipped.get(k) != source.get(k))

    root = Path(__file__).resolve().parent.parent
    checked = []
    for run in sorted(p for p in (root / "ckpts").iterdir() if (p / CONFIG_FILE).is_file()):
        committed = root / "configs" / f"{COMMITTED_CONFIG.get(run.name, run.name)}.toml"
        if run.name == "hex5":  # the on-policy Hex trainer's run
            assert differing(*(load_hex_config(path).to_dict() for path in (run / CONFIG_FILE, committed))) == [], run
        else:
            source = load_config(committed).flat()
            assert differing(load_config(run / CONFIG_FILE).flat(), source, EXECUTION_KEYS) == [], run
            card = run / "best" / "card.json"
            if card.is_file():  # and the network it ships was trained by it
                trained = AlphaZeroConfig.from_data(json.loads(card.read_text())["training"]["config"]).flat()
                assert differing(trained, source, EXECUTION_KEYS) == [], card
        checked.append(run.name)
    assert {"azul_strong", "hex5", "hex7", "othello8", "othello8_ntuple", "tak4", "tak5", "tictactoe_az"} <= set(checked), checked
