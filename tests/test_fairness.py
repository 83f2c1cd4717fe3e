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
