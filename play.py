"""Play the course's games in a terminal.

    python play.py azul [--opponent NAME] [--seed 7] [--seat 0|1] [--no-color]
    python play.py ttt [--opponent NAME] [--second] [--rules NOTEBOOK]
    python play.py hex [--size 5] [--opponent NAME] [--second] [--simulations N]
    python play.py othello [--size 6] [--opponent NAME] [--second] [--simulations N]
    python play.py tak [--size 3] [--opponent NAME] [--second] [--simulations N]
    python play.py arena AGENT_A AGENT_B [--games 1000] [--seed 0] [--json]

``python play.py --help`` lists each game's opponents, read from the parser of its options
(``opponents``), and ``python play.py COMMAND --help`` describes them.

A thin command line over ``azcourse``: each subcommand parses its options and hands over to a game
module (Azul: ``azcourse.azul.terminal``; tic-tac-toe: ``azcourse.tictactoe.terminal``; Hex,
Othello and Tak: ``azcourse.core.terminal``). Exit code 0 when a game ends or the player leaves
(``quit`` or end of input), 2 for bad options, 130 on Ctrl-C, 1 when the output is closed early
(e.g. piped into ``head``). Whatever is typed, a game refuses it with a reason or plays it: no line
read (a huge number, control characters, bytes that are not text) ends the game with a traceback.
"""
from __future__ import annotations

import argparse
import os
import sys


def _azul(args: argparse.Namespace) -> int:
    """``play.py azul``: a person against an agent."""
    import numpy as np

    from Azul_Visuals import color_supported
    from azcourse.azul.terminal import TerminalGame

    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1_000_000))
    print(f"Seed {seed} (play this deal again with --seed {seed}).")
    color = not args.no_color and color_supported(sys.stdout)
    game = TerminalGame(args.opponent, seed, args.seat, color, echo=not sys.stdin.isatty())
    return game.run()


def _ttt(args: argparse.Namespace) -> int:
    """``play.py ttt``: a person against the perfect player, MCTS or random, with a notebook's rules."""
    import numpy as np

    from azcourse.tictactoe.terminal import RulesUnavailable, TerminalGame, load_rules

    try:
        rules = load_rules(args.rules)
    except RulesUnavailable as problem:
        print(f"play.py ttt: {problem}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1_000_000))
    return TerminalGame(rules, args.opponent, seed, human_first=not args.second, simulations=args.simulations,
                        echo=not sys.stdin.isatty()).run()


def _match(command: str, args: argparse.Namespace, game, build, move_help: str, names) -> int:
    """A person against the agent ``build(rng)`` in the generic terminal (``azcourse.core.terminal``),
    seeded by ``--seed``; an agent whose trained network is not shipped is refused in one line (2)."""
    import numpy as np

    from azcourse.core.agents import PolicyUnavailable
    from azcourse.core.terminal import TerminalMatch

    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(1_000_000))
    try:
        agent = build(np.random.default_rng(seed))
    except PolicyUnavailable as problem:
        print(f"play.py {command}: {problem}", file=sys.stderr)
        return 2
    return TerminalMatch(game, agent, human=1 if args.second else 0, move_help=move_help, names=names,
                         rng=np.random.default_rng(seed), echo=not sys.stdin.isatty()).run()


def _hex(args: argparse.Namespace) -> int:
    """``play.py hex``: a person against random, UCT, or (once one is shipped) a trained policy."""
    from azcourse.core.agents import make_agent
    from azcourse.hex.checkpoints import shipped_policy
    from azcourse.hex.game import PLAYER_NAMES, Hex

    game = Hex(args.size)

    def build(rng):
        if args.opponent == "alphazero":
            from azcourse.alphazero.agent import shipped_agent
            from azcourse.hex.checkpoints import alphazero_checkpoint

            return shipped_agent(game, rng, args.simulations, alphazero_checkpoint(game))
        policy = shipped_policy(game) if args.opponent in ("anet", "mcts") else None
        return make_agent(args.opponent, game, rng, args.simulations, policy)

    move_help = (f"Type a cell as column letter and row number (c3) or as row,column (3,3); "
                 f"columns a-{'abcdefgh'[args.size - 1]}, rows 1-{args.size}.")
    return _match("hex", args, game, build, move_help, PLAYER_NAMES)


