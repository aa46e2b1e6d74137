#ifndef DB_H
#define DB_H
struct db;
struct db *db_open(const char *path);
void db_put(struct db *d, const char *v);
#endif
