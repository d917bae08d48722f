/*
 * core.h (internal): what the other layers use from the core.
 *
 * Nothing here is exported: the library is built with hidden visibility and
 * only MR_API declarations leave it. Internal names are mri_ (mrctx internal).
 */
#ifndef MRCTX_LIB_CORE_H
#define MRCTX_LIB_CORE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include <mrctx/mrctx.h>

#include "core/file_write.h"
#include "core/fork.h"
#include "core/text.h"

#define MRI_LIKELY(x) __builtin_expect(!!(x), 1)
#define MRI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The driver's CU_STREAM_PER_THREAD handle (layers without cuda.h). A
 * resource gives memory upstream on it once that memory's work is known
 * done (a trim, a reclaim, the decay): unlike the legacy stream it orders
 * nothing against other blocking streams, so it neither waits for their
 * work nor is refused while one of them is being captured. */
#define MRI_STREAM_PER_THREAD ((mr_stream)(uintptr_t)0x2)
#define MRI_CACHE_LINE 64
#define MRI_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors ------------------------------------------------------------- */

/* Record this thread's error message (printf-style) and return `status`. */
mr_status mri_error(mr_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
mr_status mri_verror(mr_status status, const char *format, va_list args)
    __attribute__((format(printf, 2, 0)));

/* Prefix this thread's current message with printf-style context ("arena:
 * upstream failed: <old message>") and return `status`. */
mr_status mri_error_prefix(mr_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The thread's message buffer size. A longer message keeps its beginning
 * and its end, with " ... " between: the end usually says why. */
#define MRI_ERROR_CAPACITY 2048

/* vsnprintf into `buf`, shortened by mri_fit_text (core/text.h) if need
 * be. */
void mri_vformat_fit(char *buf, size_t cap, const char *format, va_list args)
    __attribute__((format(printf, 3, 0)));

/* ---- small utilities ---------------------------------------------------- */

static inline bool mri_is_pow2(size_t x) { return x && !(x & (x - 1)); }

static inline uintptr_t mri_align_up(uintptr_t x, size_t alignment) {
  return (x + (alignment - 1)) & ~(uintptr_t)(alignment - 1);
}

/* Overflow-checked a + b. */
static inline bool mri_add_overflows(size_t a, size_t b, size_t *sum) {
  return __builtin_add_overflow(a, b, sum);
}

/* `size` rounded up to a multiple of `multiple` (a power of two) into
 * *out; false, *out untouched, when the result would pass SIZE_MAX. Every
 * rounding of a caller's size (to an alignment, a size class, a segment, a
 * page or chunk) goes through here, and a false refuses the request with
 * mri_size_overflow before anything changes: a wrapped size is a small
 * one, and a resource that went on would hand out a block far smaller
 * than was asked for. (size_t)-1 is what `n - 1` gives for n == 0. */
static inline bool mri_round_up_checked(size_t size, size_t multiple, size_t *out) {
  size_t sum;
  if (__builtin_add_overflow(size, multiple - 1, &sum)) return false;
  *out = sum & ~(multiple - 1);
  return true;
}

/* The refusal of a request of `bytes` whose rounding up to a multiple of
 * `multiple` (`what` says of what: "its segments", "the driver's
 * granularity") would pass SIZE_MAX: MR_ERR_OUT_OF_MEMORY, as malloc and
 * the driver answer any size larger than the memory there is, with a
 * message that names `who` (the resource), the size and the rounding. */
mr_status mri_size_overflow(const char *who, size_t bytes, size_t multiple, const char *what);

/* The library's own host allocations (bookkeeping) go through these, never
 * straight to malloc: tests make the Nth one fail (mri_host_fault_arm) and
 * walk N over whole scenarios. They fail like malloc (NULL, nothing set). */
void *mri_host_malloc(size_t bytes);
void *mri_host_calloc(size_t count, size_t size);
void *mri_host_realloc(void *p, size_t bytes); /* on failure `p` is untouched */
void *mri_host_aligned_alloc(size_t alignment, size_t bytes);
char *mri_host_strdup(const char *s);
/* Tests: from now on, host allocation number `nth` (1-based) and the
 * `count` - 1 after it fail; nth 0 disarms. Returns how many were counted
 * since the last call (only armed allocations are counted). */
long mri_host_fault_arm(long nth, long count);
long mri_host_fault_counted(void);

/* malloc-style helpers that set MR_ERR_OUT_OF_MEMORY on failure. */
void *mri_calloc(size_t count, size_t size);
char *mri_strdup(const char *s);
/* printf into a new string; NULL (with the error set) on failure. */
char *mri_asprintf(const char *format, ...) __attribute__((format(printf, 1, 2)));
char *mri_vasprintf(const char *format, va_list args) __attribute__((format(printf, 1, 0)));

/* CLOCK_MONOTONIC in nanoseconds: for ages and intervals. */
uint64_t mri_monotonic_ns(void);

/* Byte counts and other text (mri_format_size, mri_format_bytes_human,
 * the JSON and XML writers): core/text.h. */

/* ---- versioned public structs (docs/abi.md) ------------------------------ */

/* The bytes of `type` up to and including `field`: the struct's size in the
 * release whose last field was `field`. The oldest size a call accepts is
 * written this way and never changes once released. */
#define MRI_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* How much larger than this library's struct a caller's may be. A size past
 * it is taken for an unset field rather than a far newer header. */
#define MRI_STRUCT_MAX_GROWTH ((size_t)4096)

/* Read a caller's size-first struct (`src`, whose first field is its size)
 * into `dst`, `known` bytes that already hold the defaults: the caller's
 * fields replace them, fields past its size keep them, dst's size becomes
 * `known`. Refused: a size below `oldest` (MR_ERR_INVALID_ARGUMENT), and
 * fields this library does not know set to anything but zero
 * (MR_ERR_UNSUPPORTED). `who` and `type` name the call and struct in the
 * message. */
mr_status mri_struct_read(void *dst, size_t known, const void *src, size_t oldest, const char *who,
                          const char *type);

/* Fill a caller's size-first struct `dst` from `src` (`known` bytes, this
 * library's complete struct): as much as both know; a larger caller struct
 * gets zeros past `known`; dst's size becomes the bytes filled. Refused: a
 * size below `oldest`. */
mr_status mri_struct_write(void *dst, const void *src, size_t known, size_t oldest, const char *who,
                           const char *type);

#define MRI_STRUCT_READ(dst, src, type, oldest_field, who) \
  mri_struct_read((dst), sizeof(type), (src), MRI_SIZE_THROUGH(type, oldest_field), (who), #type)
#define MRI_STRUCT_WRITE(dst, src, type, oldest_field, who) \
  mri_struct_write((dst), (src), sizeof(type), MRI_SIZE_THROUGH(type, oldest_field), (who), #type)

/* ---- spec text ------------------------------------------------------------ */

/* Characters of a bare word in the spec language (names, numbers, sizes,
 * paths): letters, digits and . / _ + - : ~ %. The parser and the quoting
 * below share this one definition. */
static inline bool mri_is_word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '+' || c == '-' || c == ':' || c == '~' || c == '%';
}

/* `text` written as a spec value that parses back to exactly `text`: as it
 * is when it is a bare word, otherwise in double quotes with '"' and '\'
 * escaped. OUT: *out (malloc'd). MR_ERR_INVALID_ARGUMENT, with a message
 * naming `what`, if `text` holds a control character other than a tab:
 * spec text cannot carry one. */
mr_status mri_spec_quote(const char *what, const char *text, char **out);

/* ---- resources ---------------------------------------------------------- */

struct mr_resource {
  /* Hot fields first: the methods the fast path calls. */
  mr_status (*allocate)(void *self, size_t bytes, size_t alignment, mr_stream stream, void **ptr);
  mr_status (*deallocate)(void *self, void *ptr, size_t bytes, size_t alignment, mr_stream stream);
  void *self;
  size_t native_alignment; /* 0: any */

  mr_resource_ops ops; /* the caller's table, zero-padded */
  /* The caller's pointer, for type checks (mr_resource_state): a
   * built-in kind is told by its ops table's address, never by its name,
   * which an application's ops may share. */
  const mr_resource_ops *ops_id;
  _Atomic size_t refs;
  mr_resource_props props;
  char *description;
  mr_resource *upstream; /* borrowed view; the adaptor's state owns it */
  _Atomic(char *) owner; /* "library:tag", set once by a context */

  /* Over-aligned allocations: aligned pointer -> raw pointer. */
  pthread_mutex_t align_lock;
  struct mri_ptrmap *align_map;
  mri_fork_lockable align_fork; /* align_lock across fork() (core/fork.h) */
};

/* The properties of a resource over memory of `kind`: where it lives
 * (`device` for device memory, -1 for the others) and who may touch it
 * (pageable host memory: the host; device memory: kernels; pinned and
 * managed: both). Every built-in resource, and every stand-in for one that
 * cannot be built, takes its properties from here. */
mr_resource_props mri_memory_kind_props(mr_memory_kind kind, int device, bool stream_ordered,
                                        size_t native_alignment);

/* Create with everything a built-in resource knows: `upstream` (borrowed
 * view for mr_resource_upstream; may be NULL) and the description text
 * (copied; NULL: ops->describe or ops->name). */
mr_status mri_resource_create(const mr_resource_ops *ops, void *state,
                              const mr_resource_props *props, mr_resource *upstream,
                              const char *description, mr_resource **out);

/* Over-aligned paths (alignment > native_alignment). */
mr_status mri_allocate_overaligned(mr_resource *mr, size_t bytes, size_t alignment,
                                   mr_stream stream, void **ptr);
mr_status mri_deallocate_overaligned(mr_resource *mr, void *ptr, size_t bytes, size_t alignment,
                                     mr_stream stream);

/* The fast internal calls for adaptors: arguments already checked by the
 * public entry (bytes > 0, alignment a normalised power of two, ptr set). */
static inline mr_status mri_allocate(mr_resource *mr, size_t bytes, size_t alignment,
                                     mr_stream stream, void **ptr) {
  if (MRI_LIKELY(mr->native_alignment == 0 || alignment <= mr->native_alignment))
    return mr->allocate(mr->self, bytes, alignment, stream, ptr);
  return mri_allocate_overaligned(mr, bytes, alignment, stream, ptr);
}

static inline mr_status mri_deallocate(mr_resource *mr, void *ptr, size_t bytes, size_t alignment,
                                       mr_stream stream) {
  if (MRI_LIKELY(mr->native_alignment == 0 || alignment <= mr->native_alignment))
    return mr->deallocate(mr->self, ptr, bytes, alignment, stream);
  return mri_deallocate_overaligned(mr, ptr, bytes, alignment, stream);
}

/* Set the owner label of `mr` and of every resource below it that has none
 * yet (the first context to use a shared instance names it). */
void mri_resource_set_owner(mr_resource *mr, const char *owner);
/* The owner label, "" if none. */
const char *mri_resource_owner(const mr_resource *mr);

/* The "unavailable" stand-in for a resource that cannot be built here,
 * for want of a driver or a device (or not built at all, in host-only
 * resolution): every allocation fails with `status` and `reason`;
 * deallocating NULL is still a no-op, anything else is an error. It reports
 * the `props` (NULL: pageable host memory's) and `description` of the
 * resource it stands for, so what was asked for stays visible. The one way
 * stand-ins are made: for a spec's call (config/resolve.c), for a context's
 * tag on a device (context.c), for a device map's initial resource
 * (device_map.c) and for what describe-only resolution does not build
 * (below). */
mr_status mri_unavailable_resource_create(mr_status status, const char *reason,
                                          const mr_resource_props *props, const char *description,
                                          mr_resource **out);

/* ---- describing without building (describe_only.c) ----------------------- */

/* True while this thread resolves specs only to describe them (a context
 * created with MR_CONTEXT_DESCRIBE_ONLY, as `mrctx resolve` does). Factories
 * and constructors run as in a real build, checks and messages included;
 * a constructor that would touch anything outside its own bookkeeping --
 * open a file for writing, create a driver pool or change a default one,
 * take memory -- checks this just before that step and skips it, or
 * returns mri_described_resource_create's stand-in with the description
 * and properties it would have had. */
bool mri_describe_only(void);
/* Set this thread's mode; returns the previous one, for the caller to put
 * back. */
bool mri_set_describe_only(bool on);
/* The inert stand-in of a resource only described: every allocation fails
 * with MR_ERR_UNSUPPORTED, saying it was not built; deallocating NULL is a
 * no-op, anything else an error. `upstream` (may be NULL) is what the
 * resource would have been built over: the stand-in holds a reference and
 * shows it as its mr_resource_upstream, so a walk down the chain (the
 * context's search for a retry) finds what it would have. */
mr_status mri_described_resource_create(const mr_resource_props *props, const char *description,
                                        mr_resource *upstream, mr_resource **out);

/* ---- files: core/file_write.h (mri_write_all, mri_output_*) ----------------- */

/* ---- thread slots --------------------------------------------------------- */

/* Each live thread that uses a sharded structure gets a small slot number,
 * unique among live threads, reused after a thread exits. Per-thread state
 * (statistics shards, cache bins) is indexed by it, so a thread's common
 * path touches only its own cache lines. */
#define MRI_MAX_SLOTS 256

extern _Thread_local int mri_tls_slot_plus1;
int mri_thread_slot_slow(void);

/* This thread's slot, or -1 when all MRI_MAX_SLOTS are taken (callers then
 * use their shared, locked path). */
static inline int mri_thread_slot(void) {
  int s = mri_tls_slot_plus1;
  if (MRI_LIKELY(s > 0)) return s - 1;
  return mri_thread_slot_slow();
}

/* A per-slot hook: called on the owning thread when a thread that held a
 * slot exits, before the slot is freed (lets per-thread caches flush). */
typedef void (*mri_slot_exit_fn)(int slot);
void mri_thread_slot_on_exit(mri_slot_exit_fn fn);

/* Recorded streams (mr_record_stream, lib/driver/record_stream.c). The
 * driver layer owns the records; the core's frees only ask it, through a
 * hook it sets before its first record, so the core never calls below
 * itself. `mri_recorded_blocks` counts the blocks with records: while it is
 * 0 a free pays one load. The hook, given the block about to be freed on
 * `stream` (`sync`: by mr_deallocate_sync, or the stream does not order
 * the free), takes the block's record and makes the free wait for the
 * recorded streams; MR_OK with nothing to do when the block has none. On
 * failure the record stays and the block must not be freed. */
typedef mr_status (*mri_recorded_free_fn)(mr_resource *mr, void *ptr, mr_stream stream, bool sync);
extern atomic_size_t mri_recorded_blocks;
extern _Atomic(mri_recorded_free_fn) mri_recorded_free_hook;

static inline mr_status mri_recorded_before_free(mr_resource *mr, void *ptr, mr_stream stream,
                                                 bool sync) {
  if (MRI_LIKELY(atomic_load_explicit(&mri_recorded_blocks, memory_order_acquire) == 0))
    return MR_OK;
  mri_recorded_free_fn fn = atomic_load_explicit(&mri_recorded_free_hook, memory_order_acquire);
  return fn != NULL ? fn(mr, ptr, stream, sync) : MR_OK;
}

#endif /* MRCTX_LIB_CORE_H */
