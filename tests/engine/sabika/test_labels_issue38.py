"""What Sabika's menus say (issue 38): each entry tells what it does and how it differs from
the others, in the words the rulebook and the picture use."""

from __future__ import annotations

import re

import pytest

import engine.sabika as sabika
from engine.sabika import rules
from engine.sabika.data import BALANCES, CITIES, CITY_TILES, MINORS
from engine.sabika.names import describe_bonus
from tests.engine.sabika.helpers import blank, give, kinds, step, turn_of, work

B = "blue"


def _labels(s: dict, role: str = B) -> list[str]:  # type: ignore[type-arg]
    return [str(a["label"]) for a in rules.actions(s, role)]


@pytest.mark.rule("sabika:phase-i-actions")
def test_two_builders_in_the_workshop_are_one_entry() -> None:
    """Both Master Builders in the workshop are the same choice: one entry, not
    ``Activate your builder (workshop)`` twice."""
    s = turn_of(blank(), B)
    labels = _labels(s)
    assert labels.count("Activate your Master Builder (in the workshop)") == 1
    assert len(labels) == len(set(labels)) == 3  # builder, merchant, poet


@pytest.mark.rule("sabika:phase-i-actions")
def test_builders_on_two_squares_of_one_action_say_which_square() -> None:
    """Squares 3 and 7 are both Construction: the entries name the square, as the moves do."""
    s = turn_of(blank(), B)
    workers = s["players"][B]["workers"]
    workers["builder1"]["at"], workers["builder2"]["at"] = 3, 7
    labels = _labels(s)
    assert "Activate your Master Builder (square 3, Construction)" in labels
    assert "Activate your Master Builder (square 7, Construction)" in labels
    assert len(labels) == len(set(labels))
    # both still reachable: a different choice each
    assert sorted(a["worker"] for a in rules.actions(s, B) if a["worker"].startswith("builder")) == \
        ["builder1", "builder2"]


@pytest.mark.rule("sabika:phase-i-actions")
def test_rest_for_a_worker_in_the_workshop_says_it_stays_there() -> None:
    s = turn_of(blank(), B)
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: stay in the workshop, earn 3 Dinars, lose 1 PP"]


@pytest.mark.rule("sabika:phase-i-actions")
def test_rest_for_a_worker_on_the_rondel_says_it_goes_back_and_what_it_costs() -> None:
    s = turn_of(blank(), B)
    s["players"][B]["workers"]["merchant"]["at"] = 2
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: back to the workshop, earn 3 Dinars, lose 1 PP"]
    s = turn_of(blank(), B)
    s["players"][B]["pp"] = 0
    for w in s["players"][B]["workers"].values():
        w["up"] = False
    s["players"][B]["workers"]["merchant"].update(up=True, at=2)
    s["players"][B]["dinars"] = 0
    s["sultan"]["middle"] = [sq for sq in range(7) for _ in range(3)]  # nowhere to go: the Rest is free
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: back to the workshop, earn 3 Dinars, no PP left to lose"]


@pytest.mark.rule("sabika:export-action")
def test_an_export_entry_tells_the_demand_from_the_bonus_and_the_seal() -> None:
    """``wants Sugar, Seal`` read as if the City wanted a Seal: the Seal and the City Bonus are
    what the export gives, the demand what it wants."""
    s = turn_of(blank(), B)
    give(s, B, "sugar")
    s = work(s, B, "merchant", 0)
    assert kinds(s) == "export"
    for a in rules.actions(s, B):
        tile = CITY_TILES[s["cities"][a["city"]]["tile"]]
        name = CITIES[a["city"]]["name"]
        assert a["label"].startswith(f"Export to {name} (cost ") or a["label"].startswith(f"Export to {name} (free, ")
        wants, bonus = a["label"].split("; bonus: ")
        assert wants.endswith(f"wants {tile['demand'].capitalize()}") and "Seal" not in wants
        assert bonus == f"{describe_bonus(tile['bonus'])} and its Seal)"


@pytest.mark.rule("sabika:minor-construction-action")
def test_the_ends_of_the_row_name_the_card_there_and_the_balance() -> None:
    """``left end / right end of your row`` without the colours at the ends: the entries name
    the card at each end, the half the new card meets and the Balance it completes."""
    s = turn_of(blank(), B)
    p = s["players"][B]
    start = p["row"][0]  # an Architectural Balance card: a colour on its left, wild on its right
    colour = BALANCES[start]["left"]
    card = next(c for c, m in MINORS.items() if m["right"] == colour and m["left"] != colour)
    s["stack"] = [{"kind": "place_minor", "role": B, "card": card}]
    labels = _labels(s)
    assert labels == [
        f"Place it at the left end of your row, against the {colour} half of Architectural Balance ({colour}|any): "
        f"completes a {colour} Architectural Balance",
        f"Place it at the right end of your row, against the wild half of Architectural Balance ({colour}|any): "
        f"completes a {MINORS[card]['left']} Architectural Balance",
    ]


# ---------------------------------------------------------------- over random games

def _menus_along(seeds: range, players: tuple[int, ...]) -> list[tuple[str, str, list[str]]]:
    """(decision kind, prompt, labels) of every menu along random games."""
    import engine
    from tests.engine.games import random_game

    module = engine.get("sabika")
    found = []
    for seed in seeds:
        for n in players:
            options = {"players": n, "events": "mixed" if seed % 2 else "negative"}
            for s in random_game("sabika", seed, options):
                if module.result(s) is not None:
                    continue
                for role in module.active(s):
                    kind = s["stack"][-1]["kind"] if s["stack"] else "start_tile"
                    view = module.view(s, role)
                    found.append((kind, str(view["prompt"]), [str(a["label"]) for a in view["actions"]]))
    return found


