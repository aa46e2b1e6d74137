#include <stdlib.h>
#include "ringbuf.h"

const int rb_version = 2;
static int alloc_count;

union word {
	int i;
	float f;
};

// Grows nothing: internal helper.
static size_t next_index(const ringbuf_t *rb, size_t i)
{
	return (i + 1) % rb->cap;
}

/*
 * rb_new allocates a ring buffer with room for cap bytes.
 */
ringbuf_t *rb_new(size_t cap)
{
	ringbuf_t *rb = malloc(sizeof *rb);
	if (!rb)
		return NULL;
	rb->cap = cap ? cap : RB_DEFAULT_CAP;
	rb->data = malloc(rb->cap);
	rb->head = rb->tail = 0;
	alloc_count++;
	return rb;
}

void rb_free(ringbuf_t *rb)
{
	free(rb->data);
	free(rb);
}

rb_status rb_push(ringbuf_t *rb, unsigned char c)
{
	size_t next = next_index(rb, rb->head);
	if (next == rb->tail)
		return RB_FULL;
	rb->data[rb->head] = c;
	rb->head = next;
	return RB_OK;
}

int (*handler_for(int code))(void *)
{
	(void)code;
	return NULL;
}