def _hex_size(text: str) -> int:
    value = int(text)
    if not 3 <= value <= 8:
        raise argparse.ArgumentTypeError(f"must be from 3 to 8, got {value}")
    return value


def _othello(args: argparse.Namespace) -> int:
    """``play.py othello``: a person against one of ``azcourse.othello.agents.OPPONENTS``."""
    from azcourse.othello.agents import make_opponent
    from azcourse.othello.game import PLAYER_NAMES, Othello

    game = Othello(args.size)
    move_help = (f"Type a square as column letter and row number (c4; columns a-{'abcdefgh'[args.size - 1]}, "
                 f"rows 1-{args.size}), or pass when you have no move; * marks your legal moves.")
    return _match("othello", args, game, lambda rng: make_opponent(args.opponent, game, rng, args.simulations),
                  move_help, PLAYER_NAMES)


def _tak(args: argparse.Namespace) -> int:
    """``play.py tak``: a person against one of ``azcourse.tak.agents.OPPONENTS``."""
    from azcourse.tak.agents import make_opponent
    from azcourse.tak.game import PLAYER_NAMES, Tak

    game = Tak(args.size)
    last = "abcdef"[args.size - 1]
    move_help = (f"Type moves in Portable Tak Notation: a1 places a flat, Sa1 a wall, Ca1 a capstone; 3a1>12 "
                 f"picks up 3 stones on a1 and drops 1 then 2 going right (+ up, - down, > right, < left). "
                 f"Files a-{last}, ranks 1-{args.size}. Your first move places one of the opponent's flats.")
    return _match("tak", args, game, lambda rng: make_opponent(args.opponent, game, rng, args.simulations),
                  move_help, PLAYER_NAMES)


def _othello_size(text: str) -> int:
    value = int(text)
    if value not in (4, 6, 8):
        raise argparse.ArgumentTypeError(f"must be 4, 6 or 8, got {value}")
    return value


def _tak_size(text: str) -> int:
    value = int(text)
    if not 3 <= value <= 6:
        raise argparse.ArgumentTypeError(f"must be from 3 to 6, got {value}")
    return value


def _arena(args: argparse.Namespace) -> int:
    """``play.py arena``: N games between two agents, seats alternating, in parallel."""
    from azcourse.azul.arena import run_from_args

    run_from_args(args)
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# each command's one-line summary; its opponents are listed from its parser (``opponents``), not here
GAMES = {"azul": "play Azul against a computer opponent, by move codes",
         "ttt": "play tic-tac-toe against a computer opponent",
         "hex": "play Hex (3x3 to 8x8) against a computer opponent",
         "othello": "play Othello (4x4, 6x6, 8x8) against a computer opponent",
         "tak": "play Tak (3x3 to 6x6) against a computer opponent",
         "arena": "N Azul games between two agents (seats alternate), W/D/L with a 95%% CI"}
EXAMPLES = """examples:
  python play.py azul --opponent strong --seed 7
  python play.py ttt --opponent perfect --second
  python play.py hex --size 5 --opponent uct
  python play.py othello --size 6 --opponent alphazero
  python play.py tak --size 3 --opponent mcts
  python play.py arena strong greedy --games 1000 --seed 0 --json
python play.py COMMAND --help describes each command's options."""


def opponents(command: str) -> tuple[str, ...]:
    """The names ``play.py COMMAND --opponent`` accepts: the choices of the option as ``OPTIONS[command]``
    defines it (from the game's registry); ``()`` for a command without one (``arena``)."""
    scratch = argparse.ArgumentParser(prog="play.py").add_subparsers()
    OPTIONS[command](scratch, GAMES[command])
    actions = scratch.choices[command]._actions
    return next((tuple(a.choices) for a in actions if "--opponent" in a.option_strings), ())


