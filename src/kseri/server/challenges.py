"""Duplicate challenges: an account challenges another by name (or posts an open challenge that
any account may take) to a set of 4–16 deals of a rule family; each plays the same deals
against the same seeded bots in their own time, before a deadline; the result is compared
deal by deal, the difference of points summed (``docs/events.md``).

The pieces are the daily deal's (``server/daily.py``): a set of deals played alone against bots
whose choices depend only on the deal and the plays (:class:`~kseri.server.daily.DealSet`), the
deals shuffled from a secret committed when the challenge is made and revealed when it is over,
the result of a deal (:func:`~kseri.server.daily.result_of`) and the side-by-side comparison
(:func:`~kseri.server.daily.side_by_side`). Neither player sees the other's results or plays
before finishing their own set; a challenge not finished by both at its deadline expires, and
says who never played. Accounts only: a guest has no name to be challenged by, nor to come back
to. Its author may withdraw it until the other side has started playing.

A challenge is rated or casual. A rated one, once both sets are finished, counts for the family's
rating as one game between the two accounts (:func:`~kseri.server.ratings.record_match` with the
challenge's id instead of a table's): the sign of the summed difference decides, a win for the
player ahead, a draw at 0, whatever the margin (a match won by one point is won). Repeated
rated challenges between the same two accounts count as rated games do
(:data:`~kseri.server.ratings.REPEAT_GAMES` an hour). Once it is over, each player's deals are
game records with the revealed secret, which ``kseri verify`` checks (:meth:`Challenges.records`).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, Float, Index, Integer, String, Table, Text, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from kseri import fairness
from kseri.records import record_from_match
from kseri.server import db, moderation
from kseri.server.accounts import User, users
from kseri.server.daily import BOT_LEVEL, FAMILIES, DealSet, clock, side_by_side
from kseri.server.errors import ApiError
from kseri.server.ratings import (
    REPEAT_GAMES,
    REPEAT_WINDOW,
    Rating,
    rated_together,
    rating_history,
    record_match,
)
from kseri.server.refunds import annulled_challenges

DEALS = (4, 16)
"""The fewest and most deals in a challenge."""
HOURS = (1, 168)
"""The shortest and longest time to play a challenge (hours from its making)."""
OPEN_AT_ONCE = 20
"""The most challenges an account may have made that are not over yet (more: 429)."""
LISTED = 50
"""The most challenges a list shows (newest first)."""

challenges = Table(
    "challenges", db.metadata,
    Column("id", String(24), primary_key=True),
    Column("rules", String(20), nullable=False),
    Column("deals", Integer, nullable=False),
    Column("author_id", String(24), nullable=False, index=True),
    Column("opponent_id", String(24), nullable=True, index=True),  # an open challenge: none until taken
    Column("invited", Integer, nullable=False),  # 1: a named opponent, 0: open to anyone
    Column("answer", String(10), nullable=True),  # "accepted", "declined", or none yet
    Column("secret", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("deadline", Float, nullable=False),
    Column("rated", Integer, nullable=False, server_default="0"),  # 1: counts for the ratings (0013)
    Column("rated_at", Float, nullable=True),  # when its result was taken for the ratings (once)
    Index("challenges_open", "invited", "answer", "deadline"),
)
runs = Table(
    "challenge_runs", db.metadata,
    Column("challenge_id", String(24), primary_key=True),
    Column("user_id", String(24), primary_key=True),
    Column("plays", Text, nullable=False),
    Column("finished", Integer, nullable=False),
    Column("results", Text, nullable=True),
)


def challenge_seeds(secret: str, challenge_id: str, deals: int) -> list[str]:
    """A challenge's deal seeds: ``deal_seed(secret, "challenge:ID:i")`` for each deal."""
    return [fairness.deal_seed(secret, f"challenge:{challenge_id}:{i}") for i in range(deals)]


@dataclass
class Side:
    """One player of a challenge: the account and how far its set has got."""

    user_id: str
    name: str
    progress: str
    """``not-started``, ``playing`` or ``finished``."""
    results: list[int] | None


OVER = ("finished", "expired", "declined", "withdrawn")
"""The states of a challenge that is over."""


