/**
 * @file
 * mrctx.h: everything. Include this, or only the headers you use.
 */
#ifndef MRCTX_MRCTX_H
#define MRCTX_MRCTX_H

#include <mrctx/version.h>
#include <mrctx/common.h>
#include <mrctx/status.h>
#include <mrctx/resource.h>
#include <mrctx/reclaim.h>
#include <mrctx/stats.h>
#include <mrctx/host.h>
#include <mrctx/driver.h>
#include <mrctx/ipc.h>
#include <mrctx/adaptors.h>
#include <mrctx/config.h>
#include <mrctx/context.h>
#include <mrctx/device_map.h>
#include <mrctx/snapshot.h>

#endif /* MRCTX_MRCTX_H */