def _opponents_text() -> str:
    """The top-level help's list of each game's opponents (``opponents``)."""
    listed = {name: choices for name in GAMES if (choices := opponents(name))}
    width = max(map(len, listed))
    return ("opponents (--opponent NAME) of each game; python play.py COMMAND --help describes them:\n"
            + "".join(f"  {name:<{width}}  {', '.join(choices)}\n" for name, choices in listed.items()))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line: one subcommand per game, and ``arena``. Only `command`'s options are built
    (each game's agent names come from its modules); the others get their one-line help, so a command
    answers without loading the other games. ``command=None`` (no command given yet: ``play.py --help``
    or a mistyped command) builds none, but its epilog lists every game's opponents, read from the parsers
    of their options (``opponents``: the games' agent modules, numpy and no engine, about 0.1 s)."""
    epilog = EXAMPLES if command is not None else _opponents_text() + "\n" + EXAMPLES
    parser = argparse.ArgumentParser(prog="play.py", description=__doc__.splitlines()[0], epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    games = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in GAMES.items():
        if command == name:
            OPTIONS[name](games, summary)
        else:
            games.add_parser(name, help=summary)
    return parser


def _azul_options(games, summary: str) -> None:
    """``play.py azul``'s options."""
    from azcourse.azul_cli import DEFAULT_OPPONENT, OPPONENTS, opponents_help

    azul = games.add_parser("azul", help=summary, epilog=opponents_help(),
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Play Azul against a computer opponent by typing move codes\n"
                                        "such as 5B2 or CWF (type help in the game).")
    azul.add_argument("--opponent", choices=tuple(OPPONENTS), default=DEFAULT_OPPONENT, metavar="OPPONENT",
                      help=f"the computer player, one of those below (default: {DEFAULT_OPPONENT})")
    azul.add_argument("--seed", type=int, help="fixes the deal (default: a random seed, printed)")
    azul.add_argument("--seat", type=int, choices=(0, 1), default=0,
                      help="your seat (default 0); who starts is drawn from the seed (rule 3)")
    azul.add_argument("--no-color", action="store_true", help="plain letters, no ANSI colours")
    azul.set_defaults(run=_azul)


def _ttt_options(games, summary: str) -> None:
    """``play.py ttt``'s options."""
    from azcourse.tictactoe.terminal import DEFAULT_RULES, OPPONENTS

    ttt = games.add_parser("ttt", help=summary,
                           description="Play tic-tac-toe by square numbers 1-9 (row by row). The rules and the "
                                       "search come from a part-1 notebook: the solution by default, or yours.")
    ttt.add_argument("--opponent", choices=OPPONENTS, default="mcts",
                     help="perfect (minimax), mcts (the notebook's MCTS with the toy model), uct (plain UCT with "
                          "random rollouts) or random (default: mcts)")
    ttt.add_argument("--simulations", type=_positive_int, default=200,
                     help="simulations per move of mcts and uct (default 200)")
    ttt.add_argument("--second", action="store_true", help="let the computer open (it plays X)")
    ttt.add_argument("--seed", type=int, help="seed of the computer's random choices")
    ttt.add_argument("--rules", default=str(DEFAULT_RULES),
                     help="the part-1 notebook whose rules and MCTS to use (default: solutions/ttt1_mcts)")
    ttt.set_defaults(run=_ttt)


def _hex_options(games, summary: str) -> None:
    """``play.py hex``'s options."""
    from azcourse.core.agents import AGENT_NAMES

    hex_ = games.add_parser("hex", help=summary,
                            description="Play Hex on an N x N diamond. X (player 1) joins the upper-right and "
                                        "lower-left sides, O (player 2) the other two. Type cells as c3 or 3,3.")
    hex_.add_argument("--size", type=_hex_size, default=5, help="board size N, 3 to 8 (default 5)")
    hex_.add_argument("--opponent", choices=(*AGENT_NAMES, "alphazero"), default="uct",
                      help="random, uct (random rollouts), anet or mcts (part 4's trained 5x5 policy), alphazero "
                           "(PUCT with the AlphaZero network of the board: 5x5, ckpts/hex5_az) (default: uct)")
    hex_.add_argument("--simulations", type=_positive_int, default=1000,
                      help="search games per move of uct, mcts and alphazero (default 1000)")
    hex_.add_argument("--second", action="store_true", help="play O (player 2); the computer opens")
    hex_.add_argument("--seed", type=int, help="seed of the computer's random choices")
    hex_.set_defaults(run=_hex)


def _othello_options(games, summary: str) -> None:
    """``play.py othello``'s options."""
    from azcourse.othello.agents import OPPONENTS as OTHELLO_OPPONENTS

    othello = games.add_parser("othello", help=summary,
                               description="Play Othello on an N x N board. Black (X, player 1) moves first; "
                                           "type squares as c4 (column letter, row number), or pass.")
    othello.add_argument("--size", type=_othello_size, default=6, help="board size N: 4, 6 or 8 (default 6)")
    othello.add_argument("--opponent", choices=tuple(OTHELLO_OPPONENTS), default="uct",
                         help="random, greedy (most discs after the move), uct (random rollouts), classical "
                              "(alpha-beta to 6 plies, the exact endgame from 12 empty squares), and with the "
                              "shipped 6x6 network: value, policy, monte-carlo, alphazero (default: uct)")
    othello.add_argument("--simulations", type=_positive_int, default=1000,
                         help="search games per move of uct and alphazero (default 1000)")
    othello.add_argument("--second", action="store_true", help="play White (O, player 2); the computer opens")
    othello.add_argument("--seed", type=int, help="seed of the computer's random choices")
    othello.set_defaults(run=_othello)


def _tak_options(games, summary: str) -> None:
    """``play.py tak``'s options."""
    from azcourse.tak.agents import OPPONENTS as TAK_OPPONENTS

    tak = games.add_parser("tak", help=summary,
                           description="Play Tak on an N x N board: build a road of flats joining opposite "
                                       "edges, or hold more flats on top when the board fills or a player "
                                       "runs out of pieces. Moves in Portable Tak Notation (a1, Sb2, 3a1>12).")
    tak.add_argument("--size", type=_tak_size, default=3, help="board size N, 3 to 6 (default 3)")
    tak.add_argument("--opponent", choices=tuple(TAK_OPPONENTS), default="mcts",
                     help="random, uct (random rollouts), mcts (the course report's agent: rollouts that take a "
                          "winning move, else the best flat count, else random), alphatak (the shipped 3x3, "
                          "4x4 or 5x5 network in the search) or classical:2, classical:3, classical:4 (the classical "
                          "yardstick: alpha-beta to that many plies, a hand-made evaluation) (default: mcts)")
    tak.add_argument("--simulations", type=_positive_int, default=1000,
                     help="search games per move of uct, mcts and alphatak (default 1000)")
    tak.add_argument("--second", action="store_true", help="play Black (player 2); the computer opens")
    tak.add_argument("--seed", type=int, help="seed of the computer's random choices")
    tak.set_defaults(run=_tak)


def _arena_options(games, summary: str) -> None:
    """``play.py arena``'s options."""
    from azcourse.azul_cli import AGENT_NAMES, add_arena_arguments

    arena = games.add_parser("arena", help=summary,
                             description="Play N Azul games between two agents, alternating seats and seeds, "
                                         f"in parallel on all cores; agents: {', '.join(AGENT_NAMES)}, "
                                         "strong+search:N (simulations), strong+search:0.5s (seconds a move).")
    add_arena_arguments(arena)
    arena.set_defaults(run=_arena)


OPTIONS = {"azul": _azul_options, "ttt": _ttt_options, "hex": _hex_options, "othello": _othello_options,
           "tak": _tak_options, "arena": _arena_options}


def _tolerant_streams() -> None:
    """Bytes on stdin that are not valid in its encoding become U+FFFD, so a game refuses them like
    any other text instead of stopping on a UnicodeDecodeError; text stdout cannot encode (a lone
    surrogate, an emoji on an ASCII terminal) is written as backslash escapes."""
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=errors)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(next((word for word in argv if word in GAMES), None)).parse_args(argv)
    _tolerant_streams()
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130
    except BrokenPipeError:  # the reader went away: silence the final flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    from azcourse.core.threads import use_one_thread

    use_one_thread()  # before numpy loads: a search calls the network one position at a time
    sys.exit(main())
