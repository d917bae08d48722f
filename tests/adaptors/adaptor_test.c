#include <stdio.h>
#include <stdlib.h>

#include "adaptor_test.h"
#include "core/ptrmap.h"

faulty_upstream faulty_new(bool stream_ordered) {
  faulty_upstream u = {0};
  faulty_config config = {.stream_ordered = stream_ordered};
  assert_ok(faulty_resource_create(&config, &u.mr, &u.f));
  return u;
}

void release_and_check_upstream(mr_resource *mr, faulty_upstream *u) {
  mr_resource_release(mr);
  assert_int_equal(faulty_live_blocks(u->f), 0);
  assert_int_equal(faulty_bad_frees(u->f), 0);
  mr_resource_release(u->mr);
}

void assert_describes(const mr_resource *mr, const char *expected) {
  const char *text = mr_resource_describe(mr);
  if (strcmp(text, expected) != 0) {
    print_error("describe: got \"%s\", expected \"%s\"\n", text, expected);
    fail();
  }
}

void assert_default_as_spec(mr_resource *mr, const char *spec, const char *expected) {
  assert_describes(mr, expected);
  mr_resource_release(mr);
  mr_resource *from_spec = NULL, *again = NULL;
  assert_ok(mr_resource_from_spec(spec, 0, &from_spec));
  assert_describes(from_spec, expected);
  mr_resource_release(from_spec);
  assert_ok(mr_resource_from_spec(expected, 0, &again));
  assert_describes(again, expected);
  mr_resource_release(again);
}

