"""Learn to play: the tutorial's lessons as data (:mod:`kseri.learn.lessons`), played through
the real engine into scripts every client reads (:mod:`kseri.learn.script`), with their texts
in each language (:mod:`kseri.learn.text`)."""

from kseri.learn.lessons import LESSONS, Lesson
from kseri.learn.script import build_lesson, build_tutorial
from kseri.learn.text import LANGUAGES, lesson_texts

__all__ = ["LANGUAGES", "LESSONS", "Lesson", "build_lesson", "build_tutorial", "lesson_texts"]