@pytest.fixture(scope="module")
def menus() -> list[tuple[str, str, list[str]]]:
    return _menus_along(range(1, 4), (1, 2, 4))


def test_every_amount_in_a_menu_has_its_unit(menus: list[tuple[str, str, list[str]]]) -> None:
    """``Buy 1 Gypsum for 1``, ``cost 2``: a number a player pays or earns says what of."""
    bare = re.compile(r"\b(?:for|cost) \d+(?! (?:Dinar|Dinars|PP|Paria|Parias|[A-Z][a-z]+))")
    bad = sorted({label for _, _, labels in menus for label in labels if bare.search(label)})
    assert not bad, bad[:5]


def test_menus_and_prompts_name_players_with_a_capital(menus: list[tuple[str, str, list[str]]]) -> None:
    """``blue starts the next round``: a player's name in a menu or a heading is capitalised."""
    roles = ("blue", "yellow", "pink", "green")
    bad = sorted({text for _, prompt, labels in menus for text in (prompt, *labels)
                  if re.search(rf"(?:^|for )(?:{'|'.join(roles)})\b", text)})
    assert not bad, bad[:5]


def test_the_movement_heading_says_what_its_entries_offer(menus: list[tuple[str, str, list[str]]]) -> None:
    """The heading promised ``2 steps free`` and a Rest whatever the Poems, the Event and the
    player's PP: it offers a Rest exactly when the menu does, and moves only when there are any."""
    seen = 0
    for kind, prompt, labels in menus:
        if kind != "work":
            continue
        seen += 1
        rest = any(label.startswith("Rest:") for label in labels)
        moves = any(label.startswith("Move to square") for label in labels)
        assert ("Rest it" in prompt) == rest, (prompt, labels)
        assert prompt.startswith("Move your") == moves, (prompt, labels)
    assert seen


def test_the_workers_have_the_rulebooks_names(menus: list[tuple[str, str, list[str]]]) -> None:
    """The rulebook's Master Builder, Merchant and Poet, as Yusuf's log lines call them."""
    labels = {label for kind, _, ls in menus if kind == "turn" for label in ls}
    assert labels and all(re.match(r"Activate your (?:Master Builder|Merchant|Poet) \(", label) for label in labels)


def test_the_tribute_heading_says_how_much_is_left() -> None:
    s = blank()
    s["stack"] = [{"kind": "tribute", "role": B, "left": 2, "total": 3}]
    s["players"][B]["dinars"] = 4
    view = sabika.view(s, B)
    assert view["prompt"] == "Tribute: choose how you pay the next Paria (2 of 3 Parias left to pay)."
    assert [a["label"] for a in view["actions"]] == ["Pay 2 Dinars for 1 Paria", "Lose 1 PP for 1 Paria"]


@pytest.mark.rule("sabika:minor-construction-action")
def test_an_end_that_completes_no_balance_says_so() -> None:
    s = turn_of(blank(), B)
    p = s["players"][B]
    end = next(c for c, m in MINORS.items() if m["right"] == "blue")
    card = next(c for c, m in MINORS.items() if m["left"] == "green" and c != end)
    p["row"].append(end)
    s["stack"] = [{"kind": "place_minor", "role": B, "card": card}]
    right = [label for label in _labels(s) if "right end" in label]
    assert right == [f"Place it at the right end of your row, against the blue half of {MINORS[end]['type'].capitalize()} "
                     f"on {MINORS[end]['base'].capitalize()} ({MINORS[end]['left']}|blue): no Architectural Balance"]


def test_log_lines_say_what_a_sum_is_paid_in() -> None:
    """``pays 3 (movement) with 1 Seal``, ``paying 2``: the log says Dinars and Seals."""
    from tests.engine.games import random_game

    bare = re.compile(r"\b(?:paying|pays) \d+(?! ?[A-Za-z])")  # a number with no noun after it
    bad = set()
    for seed in (1, 2):
        states = random_game("sabika", seed, {"players": 2})
        bad |= {e["text"] for e in states[-1]["log"] if bare.search(e["text"])}
    assert not bad, sorted(bad)[:5]


def test_the_storehouse_heading_names_the_item_and_says_when_all_are_full(
        menus: list[tuple[str, str, list[str]]]) -> None:
    """``Choose the Storehouse that receives the new item`` above ``Storehouse 1 is full...`` and
    ``Do not keep the Wood``: the heading names the item and says when every Storehouse is full."""
    seen = set()
    for kind, prompt, labels in menus:
        if kind != "store":
            continue
        full = any(label.startswith("Do not keep") for label in labels)
        seen.add(full)
        item = labels[-1].removeprefix("Do not keep the ") if full else labels[0].split("Put the ")[1].split(" in ")[0]
        assert prompt.startswith("Your Storehouses are full") == full and item in prompt, (prompt, labels)
    assert seen == {True, False}


def test_the_market_heading_counts_the_transactions_left(menus: list[tuple[str, str, list[str]]]) -> None:
    prompts = {prompt for kind, prompt, _ in menus if kind == "market"}
    assert prompts and all(re.match(r"Market \(\d+ transactions? left\)", p) for p in prompts), prompts
    labels = {label for kind, _, ls in menus if kind == "market" for label in ls}
    assert not any("left" in label for label in labels)