void assert_checks_upstream_and_out(const char *name, adaptor_create_fn create) {
  char message[64];
  mr_resource *mr = (mr_resource *)1;
  assert_status(create(NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  snprintf(message, sizeof message, "%s: upstream is NULL", name);
  assert_string_equal(mr_last_error(), message);
  faulty_upstream u = faulty_new(false);
  assert_status(create(u.mr, NULL), MR_ERR_INVALID_ARGUMENT);
  snprintf(message, sizeof message, "%s: out is NULL", name);
  assert_string_equal(mr_last_error(), message);
  assert_int_equal(faulty_allocations(u.f), 0);
  mr_resource_release(u.mr);
}

void assert_inherits_props(const mr_resource *adaptor, const mr_resource *upstream,
                           size_t native_alignment) {
  mr_resource_props a = {.size = sizeof a}, u = {.size = sizeof u};
  assert_ok(mr_resource_get_props(adaptor, &a));
  assert_ok(mr_resource_get_props(upstream, &u));
  assert_int_equal(a.kind, u.kind);
  assert_int_equal(a.device, u.device);
  assert_int_equal(a.host_accessible, u.host_accessible);
  assert_int_equal(a.device_accessible, u.device_accessible);
  assert_int_equal(a.native_alignment, native_alignment);
  assert_ptr_equal(mr_resource_upstream(adaptor), upstream);
}

void assert_size_zero_and_null_free(mr_resource *mr, const faulty_resource *f) {
  long before = faulty_allocations(f);
  long frees = faulty_deallocations(f);
  void *p = (void *)1;
  assert_ok(mr_allocate(mr, 0, 0, NULL, &p));
  assert_null(p);
  p = (void *)1;
  assert_ok(mr_allocate(mr, 0, 4096, STREAM_A, &p));
  assert_null(p);
  assert_ok(mr_deallocate(mr, NULL, 0, 0, NULL));
  assert_ok(mr_deallocate(mr, NULL, 128, 0, STREAM_A));
  assert_int_equal(faulty_allocations(f), before);
  assert_int_equal(faulty_deallocations(f), frees);
}

typedef struct thread_arg {
  void (*fn)(void *arg, int index);
  void *arg;
  int index;
  pthread_barrier_t *start;
} thread_arg;

static void *thread_main(void *p) {
  thread_arg *t = p;
  pthread_barrier_wait(t->start);
  t->fn(t->arg, t->index);
  return NULL;
}

void run_threads(int threads, void (*fn)(void *arg, int index), void *arg) {
  pthread_t ids[64];
  thread_arg args[64];
  pthread_barrier_t start;
  assert_true(threads > 0 && threads <= 64);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int i = 0; i < threads; i++) {
    args[i] = (thread_arg){fn, arg, i, &start};
    assert_int_equal(pthread_create(&ids[i], NULL, thread_main, &args[i]), 0);
  }
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  pthread_barrier_destroy(&start);
}

typedef struct churn_arg {
  mr_resource *mr;
  int rounds;
  size_t max_bytes;
  bool vary_alignment;
  _Atomic long allocations;
  _Atomic long failures; /* pattern mismatches or unexpected statuses */
  _Atomic uint64_t bytes;
} churn_arg;

typedef struct live_block {
  unsigned char *p;
  size_t bytes, alignment;
  mr_stream stream;
  unsigned char pattern;
} live_block;

static bool check_and_free(churn_arg *c, live_block *b) {
  bool ok = true;
  for (size_t i = 0; i < b->bytes; i++) ok &= b->p[i] == b->pattern;
  if (!ok) fprintf(stderr, "churn: block %p (%zu bytes) was overwritten\n", (void *)b->p, b->bytes);
  mr_status st = mr_deallocate(c->mr, b->p, b->bytes, b->alignment, b->stream);
  if (st != MR_OK) {
    fprintf(stderr, "churn: free failed: %s\n", mr_last_error());
    ok = false;
  }
  b->p = NULL;
  return ok;
}

static void churn_thread(void *arg, int index) {
  churn_arg *c = arg;
  uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(index + 1);
  live_block live[16] = {{0}};
  long made = 0, bad = 0;
  uint64_t bytes = 0;
  for (int r = 0; r < c->rounds; r++) {
    live_block *b = &live[test_rand(&rng) % 16];
    if (b->p != NULL && !check_and_free(c, b)) bad++;
    b->bytes = 1 + (size_t)(test_rand(&rng) % c->max_bytes);
    b->alignment = c->vary_alignment ? (size_t)256 << (test_rand(&rng) % 5) : 0;
    b->stream = test_rand(&rng) % 2 ? STREAM_A : STREAM_B;
    b->pattern = (unsigned char)(index * 16 + r);
    void *p = NULL;
    mr_status st = mr_allocate(c->mr, b->bytes, b->alignment, b->stream, &p);
    if (st != MR_OK) {
      fprintf(stderr, "churn: allocation failed: %s\n", mr_last_error());
      bad++;
      continue;
    }
    size_t align = b->alignment ? b->alignment : 256;
    if ((uintptr_t)p % align != 0) bad++;
    b->p = p;
    memset(b->p, b->pattern, b->bytes);
    made++;
    bytes += b->bytes;
  }
  for (int i = 0; i < 16; i++)
    if (live[i].p != NULL && !check_and_free(c, &live[i])) bad++;
  atomic_fetch_add(&c->allocations, made);
  atomic_fetch_add(&c->failures, bad);
  atomic_fetch_add(&c->bytes, bytes);
}

static uint64_t last_churn_bytes;
uint64_t churn_bytes(void) { return last_churn_bytes; }

long churn(mr_resource *mr, int threads, int rounds, size_t max_bytes, bool vary_alignment) {
  churn_arg c = {
      .mr = mr, .rounds = rounds, .max_bytes = max_bytes, .vary_alignment = vary_alignment};
  atomic_init(&c.allocations, 0);
  atomic_init(&c.failures, 0);
  atomic_init(&c.bytes, 0);
  run_threads(threads, churn_thread, &c);
  last_churn_bytes = atomic_load(&c.bytes);
  assert_int_equal(atomic_load(&c.failures), 0);
  return atomic_load(&c.allocations);
}

static bool all_digits(const char *s, size_t n) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

static bool parse_hex(const char *s, size_t n, uintptr_t *value) {
  if (n < 3 || s[0] != '0' || s[1] != 'x') return false;
  uintptr_t v = 0;
  for (size_t i = 2; i < n; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v * 16 + (uintptr_t)d;
  }
  *value = v;
  return true;
}

static bool time_ok(const char *s, size_t n) {
  /* HH:MM:SS.uuuuuu */
  return n == 15 && all_digits(s, 2) && s[2] == ':' && all_digits(s + 3, 2) && s[5] == ':' &&
         all_digits(s + 6, 2) && s[8] == '.' && all_digits(s + 9, 6);
}

log_summary log_check(const char *path) {
  log_summary sum = {0};
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "log_check: cannot open %s\n", path);
    sum.format_errors = 1;
    return sum;
  }
  mri_ptrmap *live = mri_ptrmap_create();
  char line[512];
  long number = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    number++;
    size_t len = strlen(line);
    if (len == 0 || line[len - 1] != '\n') {
      fprintf(stderr, "log %s:%ld: unterminated line\n", path, number);
      sum.format_errors++;
      continue;
    }
    line[--len] = '\0';
    if (number == 1) {
      if (strcmp(line, "Thread,Time,Action,Pointer,Size,Stream") != 0) {
        fprintf(stderr, "log %s: bad header \"%s\"\n", path, line);
        sum.format_errors++;
      }
      continue;
    }
    const char *field[6];
    size_t flen[6];
    int n = 0;
    const char *start = line;
    for (const char *c = line;; c++) {
      if (*c == ',' || *c == '\0') {
        if (n < 6) {
          field[n] = start;
          flen[n] = (size_t)(c - start);
        }
        n++;
        start = c + 1;
        if (*c == '\0') break;
      }
    }
    uintptr_t ptr = 0, stream = 0;
    bool ok = n == 6 && all_digits(field[0], flen[0]) && time_ok(field[1], flen[1]) &&
              parse_hex(field[3], flen[3], &ptr) && all_digits(field[4], flen[4]) &&
              parse_hex(field[5], flen[5], &stream);
    size_t bytes = ok ? (size_t)strtoull(field[4], NULL, 10) : 0;
    mri_ptrmap_value v;
    if (ok && flen[2] == 8 && memcmp(field[2], "allocate", 8) == 0) {
      sum.allocates++;
      ok = ptr != 0 && !mri_ptrmap_get(live, (void *)ptr, &v) &&
           mri_ptrmap_put(live, (void *)ptr, (mri_ptrmap_value){.bytes = bytes}) == MR_OK;
    } else if (ok && flen[2] == 16 && memcmp(field[2], "allocate failure", 16) == 0) {
      sum.failures++;
      ok = ptr == 0;
    } else if (ok && flen[2] == 4 && memcmp(field[2], "free", 4) == 0) {
      sum.frees++;
      ok = mri_ptrmap_take(live, (void *)ptr, &v) && v.bytes == bytes;
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "log %s:%ld: bad or unmatched line \"%s\"\n", path, number, line);
      sum.format_errors++;
    }
  }
  fclose(f);
  if (number == 0) sum.format_errors++;
  sum.unmatched = (long)mri_ptrmap_count(live);
  mri_ptrmap_destroy(live);
  return sum;
}
