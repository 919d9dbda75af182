"""The per-user rate limiter of the table (issue 13, item 5): it still slows a user down, and
it keeps only the users active within its window, not every user it ever saw."""

from __future__ import annotations

from bot.discord.table import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_user_over_the_rate_is_refused_until_his_window_passes() -> None:
    clock = Clock()
    limiter = RateLimiter(3, window=10.0, clock=clock)
    assert [limiter.hit(7) for _ in range(4)] == [True, True, True, False]
    assert limiter.hit(8)  # another user is not slowed by the first
    clock.now += 10.5
    assert limiter.hit(7)


def test_it_keeps_only_the_users_of_the_last_window() -> None:
    clock = Clock()
    limiter = RateLimiter(12, window=10.0, clock=clock)
    for user in range(100_000):  # a hundred thousand users, ten a second
        clock.now += 0.1
        assert limiter.hit(user)
        assert len(limiter) <= 102
    clock.now += 11.0
    limiter.hit(-1)
    assert len(limiter) == 1


def test_a_burst_of_users_is_capped() -> None:
    clock = Clock()
    limiter = RateLimiter(12, window=10.0, max_users=500, clock=clock)
    for user in range(5_000):  # all at once: the cap holds, the newest are kept
        limiter.hit(user)
    assert len(limiter) == 500
    assert all(limiter.hit(user) for user in range(4_990, 5_000))
