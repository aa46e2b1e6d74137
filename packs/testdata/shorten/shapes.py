"""Geometric shapes with areas and perimeters."""

import math


class Shape:
    """A closed plane figure."""

    def area(self):
        """Return the area of the shape."""
        raise NotImplementedError

    def describe(self, precision=2):
        # No docstring here: the body goes entirely.
        name = type(self).__name__
        area = round(self.area(), precision)
        perimeter = round(self.perimeter(), precision)
        return f"{name}: area {area}, perimeter {perimeter}"


class Circle(Shape):
    """A circle given by its radius."""

    def __init__(self, radius):
        if radius < 0:
            raise ValueError("negative radius")
        self.radius = radius

    def area(self):
        """Return pi r squared."""
        r = self.radius
        value = math.pi * r * r
        return value

    def perimeter(self):
        return 2 * math.pi * self.radius


@staticmethod
def regular_polygon_area(sides, length):
    """Area of a regular polygon.

    Uses the apothem formula.
    """
    if sides < 3:
        raise ValueError("a polygon has at least three sides")
    apothem = length / (2 * math.tan(math.pi / sides))
    perimeter = sides * length
    return perimeter * apothem / 2


def largest(shapes):
    best = None
    for s in shapes:
        if best is None or s.area() > best.area():
            best = s
    return best
