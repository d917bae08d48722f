/**
 * @file
 * host.h: the pageable host resource ("host" in the spec language).
 *
 * Plain aligned host memory from the C library. Not page-locked: kernels can
 * not read it and copies from it are staged by the driver. It needs no
 * driver, so host tags work on machines without a GPU. Stream arguments are
 * ignored: memory is freed at once (props.stream_ordered is false).
 */
#ifndef MRCTX_HOST_H
#define MRCTX_HOST_H

#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** OUT: *out, a new host resource (one reference, the caller's). */
MR_NODISCARD MR_API mr_status mr_host_resource_create(mr_resource **out);

MR_EXTERN_C_END

#endif /* MRCTX_HOST_H */
