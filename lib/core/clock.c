/*
 * clock.c: the library's one monotonic clock, for the ages of live blocks
 * (track) and the intervals snapshots report.
 */
#include <time.h>

#include "core/core.h"

uint64_t mri_monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
