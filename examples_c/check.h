/* check.h - the examples' error handling: CHECK(call) prints the result code, its name and the
 * last error message, then returns 1 from main; EXPECT(cond, format, ...) prints FAILED and the
 * message when a condition does not hold, then returns 1 from main. And same_shape(a, b). */
#ifndef TENON_EXAMPLE_CHECK_H
#define TENON_EXAMPLE_CHECK_H

#include <stdio.h>

#include "tenon.h"

#define CHECK(call)                                                                   \
  do {                                                                                \
    tenon_result r_ = (call);                                                         \
    if (r_ != TENON_RESULT_OK) {                                                      \
      char msg_[256];                                                                 \
      tenon_last_error_message(msg_, sizeof msg_, NULL);                              \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,              \
              tenon_result_str(r_), msg_);                                            \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

#define EXPECT(cond, ...)                      \
  do {                                         \
    if (!(cond)) {                             \
      fprintf(stderr, "FAILED: " __VA_ARGS__); \
      fprintf(stderr, "\n");                   \
      return 1;                                \
    }                                          \
  } while (0)

/* Whether two shape ids name the same shape. */
static inline int same_shape(tenon_shape_id a, tenon_shape_id b) {
  return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

#endif
