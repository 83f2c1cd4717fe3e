"""Analysis (floor 6): the post-game review with verdicts in the game's own words, puzzles cut
from finished games, and win odds, all from the agents' one search (the master and the exact
endgame solver) and from the seat's view only.

- :mod:`~kseri.analysis.review`: every play judged (values, losses, accuracy);
- :mod:`~kseri.analysis.position`: the public facts of a position (the pile, captures, what is out);
- :mod:`~kseri.analysis.verdicts`: a costly play named (missed a kseri, gave one away, ...);
- :mod:`~kseri.analysis.search`: the search with its intervals and exact proofs;
- :mod:`~kseri.analysis.puzzles` and :mod:`~kseri.analysis.themes`: puzzles, their themes and ratings;
- :mod:`~kseri.analysis.odds`: the chance to win the round and the match;
- :mod:`~kseri.analysis.texts`: the words, in the six languages.
"""

from kseri.analysis.odds import Odds, odds
from kseri.analysis.puzzles import (
    Puzzle,
    PuzzleError,
    Rating,
    next_puzzle,
    puzzles_from_record,
    rate_attempt,
    read_puzzles,
    starting_set,
)
from kseri.analysis.review import (
    ANALYSIS_ITERATIONS,
    Analysis,
    PlayerSummary,
    PlayReview,
    analyse_plays,
    analyse_record,
    record_plays,
    review_play,
)
from kseri.analysis.search import Ranking, rank
from kseri.analysis.themes import Theme, themes
from kseri.analysis.verdicts import Kind, Reason, Verdict, judge, verdict_text

__all__ = [
    "ANALYSIS_ITERATIONS", "Analysis", "Kind", "Odds", "PlayReview", "PlayerSummary", "Puzzle", "PuzzleError",
    "Ranking", "Rating", "Reason", "Theme", "Verdict", "analyse_plays", "analyse_record", "judge",
    "next_puzzle", "odds", "puzzles_from_record", "rank", "rate_attempt", "read_puzzles", "record_plays",
    "review_play", "starting_set", "themes", "verdict_text",
]
