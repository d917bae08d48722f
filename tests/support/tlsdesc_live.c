/*
 * tlsdesc_live.c: the control of unit.tlsdesc_control. Built with TLS
 * descriptors and -O2, GCC keeps a vector value across the descriptor call
 * that reaches `calls` in each function below, which is what
 * tools/dev/check-tlsdesc must find (and what the library must never do:
 * glibc before 2.40 may change that register on the call's slow path):
 * tlsdesc_live uses `sum` after the call, tlsdesc_live_passed passes
 * `ratio` to a variadic function after it, and tlsdesc_live_called to a
 * function of this library. The test expects exactly these three; if a
 * compiler stops keeping one, it says so.
 */
#include <stdio.h>

typedef double mri_pair __attribute__((vector_size(16)));

static __thread int calls;

__attribute__((visibility("default"), noinline)) mri_pair tlsdesc_live(mri_pair a, mri_pair b);
__attribute__((visibility("default"), noinline)) int tlsdesc_live_passed(char *buf, size_t cap,
                                                                         double a, double b);

mri_pair tlsdesc_live(mri_pair a, mri_pair b) {
  mri_pair sum = a + b;
  calls++;
  return sum * a;
}

int tlsdesc_live_passed(char *buf, size_t cap, double a, double b) {
  double ratio = a / b;
  calls++;
  return snprintf(buf, cap, "%.3f", ratio);
}

/* A function of the same library that takes a double, called after the
 * descriptor call with the value computed before it. */
__attribute__((noinline)) static double tlsdesc_scaled(double x) { return x * 3.0 + 1.0; }

__attribute__((visibility("default"), noinline)) double tlsdesc_live_called(double a, double b);

double tlsdesc_live_called(double a, double b) {
  double ratio = a / b;
  calls++;
  return tlsdesc_scaled(ratio) * 2.0;
}
