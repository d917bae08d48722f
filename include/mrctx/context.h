/**
 * @file
 * context.h: a library's memory policy, one resource per tag and device.
 *
 * A library declares its allocation kinds as an enum and a matching array of
 * tags, creates one mr_context, passes it through its API, and allocates at
 * each site from ctx_get_mr(ctx, TAG). The application overrides tags from
 * configuration; the context reads it once, at creation, and never changes
 * afterwards.
 *
 * @code
 *   enum { MYLIB_TEMP, MYLIB_PINNED, MYLIB_RESULT };
 *   static const mr_tag mylib_tags[] = {
 *     [MYLIB_TEMP]   = {"temp",   "arena(device, chunk=64MiB)"},
 *     [MYLIB_PINNED] = {"pinned", "fixed(pinned, block=4MiB, count=8)"},
 *     [MYLIB_RESULT] = {"result", "device"},
 *   };
 *   mr_context_desc desc = {.size = sizeof desc, .library = "mylib",
 *                           .tags = mylib_tags, .tag_count = 3,
 *                           .env_var = "MYLIB_MEMORY"};
 *   mr_context *ctx;
 *   if (mr_context_create(&desc, &ctx) != MR_OK) ... mr_last_error() ...
 *   mr_allocate(ctx_get_mr(ctx, MYLIB_TEMP), n, 0, stream, &p);
 * @endcode
 *
 * Precedence, lowest first: the tag's default_spec < desc.overrides (the
 * application's text) < desc.config_file < the environment variable
 * desc.env_var (the operator's last word). Within one source a later entry
 * wins, and `tag@N` beats `tag` for device N. Entries for devices that are
 * not visible are checked for syntax and otherwise ignored.
 *
 * Devices: the context resolves every tag for every visible device at
 * creation. Without a driver it still creates, with one device slot: host
 * tags work, device tags fail to allocate with MR_ERR_NO_DRIVER.
 *
 * Threads: creation and destruction are not concurrent with use; everything
 * else is safe from any thread and takes no lock.
 */
#ifndef MRCTX_CONTEXT_H
#define MRCTX_CONTEXT_H

#include <stdio.h>

#include <mrctx/resource.h>
#include <mrctx/stats.h>

MR_EXTERN_C_BEGIN

/** A library's memory policy (opaque): this file's comment says what. */
typedef struct mr_context mr_context;

/** One allocation kind. Tag value i is entry i of the array. Its layout is
 * fixed for good (it is an array element, so it cannot grow): anything new
 * about tags comes as a new field of mr_context_desc. */
typedef struct mr_tag {
  const char *name;         /**< letters, digits, '_'; unique in the context */
  const char *default_spec; /**< the library's choice, e.g.\ "device" */
} mr_tag;

/** What mr_context_create builds: the library's tags and where overrides
 * come from. */
typedef struct mr_context_desc {
  size_t size;             /**< sizeof(mr_context_desc): required */
  const char *library;     /**< the library's name, for messages and statistics */
  const mr_tag *tags;      /**< tag_count entries, copied at creation */
  size_t tag_count;        /**< entries in `tags` */
  const char *env_var;     /**< optional: variable holding overrides */
  const char *config_file; /**< optional: file of overrides; an error only if
                                named and missing */
  const char *overrides;   /**< optional: the application's override text */
  uint32_t flags;          /**< 0, or MR_CONTEXT_DESCRIBE_ONLY */
  /** optional: what each tag's memory must be, tag_count entries parallel
   * to `tags` (entry i for tag i), each 0 or MR_REQUIRE_* flags ORed
   * together; NULL: nothing is required. Checked at creation for every
   * device and whatever source the spec came from (the tag's default
   * included): a spec whose resource does not have what its tag requires
   * fails creation with MR_ERR_CONFIG, naming the library, tag, device,
   * source and what is missing. A bit this library does not know is
   * MR_ERR_UNSUPPORTED. */
  const uint32_t *tag_requires;
} mr_context_desc;

/** @{ */
/** mr_context_desc.tag_requires flags: what a tag's memory must be, read
 * from its resource's properties (mr_resource_props). Without a driver a
 * device tag's stand-in has the properties of what it stands for, so the
 * check is the same. */
