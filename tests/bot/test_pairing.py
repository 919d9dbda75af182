"""Tournament pairings, points and tie-breaks (bot/service/pairing.py) against hand-worked
examples: an 8-player Swiss of three rounds, a Swiss with a bye, a 5-player round robin by
the circle method, and tables of 3 and 4 for 7 players."""

from __future__ import annotations

from bot.service.pairing import (
    Played,
    game_points,
    pods_round,
    round_robin,
    round_robin_bye,
    standings,
    swiss_round,
    table_sizes,
)

SEEDS = {p: 100.0 - p for p in range(1, 9)}  # player 1 rated highest


def two(rnd: int, first: int, second: int, winner: int | None) -> Played:
    """A two-seat game: ``first`` on the first side; ``winner`` None: a draw."""
    places = {first: 1, second: 1} if winner is None else {winner: 1, (second if winner == first else first): 2}
    return Played(rnd, places, {first: 0, second: 1})


def test_points_per_game() -> None:
    assert game_points({1: 1, 2: 2}) == {1: 1.0, 2: 0.0}
    assert game_points({1: 1, 2: 1}) == {1: 0.5, 2: 0.5}
    assert game_points({1: 1, 2: 2, 3: 2, 4: 4}) == {1: 1.0, 2: 0.5, 3: 0.5, 4: 0.0}
    assert game_points({7: 1}) == {7: 1.0}  # a bye


def test_an_eight_player_swiss_of_three_rounds() -> None:
    players = list(range(1, 9))
    games: list[Played] = []
    # Round 1: the standing is the rating order; neighbours meet, the higher ranked on the first side.
    pairs, bye = swiss_round([s.player for s in standings(players, games, "swiss", SEEDS)], games)
    assert (pairs, bye) == ([(1, 2), (3, 4), (5, 6), (7, 8)], None)
    games += [two(1, 1, 2, 1), two(1, 3, 4, 4), two(1, 5, 6, 5), two(1, 7, 8, 8)]
    # After round 1: winners 1, 4, 5, 8 (Buchholz 0), losers 2, 3, 6, 7 (Buchholz 1), by rating.
    ranked = [s.player for s in standings(players, games, "swiss", SEEDS)]
    assert ranked == [1, 4, 5, 8, 2, 3, 6, 7]
    pairs, bye = swiss_round(ranked, games)
    # Sides: the one who had the second side takes the first.
    assert pairs == [(4, 1), (8, 5), (2, 3), (6, 7)]
    games += [two(2, 4, 1, 4), two(2, 8, 5, 5), two(2, 2, 3, None), two(2, 6, 7, 7)]
    table = standings(players, games, "swiss", SEEDS)
    # 4 and 5 have 2 points: Buchholz 0.5 + 1 = 1.5 against 0 + 1 = 1. Among 1, 7, 8 (1 point):
    # Buchholz 8: 1 + 2 = 3, 1: 0.5 + 2 = 2.5, 7: 1 + 0 = 1. 3 over 2 (0.5 each): 2.5 against 1.5.
    assert [(s.player, s.points, s.tiebreaks[0]) for s in table] == [
        (4, 2.0, 1.5), (5, 2.0, 1.0), (8, 1.0, 3.0), (1, 1.0, 2.5), (7, 1.0, 1.0), (3, 0.5, 2.5), (2, 0.5, 1.5),
        (6, 0.0, 3.0)]
    pairs, bye = swiss_round([s.player for s in table], games)
    # No repeat: 4-5, 8-1, 7-3, 2-6. Sides: 5, 1 and 2 had the second side last (their
    # balance is even); 7 had the second side twice.
    assert pairs == [(5, 4), (1, 8), (7, 3), (2, 6)]
    games += [two(3, 5, 4, 5), two(3, 1, 8, 1), two(3, 7, 3, 3), two(3, 2, 6, None)]
    final = standings(players, games, "swiss", SEEDS)
    # 5: Buchholz 0.5 + 1 + 2 = 3.5, all won. 4 (2 points) over 1 (2): Buchholz 1.5 + 2 + 3 = 6.5 against 1 + 2 + 1 = 4. Among the
    # 1-pointers 8 (Buchholz 1 + 3 + 2 = 6), 2 (2 + 1.5 + 0.5 = 4), 7 (1 + 0.5 + 1.5 = 3).
    assert [(s.player, s.rank, s.points, s.tiebreaks) for s in final] == [
        (5, 1, 3.0, (3.5, 3.5)), (4, 2, 2.0, (6.5, 3.5)), (1, 3, 2.0, (4.0, 2.0)), (3, 4, 1.5, (4.0, 1.5)),
        (8, 5, 1.0, (6.0, 1.0)), (2, 6, 1.0, (4.0, 1.0)), (7, 7, 1.0, (3.0, 0.5)), (6, 8, 0.5, (5.0, 0.5))]


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    players = [1, 2, 3, 4, 5]
    pairs, bye = swiss_round(players, [])
    assert (pairs, bye) == ([(1, 2), (3, 4)], 5)
    games = [two(1, 1, 2, 1), two(1, 3, 4, 3), Played(1, {5: 1})]
    ranked = [s.player for s in standings(players, games, "swiss", SEEDS)]
    assert ranked == [1, 3, 5, 2, 4]  # the bye's point: 5 leads the losers (and no Buchholz from it)
    pairs, bye = swiss_round(ranked, games)
    assert bye == 4  # 5 had his bye
    # 1-3 and 2-5 (never met). Sides: 1 and 3 both had the first side once: the higher ranked
    # takes it; 2 had the second side, 5 no side at all.
    assert pairs == [(1, 3), (2, 5)]


