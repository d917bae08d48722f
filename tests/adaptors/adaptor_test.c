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

/* ---- the size contract ---------------------------------------------------- */

#define MiB ((size_t)1 << 20)

static const size_t overflowing_sizes[] = {
    SIZE_MAX,
    SIZE_MAX - 1,
    SIZE_MAX - 255,
    SIZE_MAX - 256,
    SIZE_MAX - 511,
    SIZE_MAX - 1023,
    SIZE_MAX - 4095,
    SIZE_MAX - MiB + 1,
    SIZE_MAX - 2 * MiB + 1,
    SIZE_MAX - 2 * MiB,
    SIZE_MAX - 20 * MiB + 1,
    SIZE_MAX / 2 + 1,
};

static const size_t refusal_alignments[] = {0, 4096, MiB};

static void assert_refused(mr_status st, void *p, size_t bytes, size_t alignment,
                           const char *call) {
  char size[32];
  snprintf(size, sizeof size, "%zu", bytes);
  if (st != MR_ERR_OUT_OF_MEMORY || p != NULL || strstr(mr_last_error(), size) == NULL) {
    print_error("%s of %zu bytes aligned to %zu: %s, pointer %p, message \"%s\" (expected "
                "MR_ERR_OUT_OF_MEMORY, NULL and a message naming the size)\n",
                call, bytes, alignment, mr_status_name(st), p, mr_last_error());
    fail();
  }
}

typedef struct honest_block {
  unsigned char *p;
  size_t bytes, alignment;
  unsigned char pattern;
} honest_block;

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const honest_block *)a)->p;
  uintptr_t y = (uintptr_t)((const honest_block *)b)->p;
  return x < y ? -1 : x > y;
}

static void host_fill(void *p, size_t n, unsigned char v, mr_stream stream) {
  (void)stream;
  memset(p, v, n);
}

/* Word by word where it can: the blocks hold tens of MiB in all, and the
 * sanitizer builds check every access. */
static bool host_all_equal(const void *p, size_t n, unsigned char v, mr_stream stream) {
  (void)stream;
  const unsigned char *bytes = p;
  uint64_t word;
  memset(&word, v, sizeof word);
  size_t i = 0;
  for (; i + sizeof word <= n; i += sizeof word) {
    uint64_t got;
    memcpy(&got, bytes + i, sizeof got);
    if (got != word) return false;
  }
  for (; i < n; i++)
    if (bytes[i] != v) return false;
  return true;
}

void assert_size_contract(mr_resource *mr, mr_stream stream) {
  assert_size_contract_with(mr, stream, host_fill, host_all_equal);
}

void assert_size_contract_with(mr_resource *mr, mr_stream stream, contract_fill_fn fill,
                               contract_check_fn all_equal) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(overflowing_sizes); i++) {
    for (size_t j = 0; j < MRI_ARRAY_SIZE(refusal_alignments); j++) {
      size_t bytes = overflowing_sizes[i], alignment = refusal_alignments[j];
      void *p = (void *)1;
      mr_status st = mr_allocate(mr, bytes, alignment, stream, &p);
      assert_refused(st, p, bytes, alignment, "mr_allocate");
      p = (void *)1;
      st = mr_allocate_sync(mr, bytes, alignment, &p);
      assert_refused(st, p, bytes, alignment, "mr_allocate_sync");
    }
  }

  enum { BLOCKS = 300 };
  honest_block *blocks = calloc(BLOCKS, sizeof *blocks);
  assert_non_null(blocks);
  uint64_t rng = 0x5EED0F512EULL;
  for (int i = 0; i < BLOCKS; i++) {
    honest_block *b = &blocks[i];
    uint64_t r = test_rand(&rng);
    /* Mostly small (the cache's classes, an arena's chunks, fixed and bin
     * blocks), one in twelve from 1 MiB to 2.5 MiB (the cache's large
     * pool, a passthrough past a chunk or block). */
    b->bytes =
        r % 12 == 0 ? MiB + 1 + (size_t)(r >> 8) % (3 * MiB / 2) : 1 + (size_t)(r >> 8) % 20000;
    static const size_t alignments[] = {0, 0, 0, 256, 512, 4096, 0, 65536};
    b->alignment = alignments[(r >> 40) % MRI_ARRAY_SIZE(alignments)];
    b->pattern = (unsigned char)(1 + i % 251);
    void *p = NULL;
    mr_status st = mr_allocate(mr, b->bytes, b->alignment, stream, &p);
    if (st != MR_OK) {
      print_error("block %d of %zu bytes aligned to %zu: %s: %s\n", i, b->bytes, b->alignment,
                  mr_status_name(st), mr_last_error());
      fail();
    }
    size_t align = b->alignment != 0 ? b->alignment : MR_DEFAULT_ALIGNMENT;
    if (p == NULL || (uintptr_t)p % align != 0) {
      print_error("block %d of %zu bytes: %p is not aligned to %zu\n", i, b->bytes, p, align);
      fail();
    }
    b->p = p;
    fill(b->p, b->bytes, b->pattern, stream);
  }
  honest_block *sorted = malloc(BLOCKS * sizeof *sorted);
  assert_non_null(sorted);
  memcpy(sorted, blocks, BLOCKS * sizeof *sorted);
  qsort(sorted, BLOCKS, sizeof *sorted, by_address);
  int overlaps = 0, overwritten = 0;
  for (int i = 0; i + 1 < BLOCKS; i++) {
    if ((uintptr_t)sorted[i].p + sorted[i].bytes > (uintptr_t)sorted[i + 1].p) {
      if (overlaps++ < 5)
        print_error("live blocks overlap: %p (%zu bytes) and %p (%zu bytes)\n", (void *)sorted[i].p,
                    sorted[i].bytes, (void *)sorted[i + 1].p, sorted[i + 1].bytes);
    }
  }
  free(sorted);
  for (int i = 0; i < BLOCKS; i++) {
    if (!all_equal(blocks[i].p, blocks[i].bytes, blocks[i].pattern, stream) && overwritten++ < 5)
      print_error("block %d at %p (%zu bytes) was overwritten\n", i, (void *)blocks[i].p,
                  blocks[i].bytes);
  }
  for (int i = 0; i < BLOCKS; i++) {
    mr_status st = mr_deallocate(mr, blocks[i].p, blocks[i].bytes, blocks[i].alignment, stream);
    if (st != MR_OK) {
      print_error("freeing block %d (%p, %zu bytes aligned to %zu): %s: %s\n", i,
                  (void *)blocks[i].p, blocks[i].bytes, blocks[i].alignment, mr_status_name(st),
                  mr_last_error());
      fail();
    }
  }
  free(blocks);
  assert_int_equal(overlaps, 0);
  assert_int_equal(overwritten, 0);
  assert_ok(mr_resource_trim(mr));
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
