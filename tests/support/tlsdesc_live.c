/*
 * tlsdesc_live.c: the control of unit.tlsdesc_control. Built with TLS
 * descriptors and -O2, GCC keeps `sum` in a vector register across the
 * descriptor call that reaches `calls`, which is what tools/dev/check-tlsdesc
 * must find (and what the library must never do: glibc before 2.40 may
 * change that register on the call's slow path). If a compiler stops doing
 * this, the control passes the check and the test, which expects a failure,
 * says so.
 */
typedef double mri_pair __attribute__((vector_size(16)));

static __thread int calls;

__attribute__((visibility("default"), noinline)) mri_pair tlsdesc_live(mri_pair a, mri_pair b);

mri_pair tlsdesc_live(mri_pair a, mri_pair b) {
  mri_pair sum = a + b;
  calls++;
  return sum * a;
}