def status_of(row: dict[str, Any], sides: list[Side | None], now: float) -> str:
    """A challenge's state: ``declined``; ``withdrawn`` (by its author); ``finished`` (both sets
    played); ``expired`` (the deadline passed first); else ``open`` (waiting for a taker),
    ``invited`` (waiting for the named opponent's answer) or ``accepted`` (being played)."""
    if row["answer"] in ("declined", "withdrawn"):
        return str(row["answer"])
    if all(side is not None and side.progress == "finished" for side in sides):
        return "finished"
    if now >= row["deadline"]:
        return "expired"
    if row["answer"] == "accepted":
        return "accepted"
    return "invited" if row["invited"] else "open"


class Challenges:
    """The duplicate challenges over the server's database."""

    def __init__(self, store: db.Store, now: Callable[[], datetime] = clock) -> None:
        self.store = store
        self.now = now

    def _time(self) -> float:
        return self.now().timestamp()

    # -- making and answering ------------------------------------------------------------------

    async def create(self, author: User, opponent: str | None, family: str, deals: int,
                     hours: int, rated: bool = False) -> dict[str, Any]:
        """A new challenge by ``author``: to ``opponent`` by name, or open to anyone (``None``);
        rated or casual."""
        if family not in FAMILIES:
            raise ApiError(422, "bad-rules", f"challenges are played in {', '.join(FAMILIES)}, "
                           f"not {family!r}",
                           field="rules")
        if not DEALS[0] <= deals <= DEALS[1]:
            raise ApiError(422, "bad-deals", f"a challenge has {DEALS[0]} to {DEALS[1]} deals, not {deals}",
                           field="deals")
        if not HOURS[0] <= hours <= HOURS[1]:
            raise ApiError(422, "bad-hours", f"a challenge lasts {HOURS[0]} to {HOURS[1]} hours, not {hours}",
                           field="hours")
        opponent_id = None
        if opponent is not None:
            opponent_id = await self._account(opponent)
            if opponent_id == author.id:
                raise ApiError(422, "self-challenge", "you cannot challenge yourself", field="opponent")
            if await may_not_challenge(self.store, author.id, opponent_id):
                raise ApiError(403, "blocked", f"you cannot challenge {opponent}", field="opponent")
        now = self._time()
        async with self.store.engine.begin() as connection:
            waiting = await connection.scalar(select(func.count()).select_from(challenges).where(
                challenges.c.author_id == author.id, challenges.c.deadline > now,
                or_(challenges.c.answer.is_(None), challenges.c.answer == "accepted")))
            if (waiting or 0) >= OPEN_AT_ONCE:
                raise ApiError(429, "too-many-challenges", f"you have {OPEN_AT_ONCE} challenges not over "
                               "yet; wait for one to finish or expire")
            secret = fairness.new_secret()
            challenge_id = secrets.token_hex(8)
            await connection.execute(insert(challenges).values(
                id=challenge_id, rules=family, deals=deals, author_id=author.id, opponent_id=opponent_id,
                invited=int(opponent_id is not None), answer=None, secret=secret,
                commitment=fairness.commitment(secret), created=now, deadline=now + hours * 3600,
                rated=int(rated)))
        return await self.show(challenge_id, author.id)

    async def _account(self, username: str) -> str:
        try:
            return (await moderation.account(self.store, username[:40])).id
        except moderation.ModerationError:
            raise ApiError(404, "no-such-player", f"there is no player {username!r}",
                           field="opponent") from None

    async def _row(self, challenge_id: str) -> dict[str, Any]:
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(challenges).where(challenges.c.id == challenge_id[:24]))
                   ).mappings().first()
        if row is None:
            raise ApiError(404, "no-such-challenge", f"there is no challenge {challenge_id!r}")
        return dict(row)

    async def answer(self, challenge_id: str, user: User, accept: bool) -> dict[str, Any]:
        """Accept or decline a challenge: the named opponent, or (accepting only) anyone but the
        author for an open challenge, before the deadline."""
        row = await self._row(challenge_id)
        verb = "accept" if accept else "decline"
        if row["author_id"] == user.id:
            raise ApiError(409, "own-challenge", f"you cannot {verb} your own challenge")
        if row["invited"] and row["opponent_id"] != user.id:
            raise ApiError(403, "not-invited", "this challenge is for another player")
        if not row["invited"] and not accept:
            raise ApiError(409, "open-challenge", "an open challenge is not declined: leave it "
                           "for someone else")
        if row["answer"] == "withdrawn":
            raise ApiError(409, "challenge-withdrawn", "its author has withdrawn this challenge")
        if row["answer"] is not None:
            raise ApiError(409, "challenge-answered", f"this challenge was {row['answer']} already")
        if self._time() >= row["deadline"]:
            raise ApiError(409, "challenge-expired", "this challenge has expired")
        if accept and await may_not_challenge(self.store, row["author_id"], user.id):
            raise ApiError(403, "blocked", "you cannot take this challenge")
        async with self.store.engine.begin() as connection:
            done = await connection.execute(update(challenges).where(
                challenges.c.id == row["id"], challenges.c.answer.is_(None)).values(
                answer="accepted" if accept else "declined", opponent_id=user.id))
        if done.rowcount != 1:  # taken at the same moment by someone else
            raise ApiError(409, "challenge-answered", "this challenge was taken already")
        return await self.show(row["id"], user.id)

    async def withdraw(self, challenge_id: str, user: User) -> dict[str, Any]:
        """Its author takes a challenge back: before it is over and before the other side has
        started playing (the author's own plays do not matter). It is then over, secret shown."""
        row = await self._row(challenge_id)
        if row["author_id"] != user.id:
            raise ApiError(403, "not-author", "only the challenge's author may withdraw it")
        status = status_of(row, await self._sides(row), self._time())
        if status in OVER:
            raise ApiError(409, "challenge-over", f"this challenge is {status}: there is nothing to withdraw")
        their_run = select(runs.c.user_id).where(runs.c.challenge_id == row["id"],
                                                 runs.c.user_id == challenges.c.opponent_id).exists()
        async with self.store.engine.begin() as connection:
            done = await connection.execute(update(challenges).where(
                challenges.c.id == row["id"], ~their_run,
                or_(challenges.c.answer.is_(None), challenges.c.answer == "accepted"),
            ).values(answer="withdrawn"))
        if done.rowcount != 1:
            raise ApiError(409, "opponent-playing", "your opponent has started playing this challenge: "
                           "it can no longer be withdrawn")
        return await self.show(row["id"], user.id)

    # -- what a player sees --------------------------------------------------------------------

    async def _sides(self, row: dict[str, Any]) -> list[Side | None]:
        ids = [row["author_id"], row["opponent_id"]]
        async with self.store.engine.connect() as connection:
            names = dict((await connection.execute(select(users.c.id, users.c.username).where(
                users.c.id.in_([i for i in ids if i is not None])))).tuples().all())
            played = {r["user_id"]: r for r in (await connection.execute(select(runs).where(
                runs.c.challenge_id == row["id"]))).mappings().all()}
        sides: list[Side | None] = []
        for user_id in ids:
            if user_id is None:
                sides.append(None)
                continue
            run = played.get(user_id)
            progress = ("finished" if run["finished"] else "playing") if run and json.loads(run["plays"]) \
                else "not-started"
            results = json.loads(run["results"]) if run and run["results"] else None
            sides.append(Side(user_id, names.get(user_id, "?"), progress, results))
        return sides

    async def show(self, challenge_id: str, viewer: str | None) -> dict[str, Any]:
        """A challenge as ``viewer`` may see it: the sides' names and progress, each side's
        results only once the viewer has finished their own set (or is not in it and it is
        over), the difference once both finished, the secret once it is over."""
        row = await self._row(challenge_id)
        sides = await self._sides(row)
        status = status_of(row, sides, self._time())
        over = status in OVER
        mine = next((s for s in sides if s is not None and s.user_id == viewer), None)
        sees = over or (mine is not None and mine.progress == "finished")
        shown = [None if s is None else {
            "name": s.name, "progress": s.progress,
            "results": s.results if (sees or s is mine) else None} for s in sides]
        out: dict[str, Any] = {
            "id": row["id"], "rules": row["rules"], "deals": row["deals"], "status": status,
            "open": not row["invited"], "author": shown[0], "opponent": shown[1],
            "created": datetime.fromtimestamp(row["created"], UTC).isoformat(),
            "deadline": datetime.fromtimestamp(row["deadline"], UTC).isoformat(),
            "commitment": row["commitment"], "secret": row["secret"] if over else None,
            "you": None if mine is None else ("author" if mine is sides[0] else "opponent"),
            "difference": None, "winner": None, "rated": bool(row["rated"]), "rating": None}
        if status == "expired":
            out["never_played"] = [s.name for s in sides if s is not None and s.progress == "not-started"]
            out["unfinished"] = [s.name for s in sides if s is not None and s.progress == "playing"]
            out["never_accepted"] = row["answer"] is None
        if status == "finished":
            a, b = (s for s in sides if s is not None)
            assert a.results is not None and b.results is not None
            out["difference"] = sum(a.results) - sum(b.results)
            out["winner"] = a.name if out["difference"] > 0 else b.name if out["difference"] < 0 else None
            if row["rated"]:
                out["rating"] = await self._rating(row, sides)
        if mine is not None and mine.progress != "not-started":
            out["run"] = (await self._set(row, mine.user_id)).state()
        return out

    async def mine(self, user: User) -> dict[str, Any]:
        """An account's challenges: invitations waiting for its answer, every challenge it is in
        (newest first), and open challenges by others it may take."""
        now = self._time()
        async with self.store.engine.connect() as connection:
            ids = (await connection.execute(select(challenges.c.id).where(
                or_(challenges.c.author_id == user.id, challenges.c.opponent_id == user.id))
                .order_by(challenges.c.created.desc()).limit(LISTED))).scalars().all()
            open_ids = (await connection.execute(select(challenges.c.id).where(
                challenges.c.invited == 0, challenges.c.answer.is_(None), challenges.c.deadline > now,
                challenges.c.author_id != user.id).order_by(challenges.c.created.desc()).limit(LISTED))
                        ).scalars().all()
        listed = [await self.show(i, user.id) for i in ids]
        offered = [await self.show(i, user.id) for i in open_ids]
        return {"invitations": [c for c in listed if c["status"] == "invited" and c["you"] == "opponent"],
                "challenges": listed, "open": offered}

    # -- playing -------------------------------------------------------------------------------

    async def _stored(self, row: dict[str, Any], user_id: str) -> tuple[DealSet, str | None]:
        """A player's set re-played from its stored plays (a few milliseconds for 16 deals:
        nothing is kept in memory, so any process may answer), and those plays as stored
        (``None``: not started)."""
        async with self.store.engine.connect() as connection:
            plays = await connection.scalar(select(runs.c.plays).where(
                runs.c.challenge_id == row["id"], runs.c.user_id == user_id))
        deal_set = DealSet(kind="challenge", cut=row["id"], family=row["rules"],
                           seeds=challenge_seeds(row["secret"], row["id"], row["deals"]))
        deal_set.replay(json.loads(plays) if plays else [])
        return deal_set, plays

    async def _set(self, row: dict[str, Any], user_id: str) -> DealSet:
        return (await self._stored(row, user_id))[0]

    async def _playable(self, challenge_id: str, user: User) -> dict[str, Any]:
        row = await self._row(challenge_id)
        if user.id not in (row["author_id"], row["opponent_id"]):
            raise ApiError(403, "not-in-challenge", "this challenge is between other players")
        if row["answer"] == "declined":
            raise ApiError(409, "challenge-declined", "this challenge was declined")
        if row["answer"] == "withdrawn":
            raise ApiError(409, "challenge-withdrawn", "its author has withdrawn this challenge")
        if user.id != row["author_id"] and row["answer"] != "accepted":
            raise ApiError(409, "challenge-not-accepted", "accept the challenge first")
        if self._time() >= row["deadline"]:
            raise ApiError(409, "challenge-expired", "this challenge has expired: its deadline has passed")
        return row

    async def start(self, challenge_id: str, user: User) -> dict[str, Any]:
        """Open the player's set (again: it is as it was); its first deal in play."""
        row = await self._playable(challenge_id, user)
        try:
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(runs).values(
                    challenge_id=row["id"], user_id=user.id, plays="[]", finished=0, results=None))
        except IntegrityError:
            pass  # started before: resumed
        if (await self._row(row["id"]))["answer"] == "withdrawn":  # withdrawn at the same moment
            raise ApiError(409, "challenge-withdrawn", "its author has withdrawn this challenge")
        return (await self._set(row, user.id)).state()

    async def play(self, challenge_id: str, user: User, card: str) -> dict[str, Any]:
        """The player's card, the bots' answers, stored before the answer; the set as it stands."""
        row = await self._playable(challenge_id, user)
        deal_set, stored = await self._stored(row, user.id)
        if stored is None:
            raise ApiError(409, "challenge-not-started", "start your set first")
        if deal_set.finished:
            raise ApiError(409, "challenge-finished", "you have played every deal of this challenge")
        try:
            deal_set.play_card(card)
        except ValueError as error:
            raise ApiError(422, "bad-play", str(error), field="card") from None
        results = deal_set.results() if deal_set.finished else None
        async with self.store.engine.begin() as connection:
            done = await connection.execute(update(runs).where(  # only over the plays it followed
                runs.c.challenge_id == row["id"], runs.c.user_id == user.id, runs.c.plays == stored).values(
                plays=json.dumps(deal_set.plays), finished=int(deal_set.finished),
                results=None if results is None else json.dumps(results)))
        if done.rowcount != 1:
            raise ApiError(409, "play-crossed", "another play of yours was taken at the same moment: "
                           "look at your set again")
        if deal_set.finished and row["rated"]:
            await self._rate(row)
        return deal_set.state()

    # -- rated challenges ----------------------------------------------------------------------

    async def _rate(self, row: dict[str, Any]) -> None:
        """Count a rated challenge whose sets are both finished for the family's rating, once:
        the one request that marks it (``rated_at``) rates it."""
        sides = await self._sides(row)
        if status_of(row, sides, self._time()) != "finished":
            return
        async with self.store.engine.begin() as connection:
            marked = await connection.execute(update(challenges).where(
                challenges.c.id == row["id"], challenges.c.rated_at.is_(None)).values(rated_at=time.time()))
        if marked.rowcount != 1:
            return  # the other player's last play rated it
        a, b = (s for s in sides if s is not None)
        users = [a.user_id, b.user_id]
        if await rated_together(self.store, users, time.time() - REPEAT_WINDOW) >= REPEAT_GAMES:
            return  # a pair of accounts cannot farm a rating from each other: left unrated
        assert a.results is not None and b.results is not None
        difference = sum(a.results) - sum(b.results)
        ranks = [0, 0] if difference == 0 else [0, 1] if difference > 0 else [1, 0]
        await record_match(self.store, None, row["rules"], [[a.user_id], [b.user_id]], ranks,
                           challenge_id=row["id"])

    async def _rating(self, row: dict[str, Any], sides: list[Side | None]) -> dict[str, Any]:
        """A finished rated challenge's effect on the ratings: ``rated`` with each player's rating
        before and after by name, ``pending`` before it is counted, or ``unrated`` (repeated
        between the same two accounts) or ``annulled`` (by a refund, ``server/refunds.py``)."""
        if row["rated_at"] is None:
            return {"status": "pending"}
        names = {s.user_id: s.name for s in sides if s is not None}
        async with self.store.engine.connect() as connection:
            entries = (await connection.execute(select(rating_history).where(
                rating_history.c.challenge_id == row["id"]))).mappings().all()
            annulled = await connection.scalar(select(annulled_challenges.c.at).where(
                annulled_challenges.c.challenge_id == row["id"]))
            players: dict[str, Any] = {}
            for entry in entries:
                earlier = (await connection.execute(
                    select(rating_history.c.mu, rating_history.c.sigma).where(
                        rating_history.c.user_id == entry["user_id"],
                        rating_history.c.family == entry["family"], rating_history.c.id < entry["id"])
                    .order_by(rating_history.c.id.desc()).limit(1))).first()
                old = Rating() if earlier is None else Rating(earlier[0], earlier[1])
                new = Rating(entry["mu"], entry["sigma"])
                players[names.get(entry["user_id"], "?")] = {
                    "before": old.to_json(), "after": new.to_json(), "change": round(new.mu) - round(old.mu)}
        if annulled is not None:
            return {"status": "annulled"}
        return {"status": "rated", "players": players} if players else {"status": "unrated"}

    async def records(self, challenge_id: str, side: str) -> list[dict[str, Any]]:
        """One side's (``author`` or ``opponent``) finished deals as game records, once the
        challenge is over, each with the revealed secret and its public cut
        (``challenge:ID:i``): ``kseri verify`` checks each deal came from the committed secret."""
        row = await self._row(challenge_id)
        sides = await self._sides(row)
        status = status_of(row, sides, self._time())
        if status not in OVER:
            raise ApiError(409, "challenge-not-over", f"this challenge is {status}: its records are "
                           "published once it is over")
        index = ("author", "opponent").index(side)
        player = sides[index]
        if player is None or player.progress == "not-started":
            raise ApiError(404, "no-records", f"the {side} has played no deal of this challenge")
        deal_set = await self._set(row, player.user_id)
        out = []
        for number, match in enumerate(deal_set.matches):
            if not match.is_round_over():
                continue
            proof = [{"commitment": row["commitment"], "secret": row["secret"],
                      "cut": f"challenge:{row['id']}:{number}"}]
            record = record_from_match(match, names=[player.name] + [f"{BOT_LEVEL} bot"] * (
                match.rules.players - 1), fairness=proof)
            record["challenge"] = {"id": row["id"], "rules": row["rules"], "round": number,
                                   "commitment": row["commitment"]}
            out.append(record)
        return out

    async def versus(self, challenge_id: str, viewer: str | None) -> dict[str, Any]:
        """Both players' sets side by side, deal by deal, once both have finished (to anyone);
        before that a player who has not finished is told to play first."""
        row = await self._row(challenge_id)
        sides = await self._sides(row)
        status = status_of(row, sides, self._time())
        if status != "finished":
            mine = next((s for s in sides if s is not None and s.user_id == viewer), None)
            if mine is not None and mine.progress != "finished":
                raise ApiError(403, "play-first", "the other player's deals are secret until you have "
                               "finished yours")
            raise ApiError(409, "challenge-unfinished", f"this challenge is {status}: the deals are "
                           "compared once both players have finished")
        a, b = (s for s in sides if s is not None)
        first, second = await self._set(row, a.user_id), await self._set(row, b.user_id)
        compared = side_by_side(first, second)
        return {"id": row["id"], "rules": row["rules"], "names": [a.name, b.name]} | compared


