// shapes.cpp - a fixture for C++ symbol extraction.
#include <memory>
#include <string>
#include <vector>

#define SHAPES_VERSION "1.2"

namespace geo {

/// A point in the plane.
struct Point {
  double x, y;
  Point operator+(const Point& o) const { return {x + o.x, y + o.y}; }
};

/**
 * Shape is the base of all shapes.
 */
class Shape {
 public:
  explicit Shape(std::string name);
  virtual ~Shape() = default;

  /// Area in square units.
  virtual double area() const = 0;
  const std::string& name() const { return name_; }

 protected:
  void rename(const std::string& n);

 private:
  std::string name_;
  static int count_;
};

template <typename T>
class Box : public Shape {
 public:
  Box(T w, T h) : Shape("box"), w_(w), h_(h) {}
  double area() const override { return double(w_) * double(h_); }

 private:
  T w_, h_;
};

using ShapePtr = std::unique_ptr<Shape>;

enum class Color { Red, Green, Blue };

namespace detail {
static int helper(int v) { return v * 2; }
int exported_helper(int v);
}  // namespace detail

}  // namespace geo

// Out-of-line definitions.
geo::Shape::Shape(std::string name) : name_(std::move(name)) {}

void geo::Shape::rename(const std::string& n) { name_ = n; }

int geo::detail::exported_helper(int v) { return v + 1; }

template <>
double geo::Box<int>::area() const { return 0; }

bool operator==(const geo::Point& a, const geo::Point& b) {
  return a.x == b.x && a.y == b.y;
}

int main(int argc, char** argv) {
  std::vector<geo::ShapePtr> shapes;
  return static_cast<int>(shapes.size());
}
