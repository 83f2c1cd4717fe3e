"""A lesson played through the engine into a script: plain JSON data that the web page and the
terminal both read, with its texts in one language.

A script is ``{"id", "title", "intro", "rules", "steps"}``; each step has ``kind`` (``play``,
``count`` or ``choice``), ``do`` (what to do) and ``done`` (what happened), and:

- ``play``: ``before`` (the table as the learner sees it), ``card`` (the card to play),
  ``wrong`` (for every other card in hand, why not), ``events`` (the plays that follow, in
  words, with their ``marks``) and ``after`` (the table once the opponent has answered);
- ``count``: ``answer`` (an integer), ``captured`` (the learner's cards), ``breakdown`` (the
  round's score in words);
- ``choice``: ``options`` (texts) and ``answer`` (the index of the right one), ``cards`` (a
  centre to judge, if any).

A table (``before``/``after``) is ``hand``, ``centre`` (bottom to top), ``face_down``,
``seen`` (face-down cards the learner took), ``shown`` (Pisti's bottom card), ``opponent``
(cards in the opponent's hand), ``stock``, ``captured`` and ``kseris`` (per side: you, the
opponent), ``last_capturer`` (0, 1 or ``None``), ``round_over``.
"""

from __future__ import annotations

from typing import Any

from kseri.cards import ALL_CARDS, Card, parse_cards
from kseri.engine import Deal, IllegalPlayError, Match, PublicPlay, View, must_relay_centre, shuffled
from kseri.learn.lessons import LESSONS, Centre, Count, Lesson, Play, Target
from kseri.learn.text import lesson_texts
from kseri.rules import CentreDeal, Rules, match_winner

LEARNER = 0
OPPONENT = 1

JSON = dict[str, Any]


class LessonError(ValueError):
    """A lesson whose data does not fit the engine (a wrong card, a deal that cannot be)."""


def prepared_deal(lesson: Lesson, rules: Rules) -> Deal:
    """The lesson's deal: its centre and fixed hands, the rest of the deck shuffled (from the
    lesson's name, so always the same) into the other hands."""
    centre = tuple(parse_cards(lesson.centre))
    fixed = {slot: tuple(parse_cards(cards)) for slot, cards in lesson.hands.items()}
    used = {*centre, *(card for cards in fixed.values() for card in cards)}
    unused = [card for card in ALL_CARDS[: rules.deck_size] if card not in used]
    rest, _ = shuffled(unused, f"learn:{lesson.id}", 0)
    hands = []
    for batch in range(rules.batches):
        seats = []
        for seat in range(rules.players):
            if (batch, seat) in fixed:
                seats.append(fixed[batch, seat])
            else:
                seats.append(tuple(rest[: rules.batch_size]))
                del rest[: rules.batch_size]
        hands.append(tuple(seats))
    pisti = rules.centre_deal is CentreDeal.PISTI
    deal = Deal(
        dealer=lesson.dealer,
        centre=centre,
        face_down=rules.centre_size - 1 if pisti else 0,
        hands=tuple(hands),
        shown=hands[-1][lesson.dealer][-1] if pisti else None,
    )
    try:
        deal.check(rules)
    except IllegalPlayError as error:
        raise LessonError(f"lesson {lesson.id}: {error}") from None
    return deal


def _table(match: Match) -> JSON:
    """The table as the learner sees it (from the learner's view only)."""
    view = match.view(LEARNER)
    return {
        "hand": [str(card) for card in view.hand],
        "centre": [str(card) for card in _visible_pile(view)],
        "face_down": view.face_down,
        "seen": [str(card) for card in view.face_down_seen],
        "shown": str(view.shown) if view.shown is not None else None,
        "opponent": view.hand_sizes[OPPONENT],
        "stock": view.stock_size,
        "captured": list(view.captured_sizes),
        "kseris": [[{"kind": mark.kind, "card": str(mark.card), "points": mark.points} for mark in marks]
                   for marks in view.marks],
        "last_capturer": view.last_capturer,
        "round_over": view.turn is None,
    }


