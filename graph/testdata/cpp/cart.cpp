#include "util/strings.h"

namespace shop {

class Repo {
 public:
  void save(const char *k);
};

class Cart : public Base {
  Repo repo;

 public:
  void add(const char *item);
  void validate();
};

void Cart::add(const char *item) {
  Repo other;
  Repo *p = new Repo();
  other.save(item);
  p->save(item);
  repo.save(util::slug(item));
  this->validate();
  validate();
}

}  // namespace shop
