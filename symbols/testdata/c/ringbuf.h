/* ringbuf.h - a fixture for C symbol extraction. */
#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>

/* Capacity used when zero is passed. */
#define RB_DEFAULT_CAP 64
#define RB_MIN(a, b) ((a) < (b) ? (a) : (b))

/**
 * A ring buffer of bytes.
 */
struct ringbuf {
	unsigned char *data;
	size_t cap, head, tail;
};

typedef struct ringbuf ringbuf_t, *ringbuf_ptr;

typedef enum { RB_OK, RB_FULL, RB_EMPTY } rb_status;

/* Allocates a ring buffer. */
ringbuf_t *rb_new(size_t cap);
void rb_free(ringbuf_t *rb);
rb_status rb_push(ringbuf_t *rb, unsigned char c);

extern const int rb_version;

#endif /* RINGBUF_H */