def _visible_pile(view: View) -> list[Card]:
    """The face-up centre pile, bottom to top, as the learner saw it laid: the dealt cards,
    then each card played since the last capture."""
    if not view.centre_size:
        return []
    pile = [card for card in view.centre_dealt if card is not None]
    for play in view.plays:
        pile = [] if play.taken else [*pile, play.card]
    return pile


PISTI_MARKS = {"kseri": "pisti", "jack-kseri": "double-pisti"}
"""What Pisti calls its kseris (a Jack on a lone Jack is the Turkish "double pisti")."""


def _event(play: PublicPlay, texts: dict[str, str], pisti: bool) -> JSON:
    who = texts["ui.you"] if play.seat == LEARNER else texts["ui.opponent"]
    if play.taken:
        text = texts["ui.event.take"].format(who=who, card=play.card.pretty(), n=play.taken)
    else:
        text = texts["ui.event.lay"].format(who=who, card=play.card.pretty())
    marks = []
    for mark in play.marks:
        name = PISTI_MARKS.get(mark.kind, mark.kind) if pisti else mark.kind
        marks.append({"kind": mark.kind, "points": mark.points,
                      "text": texts[f"ui.mark.{name}"].format(points=mark.points)})
    return {"seat": play.seat, "card": str(play.card), "taken": play.taken, "text": text, "marks": marks}


def _play(match: Match, card: Card | str, lesson: Lesson, texts: dict[str, str]) -> list[JSON]:
    """Play ``card`` through the engine; the events it causes (its play, the round's end)."""
    before = match.view(LEARNER).centre_size
    try:
        match.play(card)
    except IllegalPlayError as error:
        raise LessonError(f"lesson {lesson.id}: {error}") from None
    play = match.view(LEARNER).plays[-1]
    events = [_event(play, texts, match.rules.centre_deal is CentreDeal.PISTI)]
    if match.is_round_over():
        result = match.round_results[-1]
        swept = 0 if play.taken else before + 1
        if swept and result.last_capturer is not None:
            who = texts["ui.you"] if result.last_capturer == LEARNER else texts["ui.opponent"]
            events.append({"seat": result.last_capturer, "card": None, "taken": swept, "marks": [],
                           "text": texts["ui.event.sweep"].format(who=who, n=swept)})
    return events


def _wrong(match: Match, want: Card, texts: dict[str, str]) -> dict[str, str]:
    """For every other card in the learner's hand, why it is not the one asked for."""
    wrong = {}
    for card in match.legal_plays():
        if card == want:
            continue
        trial = match.copy()
        trial.play(card)
        takes = trial.view(LEARNER).plays[-1].taken
        key = "ui.wrong.takes" if takes else "ui.wrong.stays"
        wrong[str(card)] = texts[key].format(card=card.pretty(), want=want.pretty())
    return wrong


def _breakdown(match: Match, texts: dict[str, str]) -> str:
    """The learner's score for the round just ended, item by item, in words."""
    result = match.round_results[-1]
    parts = []
    for item in result.breakdown[LEARNER]:
        if item.card is not None and item.kind == "card":
            parts.append(f"{item.card.pretty()} {item.points}")
        else:
            parts.append(f"{texts[f'ui.item.{item.kind}']} {item.points}")
    return texts["ui.breakdown"].format(items=" · ".join(parts), total=result.points[LEARNER])


def _text(lesson: Lesson, key: str, texts: dict[str, str]) -> str:
    """The lesson's text ``key``, or a :class:`LessonError` naming the missing key."""
    if key not in texts:
        raise LessonError(f"lesson {lesson.id}: no text {key!r}")
    return texts[key]