/** Kernels may dereference it (device, pinned, managed memory). */
#define MR_REQUIRE_DEVICE_ACCESSIBLE ((uint32_t)1 << 0)
/** The host may dereference it (host, pinned, managed memory). */
#define MR_REQUIRE_HOST_ACCESSIBLE ((uint32_t)1 << 1)
/** Frees honour the stream: memory freed on a stream is reused only in
 * that stream's order (the driver's pools and what is built on them; not
 * host, nor the sync_* resources, which free at once). */
#define MR_REQUIRE_STREAM_ORDERED ((uint32_t)1 << 2)
/** @} */

/** mr_context_desc.flags: resolve every tag as a real context would --
 * the same sources, precedence, parsing, factories, checks and messages --
 * but take nothing from the world: no file is opened for writing (a
 * log(...)'s file is left as it is), no driver pool is created or changed,
 * no memory is taken (fixed and bin preallocate nothing). Each tag's
 * resource has the description and properties the real one would have,
 * and mr_context_get_source the same status, but every allocation fails
 * with MR_ERR_UNSUPPORTED. What `mrctx resolve` shows. What can be checked
 * without touching anything is checked, and fails creation as the real
 * build would (MR_ERR_CONFIG): a log(...)'s file that names a directory, or
 * whose directory does not exist or cannot be written into by this
 * process. Checks that need the effect are not made: whether the file
 * itself can be replaced, whether a pool's initial reservation fits. */
#define MR_CONTEXT_DESCRIBE_ONLY ((uint32_t)1)

/** Create a context. OUT: *ctx. A malformed or unresolvable spec from any
 * source fails with MR_ERR_CONFIG; mr_last_error() quotes the text, names
 * its source (variable, file and line, override, default) and points at the
 * column. */
MR_NODISCARD MR_API mr_status mr_context_create(const mr_context_desc *desc, mr_context **ctx);

/** Destroy a context and release its resources. Memory allocated through it
 * must have been freed. NULL is ignored. */
MR_API void mr_context_destroy(mr_context *ctx);

/** The resource for `tag` on the calling thread's current device. Borrowed:
 * valid while the context lives. Never NULL for a valid tag; NULL (with
 * mr_last_error()) for an invalid tag or context. No lock. */
MR_API mr_resource *mr_context_get_mr(const mr_context *ctx, int tag);

/** The resource for `tag` on `device`. NULL for an invalid tag or device. */
MR_API mr_resource *mr_context_get_mr_on(const mr_context *ctx, int tag, int device);

#ifndef MRCTX_NO_SHORT_NAMES
/** The allocation-site call: the resource for `tag` on the current device. */
static inline mr_resource *ctx_get_mr(const mr_context *ctx, int tag) {
  return mr_context_get_mr(ctx, tag);
}
#endif

/** The library's name ("" for NULL). */
MR_API const char *mr_context_library(const mr_context *ctx);
/** How many tags the context has (0 for NULL). */
MR_API size_t mr_context_tag_count(const mr_context *ctx);
/** The name of `tag`; NULL for an invalid tag or context. */
MR_API const char *mr_context_tag_name(const mr_context *ctx, int tag);
/** How many device slots the context has (1 without a driver). */
MR_API int mr_context_device_count(const mr_context *ctx);

/** Where a tag's spec came from. */
typedef enum mr_spec_origin {
  MR_SPEC_DEFAULT = 0,  /**< the tag's default_spec */
  MR_SPEC_OVERRIDE = 1, /**< desc.overrides */
  MR_SPEC_FILE = 2,     /**< desc.config_file */
  MR_SPEC_ENV = 3,      /**< the environment variable */
} mr_spec_origin;

/** "default", "override", "file", "env". Static. */
MR_API const char *mr_spec_origin_name(mr_spec_origin origin);

/** Where one tag's spec on one device came from (mr_context_get_source). */
typedef struct mr_spec_source {
  size_t size;           /**< sizeof(mr_spec_source): set it before the call */
  mr_spec_origin origin; /**< which source */
  const char *where;     /**< the variable's or file's name; "" otherwise */
  int line;              /**< 1-based line in the source text */
  const char *spec;      /**< the spec text as written */
  /** MR_OK, or MR_ERR_NO_DRIVER / MR_ERR_NO_DEVICE when the spec could not
   * be built for want of a driver or device: the tag's resource on this
   * device then fails every allocation with that status and `reason`. */
  mr_status status;
  const char *reason; /**< "" when status is MR_OK */
} mr_spec_source;

/** OUT: *source for tag on device (set source->size first; on return it says
 * how many bytes were filled); its strings live as long as the context. */
