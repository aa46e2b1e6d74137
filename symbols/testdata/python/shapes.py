#!/usr/bin/env python3
"""Shapes: a fixture for Python symbol extraction."""

from dataclasses import dataclass
from typing import Final, TypeAlias

# Largest side accepted.
MAX_SIDE: Final = 1_000
_cache = {}
Point: TypeAlias = tuple[float, float]
width, height = 640, 480
width = 800

type Vector = list[float]


# Comment above a decorated class.
@dataclass(frozen=True)
class Shape:
    """A shape.

    Subclasses override area.
    """

    name: str = "shape"

    def __init__(self, name):
        self.name = name

    # Comment-only doc for a method.
    @property
    def label(self) -> str:
        return self.name.title()

    async def area(self, *, precise: bool = False) -> float:
        '''Area of the shape.'''

        def helper(x):
            return x * 2

        return 0.0

    def _private(self):
        pass

    def __repr__(self):
        return f"Shape({self.name!r})"


class _Internal(Shape):
    def visible(self):
        """Not exported: the class is private."""


def make_square(
    side: float,
    *args,
    **kwargs,
) -> Shape:
    r"""Build a square.

        Indented detail.
    """
    return Shape("square")


def _helper():
    # not a docstring
    return None