def build_lesson(lesson: Lesson, lang: str = "en") -> JSON:
    """The script of ``lesson`` in ``lang``, played through the engine."""
    texts = lesson_texts(lang)
    rules = Rules.from_spec(lesson.rules)
    match = None
    if lesson.centre:
        match = Match(rules, seed=f"learn:{lesson.id}", deal=prepared_deal(lesson, rules))
        for _ in range(lesson.prelude):
            match.play(match.legal_plays()[0])
    steps: list[JSON] = []
    for number, step in enumerate(lesson.steps, start=1):
        done = _text(lesson, f"{lesson.id}.{number}.done", texts)
        if isinstance(step, Play):
            do = _text(lesson, f"{lesson.id}.{number}.do", texts)
            if match is None or match.turn != LEARNER:
                raise LessonError(f"lesson {lesson.id}, step {number}: it is not the learner's turn")
            card = Card(step.card)
            before = _table(match)
            wrong = _wrong(match, card, texts)
            events = _play(match, card, lesson, texts)
            for reply in step.replies:
                events += _play(match, reply, lesson, texts)
            steps.append({"kind": "play", "do": do, "done": done, "card": str(card), "before": before,
                          "wrong": wrong, "events": events, "after": _table(match)})
        elif isinstance(step, Count):
            if match is None or not match.is_round_over():
                raise LessonError(f"lesson {lesson.id}, step {number}: the round is not over")
            result = match.round_results[-1]
            captured = sorted(result.captured[LEARNER], key=lambda card: (card.rank, card.suit))
            answer = len(captured) if step.ask == "cards" else result.points[LEARNER]
            steps.append({"kind": "count", "do": texts[f"ui.ask.{step.ask}"], "done": done,
                          "answer": answer, "captured": [str(card) for card in captured],
                          "opponent_cards": len(result.captured[OPPONENT]),
                          "breakdown": _breakdown(match, texts), "after": _table(match)})
        elif isinstance(step, Centre):
            cards = parse_cards(step.cards)
            question = texts["ui.ask.centre"].format(cards=" ".join(card.pretty() for card in cards),
                                                     top=cards[-1].pretty())
            steps.append({"kind": "choice", "do": question, "done": done, "cards": step.cards.split(),
                          "options": [texts["ui.choice.keep"], texts["ui.choice.relay"]],
                          "answer": int(must_relay_centre(cards))})
        else:
            steps.append(_target_step(rules, step, done, texts))
    return {"id": lesson.id, "rules": lesson.rules, "title": _text(lesson, f"{lesson.id}.title", texts),
            "intro": _text(lesson, f"{lesson.id}.intro", texts), "steps": steps}


def _target_step(rules: Rules, step: Target, done: str, texts: dict[str, str]) -> JSON:
    """A question on the end of a round: the engine's own rule decides the answer."""
    after = (step.totals[0] + step.scored[0], step.totals[1] + step.scored[1])
    winner, target = match_winner(rules, after, step.target)
    answer = 0 if winner == 0 else 1 if winner == 1 else 3 if target != step.target else 2
    question = texts["ui.ask.target"].format(
        you=step.totals[0], them=step.totals[1], target=step.target,
        scored_you=step.scored[0], scored_them=step.scored[1])
    options = [texts["ui.choice.youWin"], texts["ui.choice.theyWin"], texts["ui.choice.playOn"],
               texts["ui.choice.rise"].format(target=step.target + rules.escalation)]
    return {"kind": "choice", "do": question, "done": done.format(you=after[0], them=after[1]),
            "options": options, "answer": answer}


UI_KEYS = (
    "lessons", "next", "back", "completed", "startHere", "check", "yourHand", "centre", "emptyCentre",
    "opponentCards", "stock", "captured", "kseris", "faceDown", "seen", "shown", "right", "notRight",
    "notNumber", "playPrompt", "countPrompt", "choicePrompt", "keysHelp", "progress", "allDone", "quit",
    "yourCards", "opponentCaptured",
)
"""The texts of the tutorial's own frame (buttons, labels), sent along with the lessons."""


def build_tutorial(lang: str = "en") -> JSON:
    """Every lesson's script in ``lang``, with the frame's texts (``ui``): what clients load."""
    texts = lesson_texts(lang)
    return {"lang": lang, "ui": {key: texts[f"ui.{key}"] for key in UI_KEYS},
            "lessons": [build_lesson(lesson, lang) for lesson in LESSONS]}
