"""Two pictures of an array-backed search tree.

Both read only these fields of the tree: ``state`` (nodes x 9), ``N_sa`` and ``Q_sa``
(nodes x 9), and ``find(board) -> node index or -1``. Children are recomputed with the
game rules, so the pictures work for any tree built with the homework's interface.
"""
from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
from matplotlib import colors
from matplotlib.collections import LineCollection
from matplotlib.patches import Rectangle

from .rules import GameRules, board_key

ROOT_PLAYER_COLOURS = colors.ListedColormap(["tab:red", "whitesmoke", "tab:blue"])


@dataclass
class _Entry:
    """One board drawn in a layer: its node (-1 for a terminal board) and its caption."""

    board: np.ndarray
    node: int
    caption: str
    parents: list = field(default_factory=list)


def _children(tree, rules: GameRules, node: int):
    """Yield (action, child_board, child_node, visits, q) for every visited action."""
    state = tree.state[node]
    for action in np.flatnonzero(tree.N_sa[node]):
        child = rules.play(state, int(action))
        yield int(action), child, tree.find(child), int(tree.N_sa[node, action]), tree.Q_sa[node, action]


def tree_layers(tree, rules: GameRules, root: int = 0, max_depth: int = 9) -> list[list[_Entry]]:
    """Group the searched boards by depth below the root (transpositions merged per layer)."""
    root_entry = _Entry(tree.state[root], root, f"root\nN={int(tree.N[root])}")  # N(s), as in the graph
    layers = [[root_entry]]
    while len(layers) <= max_depth:
        layer, index_of = [], {}
        for parent_position, parent in enumerate(layers[-1]):
            if parent.node < 0:
                continue
            for _, child, child_node, visits, q in _children(tree, rules, parent.node):
                key = board_key(child)
                if key in index_of:
                    layer[index_of[key]].parents.append(parent_position)
                    continue
                done = child_node < 0 and rules.reward(child)[1]
                if child_node < 0 and not done:
                    continue
                index_of[key] = len(layer)
                layer.append(_Entry(child, child_node, f"{visits}\n{q:+.2f}", [parent_position]))
        if not layer:
            break
        layers.append(layer)
    return layers


def plot_tree_layers(tree, rules: GameRules, root: int = 0, ax=None, max_depth: int = 9):
    """Board-by-board picture of the search: one row per depth, lines from parent to child.

    Boards are coloured from the ROOT player's view at every depth (blue = root player,
    red = opponent), so colours do not swap between rows. Under each child: the visit
    count of the move that leads to it and that move's mean value Q from the view of the
    player who made it.
    """
    layers = tree_layers(tree, rules, root, max_depth)
    ax = ax or plt.subplots(figsize=(18, 2.4 * len(layers)))[1]
    width = max(len(layer) for layer in layers)
    centres = []
    for depth, layer in enumerate(layers):
        spacing = width / max(len(layer), 1)
        xs = [(i + 0.5) * spacing for i in range(len(layer))]
        centres.append(xs)
        size = min(0.8, 0.8 * spacing)
        sign = 1 if depth % 2 == 0 else -1
        for x, entry in zip(xs, layer):
            cells = sign * np.asarray(entry.board, float).reshape(3, 3)
            left, bottom = x - size / 2, -depth * 2 - size / 2
            ax.imshow(cells[::-1], cmap=ROOT_PLAYER_COLOURS, vmin=-1, vmax=1, origin="lower",
                      extent=(left, left + size, bottom, bottom + size))
            ax.add_patch(Rectangle((left, bottom), size, size, fill=False, edgecolor="black", linewidth=0.5))
            if size > 0.25:
                ax.text(x, bottom - 0.1, entry.caption, ha="center", va="top", fontsize=8 if len(layer) < 25 else 7)
    segments = [((centres[d - 1][p], -(d - 1) * 2 - 0.45), (centres[d][i], -d * 2 + 0.45))
                for d in range(1, len(layers)) for i, entry in enumerate(layers[d]) for p in entry.parents]
    ax.add_collection(LineCollection(segments, colors="grey", linewidths=0.5, zorder=0))
    ax.set_xlim(0, width)
    ax.set_ylim(-2 * len(layers) + 0.5, 1)
    ax.set_axis_off()
    ax.set_title("Search tree, one row per move (blue = player to move at the root)")
    return ax


def draw_tree_graph(tree, rules: GameRules, root: int = 0, ax=None, max_nodes: int = 40):
    """Graph view of the most visited part of the tree (networkx; also reads ``tree.N``).

    Node label: ``node index`` and its visit count N(s). Edge label: Q(s, a) from the view
    of the player choosing the move. Only the `max_nodes` most visited nodes are drawn.
    """
    graph = nx.DiGraph()
    graph.add_node(root, depth=0)
    frontier = [root]
    while frontier and graph.number_of_nodes() < max_nodes:
        node = frontier.pop(0)
        order = sorted(_children(tree, rules, node), key=lambda child: -child[3])
        for _, _, child_node, _, q in order:
            if child_node < 0 or child_node in graph or graph.number_of_nodes() >= max_nodes:
                continue
            graph.add_node(child_node, depth=graph.nodes[node]["depth"] + 1)
            graph.add_edge(node, child_node, label=f"{q:+.2f}")
            frontier.append(child_node)
    ax = ax or plt.subplots(figsize=(12, 6))[1]
    positions = nx.multipartite_layout(graph, subset_key="depth", align="horizontal", scale=2)
    positions = {node: (x, -y) for node, (x, y) in positions.items()}  # root on top
    labels = {node: f"{node}\nN={int(tree.N[node])}" for node in graph}
    nx.draw(graph, positions, ax=ax, labels=labels, node_size=900, node_color="pink", font_size=7,
            arrows=False)
    nx.draw_networkx_edge_labels(graph, positions, ax=ax, font_color="red", font_size=7,
                                 edge_labels=nx.get_edge_attributes(graph, "label"))
    ax.set_title("MCTS graph: node index and visits; edges: Q for the player moving")
    return ax