async def may_not_challenge(store: db.Store, author_id: str, opponent_id: str) -> bool:
    """Whether a block between two accounts stops one challenging the other (moderation's
    blocks, either way: a blocked player cannot challenge the blocker, nor the blocker them)."""
    return await moderation.either_blocks(store, author_id, opponent_id)



async def results_of(store: db.Store, user_id: str, limit: int = LISTED) -> list[dict[str, Any]]:
    """An account's finished challenges, newest first, as its profile lists them: the rules and
    deals, the opponent, ``won``/``lost``/``drawn`` by the summed difference (the player's
    points minus the opponent's, deal by deal), whether it was rated."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(challenges).where(
            or_(challenges.c.author_id == user_id, challenges.c.opponent_id == user_id),
            challenges.c.answer == "accepted").order_by(challenges.c.created.desc()))).mappings().all()
        ids = [row["id"] for row in rows]
        played = (await connection.execute(select(runs.c.challenge_id, runs.c.user_id, runs.c.results).where(
            runs.c.challenge_id.in_(ids), runs.c.finished == 1))).all()
        totals = {(challenge_id, user): sum(json.loads(results)) for challenge_id, user, results in played}
        others = {row["opponent_id"] if row["author_id"] == user_id else row["author_id"] for row in rows}
        names = dict((await connection.execute(select(users.c.id, users.c.username).where(
            users.c.id.in_(list(others))))).tuples().all())
    out: list[dict[str, Any]] = []
    for row in rows:
        other = row["opponent_id"] if row["author_id"] == user_id else row["author_id"]
        mine, theirs = totals.get((row["id"], user_id)), totals.get((row["id"], other))
        if mine is None or theirs is None:
            continue  # not finished by both
        difference = mine - theirs
        out.append({"id": row["id"], "rules": row["rules"], "deals": row["deals"],
                    "opponent": names.get(other, "?"), "difference": difference, "rated": bool(row["rated"]),
                    "result": "won" if difference > 0 else "lost" if difference < 0 else "drawn",
                    "created": datetime.fromtimestamp(row["created"], UTC).isoformat()})
        if len(out) == limit:
            break
    return out
