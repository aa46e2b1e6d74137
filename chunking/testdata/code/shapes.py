#!/usr/bin/env python3
"""Shapes: a fixture for the chunker.

A module docstring, imports, constants, a class with a mix of small and large
methods, a small class, functions and a main block.
"""

import math
from dataclasses import dataclass

MAX_SIDE = 1_000
_cache = {}


class Shape:
    """Base class of all shapes.

    Holds a name and knows how to describe itself.
    """

    sides = 0
    registry = []

    def __init__(self, name):
        self.name = name

    def label(self) -> str:
        return self.name.title()

    # Comments right above a method travel with it.
    def describe(self, precise: bool = False) -> str:
        """Return a sentence describing the shape, its area and perimeter."""
        area = self.area()
        perimeter = self.perimeter()
        if precise:
            area_text = f"{area:.6f}"
            perimeter_text = f"{perimeter:.6f}"
        else:
            area_text = f"{area:.1f}"
            perimeter_text = f"{perimeter:.1f}"
        parts = [
            f"{self.label()} with {self.sides} sides",
            f"an area of {area_text}",
            f"a perimeter of {perimeter_text}",
        ]
        if self.sides == 0:
            parts.append("and no corners at all")
        return ", ".join(parts) + "."

    def area(self) -> float:
        raise NotImplementedError

    def perimeter(self) -> float:
        raise NotImplementedError

    @classmethod
    def register(cls, shape):
        """Record a shape in the registry, refusing duplicates by name."""
        for known in cls.registry:
            if known.name == shape.name:
                raise ValueError(f"duplicate shape {shape.name!r}")
        cls.registry.append(shape)
        _cache.clear()
        return shape

    def __repr__(self):
        return f"Shape({self.name!r})"


@dataclass
class Point:
    x: float
    y: float


class Circle(Shape):
    def __init__(self, r):
        super().__init__("circle")
        self.r = r

    def area(self):
        return math.pi * self.r ** 2


def make_square(side: float) -> Shape:
    """Build a square of the given side."""
    if side > MAX_SIDE:
        raise ValueError("side too large")

    def helper(x):
        return x * x

    sq = Shape("square")
    sq.sides = 4
    sq.area = lambda: helper(side)
    sq.perimeter = lambda: 4 * side
    return sq


if __name__ == "__main__":
    for s in (make_square(2), Circle(1)):
        print(s.describe())