MR_NODISCARD MR_API mr_status mr_context_get_source(const mr_context *ctx, int tag, int device,
                                                    mr_spec_source *source);

/** An override entry for a device the context does not have (`tag@N` with N
 * past the visible devices): checked like any entry, then ignored. */
typedef struct mr_ignored_entry {
  size_t size;                  /**< sizeof(mr_ignored_entry): set it before the call */
  const char *tag;              /**< the tag it names */
  int device;                   /**< the device it names */
  const mr_spec_source *source; /**< where it was written; status is MR_OK.
                                     Owned by the context. */
} mr_ignored_entry;

/** How many entries were ignored at creation. */
MR_API size_t mr_context_ignored_count(const mr_context *ctx);

/** OUT: *entry, the index-th ignored entry (in source order, lowest source
 * first; set entry->size first); its strings live as long as the context. */
MR_NODISCARD MR_API mr_status mr_context_get_ignored(const mr_context *ctx, size_t index,
                                                     mr_ignored_entry *entry);

/** Per-tag statistics, always on. `device` -1 sums over devices.
 * OUT: *stats (set stats->size first, or use mr_stats_init). */
MR_NODISCARD MR_API mr_status mr_context_get_stats(const mr_context *ctx, int tag, int device,
                                                   mr_stats *stats);

/** Set the peaks of `tag` on `device` to what is live now, so that
 * peak_bytes and peak_count say the most held at once from here on (a
 * batch-size search: reset, run one step, read the peak). `tag` -1 resets
 * every tag, `device` -1 every device. Current, total and failed counts are
 * untouched. Safe while other threads allocate, as
 * mr_stats_resource_reset_peak says, and the peaks keep the bound of
 * <mrctx/stats.h> counted from the reset (exact for one thread, and for a
 * tag whose spec is stats(UP, peak=exact); resetting such a tag resets that
 * adaptor's peaks too). A snapshot or mr_context_print_stats taken after
 * shows the peaks since the reset. MR_ERR_INVALID_ARGUMENT for a tag the
 * context does not have or a device below -1, MR_ERR_NO_DEVICE for a
 * device past its slots (as mr_context_get_stats). */
MR_NODISCARD MR_API mr_status mr_context_reset_peak(const mr_context *ctx, int tag, int device);

/** Print every tag's statistics as a table (one row per tag and device that
 * has allocated, and a total per tag), then, where a tag's chain keeps idle
 * memory (cache, arena, fixed, bin, an owned pool), what each such resource
 * keeps idle now and what the process-wide reclaims took back from it.
 * The library's name is escaped as mr_snapshot_write_text escapes names. */
MR_NODISCARD MR_API mr_status mr_context_print_stats(const mr_context *ctx, FILE *out);

/** Print what the context resolved to, as `mrctx resolve` shows it: a
 * line naming the library, its tags and devices; then, for every tag on
 * every device, the resource (as mr_resource_describe says it) and where
 * its spec came from (mr_context_get_source: `default`, `override text,
 * line N`, `file PATH, line N`, `env VARIABLE, line N`), `(unavailable)`
 * after a tag that cannot allocate there; then the entries ignored for
 * devices the process does not have (mr_context_get_ignored), and why each
 * unavailable tag is. The one printer of this table: `mrctx resolve`,
 * `python -m mrctx resolve` and MRCTX_VERBOSE print it through this call.
 * Names, paths and reasons are escaped as mr_snapshot_write_text escapes
 * names. Reads the context only: safe while other threads allocate. */
MR_NODISCARD MR_API mr_status mr_context_print_resolved(const mr_context *ctx, FILE *out);

/** Write now what MRCTX_STATS_AT_EXIT asks for (docs/observability.md):
 * every live context, then those destroyed before, marked. Instead of at
 * exit: for a runtime that destroys its contexts before the C
 * library's exit handlers run, such as Python's interpreter shutdown (the
 * mrctx package calls it from an atexit handler), or a C++ program whose
 * static destructors would run first. The first call writes, once; later
 * calls and the exit handler then write nothing. MR_OK, writing nothing,
 * where the variable is unset or no context was ever created (the variable
 * is read at the first context's creation). Thread-safe. */
MR_NODISCARD MR_API mr_status mr_write_stats_at_exit(void);

MR_EXTERN_C_END

#endif /* MRCTX_CONTEXT_H */
