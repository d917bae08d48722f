/**
 * @file
 * mrctx — memory resource contexts for GPU libraries.
 *
 * common.h: what every public header needs: the export macro, the stream
 * type, C/C++ linkage. Public headers never include cuda.h; mr_stream is the
 * same type as CUstream and cudaStream_t, so those convert without a cast.
 */
#ifndef MRCTX_COMMON_H
#define MRCTX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrctx/version.h>

#if defined(__GNUC__) || defined(__clang__)
#define MR_API __attribute__((visibility("default")))
#else
#define MR_API
#endif

/**
 * @def MR_NODISCARD
 * MR_NODISCARD marks calls whose status must be looked at: ignoring it is a
 * compiler warning. It goes first in a declaration. GCC's attribute cannot
 * be silenced with a (void) cast; check the status, or build with
 * -DMRCTX_NO_NODISCARD where a warning is not wanted.
 */
#if defined(MRCTX_NO_NODISCARD)
#define MR_NODISCARD
#elif defined(__cplusplus) && __cplusplus >= 201703L
#define MR_NODISCARD [[nodiscard]]
#elif defined(__GNUC__) || defined(__clang__)
#define MR_NODISCARD __attribute__((warn_unused_result))
#else
#define MR_NODISCARD
#endif

/*
 * Versioned structs. Every public struct the library reads from the caller
 * or fills for the caller begins with `size_t size`, set to sizeof(the
 * struct) as the caller's compiler sees it. Fields are only ever appended,
 * so a program built against an older header keeps working with a newer
 * library, and one built against a newer header works with an older
 * library as long as it leaves the fields that library does not know zero.
 * docs/abi.md has the rules.
 */

#ifdef __cplusplus
#define MR_EXTERN_C_BEGIN extern "C" {
#define MR_EXTERN_C_END }
#else
#define MR_EXTERN_C_BEGIN
#define MR_EXTERN_C_END
#endif

MR_EXTERN_C_BEGIN

/**
 * A CUDA stream: the same type as CUstream (driver API) and cudaStream_t
 * (runtime API). NULL is the legacy default stream; the driver's
 * CU_STREAM_PER_THREAD handle selects the per-thread default stream.
 */
typedef struct CUstream_st *mr_stream;

/** The library's version string, e.g.\ "0.1.0" (the same as MRCTX_VERSION_STRING
 * for the headers it was built with). */
MR_API const char *mr_version(void);

MR_EXTERN_C_END

#endif /* MRCTX_COMMON_H */