def test_a_five_player_round_robin_by_the_circle_method() -> None:
    players = [1, 2, 3, 4, 5]
    rounds = round_robin(players)
    assert rounds == [[(5, 2), (3, 4)], [(5, 1), (2, 3)], [(1, 4), (3, 5)], [(3, 1), (2, 4)], [(1, 2), (4, 5)]]
    assert [round_robin_bye(players, r) for r in rounds] == [1, 4, 2, 5, 3]
    met = sorted(tuple(sorted(p)) for r in rounds for p in r)
    assert met == sorted((a, b) for a in players for b in players if a < b)  # everyone once
    double = round_robin(players, double=True)
    assert len(double) == 10 and double[5] == [(2, 5), (4, 3)]  # sides swapped in the second cycle

    results = {(5, 2): 5, (3, 4): None, (5, 1): 1, (2, 3): 2, (1, 4): 4, (3, 5): 3, (3, 1): 1, (2, 4): None,
               (1, 2): 2, (4, 5): None}
    games = [two(r + 1, a, b, results[(a, b)]) for r, pairs in enumerate(rounds) for a, b in pairs]
    games += [Played(r + 1, {round_robin_bye(players, pairs) or 0: 1}) for r, pairs in enumerate(rounds)]
    table = standings(players, games, "round_robin", SEEDS)
    # 2 and 4 (2.5): they drew (head-to-head 0.5 each), 2 won twice and 4 once. 3 and 5 (1.5):
    # 3 beat 5. Byes count a point each, for everyone alike.
    assert [(s.player, s.rank, s.points, s.tiebreaks) for s in table] == [
        (2, 1, 3.5, (0.5, 2.0)), (4, 2, 3.5, (0.5, 1.0)), (1, 3, 3.0, (0.0, 2.0)), (3, 4, 2.5, (1.0, 1.0)),
        (5, 5, 2.5, (0.0, 1.0))]


def test_pods_of_three_and_four_for_seven_players() -> None:
    assert table_sizes(7, 4, 3) == [4, 3]
    assert table_sizes(8, 4, 3) == [4, 4]
    assert table_sizes(10, 6, 3) == [5, 5]
    assert pods_round([1, 2, 3, 4, 5, 6, 7], 1, 4, 3) == [[1, 2, 3, 4], [5, 6, 7]]
    # Round 2, by standing 3, 1, 5, 2 | 7, 4, 6: each table turned one seat.
    assert pods_round([3, 1, 5, 2, 7, 4, 6], 2, 4, 3) == [[1, 5, 2, 3], [4, 6, 7]]
    games = [Played(1, {1: 1, 2: 2, 3: 2, 4: 4}), Played(1, {5: 2, 6: 1, 7: 3})]
    table = standings(list(range(1, 8)), games, "pods", SEEDS)
    assert [(s.player, s.points) for s in table] == [(1, 1.0), (6, 1.0), (2, 0.5), (3, 0.5), (5, 0.5),
                                                    (4, 0.0), (7, 0.0)]


def test_a_swiss_longer_than_its_players_allow_repeats_after_a_bounded_search() -> None:
    # Four players, everyone has met everyone: round 4 must repeat a pairing, and finds one.
    games = [two(1, 1, 2, 1), two(1, 3, 4, 3), two(2, 1, 3, 1), two(2, 2, 4, 2), two(3, 1, 4, 1),
             two(3, 2, 3, 2)]
    pairs, bye = swiss_round([1, 2, 3, 4], games)
    assert bye is None and sorted(sorted(p) for p in pairs) == [[1, 2], [3, 4]]
