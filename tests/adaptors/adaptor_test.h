/*
 * adaptor_test.h: helpers shared by the adaptor tests.
 */
#ifndef MRCTX_ADAPTOR_TEST_H
#define MRCTX_ADAPTOR_TEST_H

#include <pthread.h>

#include "adaptors/adaptors_internal.h"
#include "test_util.h"

/* A faulty upstream (host memory, stream_ordered false unless asked). */
typedef struct faulty_upstream {
  mr_resource *mr;
  faulty_resource *f;
} faulty_upstream;

faulty_upstream faulty_new(bool stream_ordered);

/* Release `mr`, then check the upstream got everything back, with no bad
 * frees, and release it too. */
void release_and_check_upstream(mr_resource *mr, faulty_upstream *u);

/* mr_resource_describe(mr) must equal `expected`. */
void assert_describes(const mr_resource *mr, const char *expected);

/* A C constructor given 0 for its defaulted parameters builds what the
 * spec leaving them out builds: `mr` (built over `host` that way; released
 * here) and `spec` both describe as `expected`, and that description
 * resolves to a resource that describes the same way. */
void assert_default_as_spec(mr_resource *mr, const char *spec, const char *expected);

/* The checks every adaptor's constructor makes first: a NULL upstream or a
 * NULL out is MR_ERR_INVALID_ARGUMENT with "NAME: upstream is NULL" or
 * "NAME: out is NULL" (*out left NULL), before any upstream call.
 * `create` builds the adaptor with valid parameters. */
typedef mr_status (*adaptor_create_fn)(mr_resource *upstream, mr_resource **out);
void assert_checks_upstream_and_out(const char *name, adaptor_create_fn create);

/* The adaptor inherits the upstream's kind, device and access, and reports
 * `native_alignment`. */
void assert_inherits_props(const mr_resource *adaptor, const mr_resource *upstream,
                           size_t native_alignment);

/* Size 0 gives NULL without touching the faulty upstream; NULL frees are
 * no-ops. */
void assert_size_zero_and_null_free(mr_resource *mr, const faulty_resource *f);

/* Run fn(arg, index) on `threads` threads at once (started together). */
void run_threads(int threads, void (*fn)(void *arg, int index), void *arg);

/* Every thread allocates and frees `rounds` random sizes in [1, max_bytes]
 * (alignment: 0, or cycling through 256..4096 when vary_alignment), keeping
 * up to 16 live on one of two streams; each block is filled with a pattern
 * of its own and checked before it is freed, so overlapping blocks are
 * caught. Host-accessible memory only. Returns the number of successful
 * allocations over all threads (each is freed). */
long churn(mr_resource *mr, int threads, int rounds, size_t max_bytes, bool vary_alignment);
/* The bytes those allocations asked for, in all (of the last churn). */
uint64_t churn_bytes(void);

/* The size contract every resource keeps (docs/semantics.md, "Sizes"),
 * on `stream`:
 *  1. every size near SIZE_MAX (SIZE_MAX, SIZE_MAX - 1, - 255, - 511,
 *     - 1023, SIZE_MAX / 2 + 1, SIZE_MAX - 2 MiB + 1, ...), with the default
 *     alignment and over-aligned to 4 KiB and 1 MiB, through mr_allocate
 *     and mr_allocate_sync, is refused with MR_ERR_OUT_OF_MEMORY, the
 *     pointer NULL and a message that names the size;
 *  2. then a few hundred honest blocks of varied sizes and alignments
 *     (up to 2.5 MiB: past the cache's small classes and an arena's chunk),
 *     each filled with a pattern of its own: no two live blocks overlap,
 *     every pattern is intact, each is aligned as asked; all are freed;
 *  3. a trim succeeds.
 * Refusals that corrupted a resource show up in 2 (overlapping or
 * overwritten blocks), in 3, or at its destroy under ASan. The memory must
 * be host-accessible (the fake driver's device memory is host memory). */
void assert_size_contract(mr_resource *mr, mr_stream stream);

/* The same, filling and checking the blocks with `fill` and `all_equal`
 * (on `stream`) where the host cannot touch them: the GPU suite passes
 * gpu_fill and gpu_all_equal (gpu_util.h). */
typedef void (*contract_fill_fn)(void *p, size_t n, unsigned char v, mr_stream stream);
typedef bool (*contract_check_fn)(const void *p, size_t n, unsigned char v, mr_stream stream);
void assert_size_contract_with(mr_resource *mr, mr_stream stream, contract_fill_fn fill,
                               contract_check_fn all_equal);

/* Two distinct fake stream handles: the unit suite never calls a driver,
 * and host memory does not care which stream it is on. */
#define STREAM_A ((mr_stream)(uintptr_t)0x1000)
#define STREAM_B ((mr_stream)(uintptr_t)0x2000)

/* What a log(...) file holds, checked line by line against rmm's format:
 * the header, then thread,HH:MM:SS.uuuuuu,action,0xPOINTER,size,0xSTREAM.
 * Every "allocate" must be matched by a later "free" of the same pointer
 * and size (unmatched counts those that are not); a pointer is never
 * allocated twice while live; "allocate failure" lines carry 0x0.
 * format_errors counts lines that break the format (each printed). */
typedef struct log_summary {
  long allocates, failures, frees;
  long unmatched, format_errors;
} log_summary;

log_summary log_check(const char *path);

/* UNDER_TSAN is defined in a ThreadSanitizer build, whose runtime changes
 * how a process ends: its background thread keeps a process whose main
 * called pthread_exit alive, and a child of a threaded fork may not start
 * threads. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

#endif
