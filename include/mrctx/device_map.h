/**
 * @file
 * device_map.h: a device id -> resource table, and the process-wide one.
 *
 * Any library can keep its own map; the process-wide instance behind
 * mr_get_current_device_resource() is the familiar "current device resource"
 * API for code that wants one shared choice.
 *
 * A device's initial resource is its current driver pool (the `device`
 * resource), created on first use. Getting takes no lock; set and reset
 * serialize among themselves. Set returns the previous resource with its
 * reference: the caller owns it and must keep it alive while other threads
 * may still be using it (a get may have returned it just before the set).
 * Invalid device ids are errors, never undefined behaviour.
 */
#ifndef MRCTX_DEVICE_MAP_H
#define MRCTX_DEVICE_MAP_H

#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** A device id -> resource table (opaque). */
typedef struct mr_device_map mr_device_map;

/** A map with one slot per visible device (one slot without a driver).
 * OUT: *map. */
MR_NODISCARD MR_API mr_status mr_device_map_create(mr_device_map **map);

/** Release every resource the map holds and free it. NULL is ignored. */
MR_API void mr_device_map_destroy(mr_device_map *map);

/** How many device slots the map has. */
MR_API int mr_device_map_size(const mr_device_map *map);

/** The resource for `device` (borrowed). NULL with mr_last_error() for an
 * invalid device or when the initial resource cannot be created. No lock. */
MR_API mr_resource *mr_device_map_get(mr_device_map *map, int device);

/** Put `mr` in `device`'s slot (the map takes a reference). OUT: *previous,
 * the resource that was there, with its reference now the caller's (NULL if
 * the slot was still unset); pass NULL to release it instead. */
MR_NODISCARD MR_API mr_status mr_device_map_set(mr_device_map *map, int device, mr_resource *mr,
                                                mr_resource **previous);

/** Put the initial resource back. OUT: *previous as for set. */
MR_NODISCARD MR_API mr_status mr_device_map_reset(mr_device_map *map, int device,
                                                  mr_resource **previous);

/* ---- the process-wide map ------------------------------------------------ */

/** The resource for the calling thread's current device. */
MR_API mr_resource *mr_get_current_device_resource(void);
/** The resource for `device`. */
MR_API mr_resource *mr_get_per_device_resource(int device);
/** Set the current device's resource. OUT: *previous as above. */
MR_NODISCARD MR_API mr_status mr_set_current_device_resource(mr_resource *mr,
                                                             mr_resource **previous);
/** Set `device`'s resource. OUT: *previous as above. */
MR_NODISCARD MR_API mr_status mr_set_per_device_resource(int device, mr_resource *mr,
                                                         mr_resource **previous);
/** Put the current device's initial resource back. OUT: *previous. */
MR_NODISCARD MR_API mr_status mr_reset_current_device_resource(mr_resource **previous);
/** Put `device`'s initial resource back. OUT: *previous. */
MR_NODISCARD MR_API mr_status mr_reset_per_device_resource(int device, mr_resource **previous);

MR_EXTERN_C_END

#endif /* MRCTX_DEVICE_MAP_H */
