/* util.h: allocation that never returns NULL, and error messages into a
 * caller's buffer. */
#ifndef DL_UTIL_H
#define DL_UTIL_H

#include <stddef.h>

void *dl_xmalloc(size_t n);
void *dl_xcalloc(size_t n, size_t size);
void *dl_xrealloc(void *p, size_t n);

/* Formats the message into err (if not NULL) and returns -1. */
int dl_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic seconds. */
double dl_now(void);

#endif
