"""The fair-deal seed: commitment, cut and reveal."""

from kseri import Match, Rules
from kseri.engine import Deal
from kseri.fairness import commitment, deal_seed, new_secret, verify_deal_seed


def test_a_deal_seed_is_checked_against_its_commitment_and_cut() -> None:
    secret = new_secret()
    published = commitment(secret)
    seed = deal_seed(secret, "the cutter's words")
    assert len(secret) == 64 and published != secret
    assert verify_deal_seed(published, secret, "the cutter's words", seed)
    assert not verify_deal_seed(published, secret, "other words", seed)
    assert not verify_deal_seed(commitment(new_secret()), secret, "the cutter's words", seed)


def test_the_cut_changes_the_deal_and_the_same_seed_gives_the_same_deal() -> None:
    rules = Rules.preset("greek")
    secret = new_secret()
    first = Deal.shuffle(rules, 0, deal_seed(secret, "a"))
    assert first == Deal.shuffle(rules, 0, deal_seed(secret, "a"))
    assert first != Deal.shuffle(rules, 0, deal_seed(secret, "b"))
    match = Match(rules, deal=first)
    assert match.view(1).hand == first.hands[0][1]


def test_daily_seeds_verify_and_differ() -> None:
    from kseri.fairness import commitment, daily_seeds, verify_daily_seed

    seeds = daily_seeds("s3cret", "2026-12-02", "greek")
    assert len(set(seeds)) == 3
    c = commitment("s3cret")
    assert all(verify_daily_seed(c, "s3cret", "2026-12-02", "greek", i, s) for i, s in enumerate(seeds))
    assert not verify_daily_seed(c, "s3cret", "2026-12-03", "greek", 0, seeds[0])
    assert not verify_daily_seed(c, "other", "2026-12-02", "greek", 0, seeds[0])
