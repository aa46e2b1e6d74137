#include "db.h"

static void grow(int n) {}

int main(void) {
	struct db *d = db_open("x");
	db_put(d, "v");
	grow(1);
	return 0;
}
