/**
 * @file
 * status.h: status codes and the per-thread error message.
 *
 * Every fallible call returns an mr_status. On failure it leaves its output
 * pointer NULL and records, for the calling thread only, a message saying
 * what failed and why (mr_last_error()).
 */
#ifndef MRCTX_STATUS_H
#define MRCTX_STATUS_H

#include <mrctx/common.h>

MR_EXTERN_C_BEGIN

/**
 * The one list of status codes: the enum, mr_status_name() and
 * mr_status_string() are generated from it and cannot drift apart.
 * X(name, value, description). Values are ABI: never renumber, only append.
 * MR_ERR_STATE is reserved: no call returns it in this version.
 */
#define MR_STATUS_LIST(X)                                            \
  X(MR_OK, 0, "success")                                             \
  X(MR_ERR_INVALID_ARGUMENT, 1, "invalid argument")                  \
  X(MR_ERR_OUT_OF_MEMORY, 2, "out of memory")                        \
  X(MR_ERR_NO_DRIVER, 3, "the CUDA driver is not available")         \
  X(MR_ERR_NO_DEVICE, 4, "no such CUDA device")                      \
  X(MR_ERR_UNSUPPORTED, 5, "not supported by this driver or device") \
  X(MR_ERR_CONFIG, 6, "invalid memory configuration")                \
  X(MR_ERR_DRIVER, 7, "the CUDA driver reported an error")           \
  X(MR_ERR_STATE, 8, "not allowed in the current state")

/** The status every fallible call returns: MR_OK, or what went wrong. */
typedef enum mr_status {
#define MR_STATUS_ENUM_(name, value, description) name = value,
  MR_STATUS_LIST(MR_STATUS_ENUM_)
#undef MR_STATUS_ENUM_
} mr_status;

/** "MR_ERR_CONFIG" for MR_ERR_CONFIG; "MR_ERR_UNKNOWN" for values not in the
 * list. Never NULL; the string is static. */
MR_API const char *mr_status_name(mr_status status);

/** A short description of the code itself ("invalid memory configuration").
 * Never NULL; static. For what actually went wrong, see mr_last_error(). */
MR_API const char *mr_status_string(mr_status status);

/**
 * The calling thread's message for its most recent failure: what failed and
 * why (the driver's error name, the sizes, the device, or the configuration
 * text and position). Successful calls do not clear it. Never NULL ("" when
 * nothing has failed on this thread). The pointer stays valid until this
 * thread's next failing call or mr_clear_error().
 */
MR_API const char *mr_last_error(void);

/** Forget this thread's last error message. */
MR_API void mr_clear_error(void);

/**
 * For authors of custom resources and factories: record a printf-style
 * message as this thread's last error and return `status`, so a failing
 * method can end with `return mr_error(MR_ERR_OUT_OF_MEMORY, "...", ...);`.
 */
MR_API mr_status mr_error(mr_status status, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

MR_EXTERN_C_END

#endif /* MRCTX_STATUS_H */
