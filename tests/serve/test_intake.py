"""The intake's budget of bodies in flight (studio/serve/intake.py)."""

from __future__ import annotations

import pytest

from studio.serve.intake import BodyBudget, Busy


def test_claims_add_up_to_the_limit_and_are_given_back():
    budget = BodyBudget(limit=100)
    with budget.claim(60):
        with budget.claim(40):
            with pytest.raises(Busy) as busy, budget.claim(1):
                pass
            assert busy.value.status == 429 and busy.value.headers["Retry-After"] == "1"
        assert budget.claimed == 60
    assert budget.claimed == 0


def test_a_failed_read_gives_its_claim_back():
    budget = BodyBudget(limit=100)
    with pytest.raises(ValueError), budget.claim(100):
        raise ValueError("the client went away")
    assert budget.claimed == 0
