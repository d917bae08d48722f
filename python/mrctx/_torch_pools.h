/*
 * _torch_pools.h: PyTorch's private memory pools over route 0
 * (_torch_pools.cpp says what they are). Internal to the PyTorch shim; the
 * C entries are for _torch_oom.cpp, Python's tests (ctypes) and the fake
 * suite's C test.
 */
#ifndef MRCTX_TORCH_POOLS_H
#define MRCTX_TORCH_POOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <mrctx/mrctx.h>

MR_EXTERN_C_BEGIN

/* What the pools hold now (one device, or every device for -1). */
typedef struct mrctx_torch_pools_info {
  unsigned long long pools;      /* pools in use or holding blocks */
  unsigned long long open;       /* beginAllocateToPool not yet ended */
  unsigned long long uses;       /* begins not yet released */
  unsigned long long held_bytes; /* segments the pools hold (the tag's), live or free */
  unsigned long long live_bytes; /* of which in blocks handed out now */
  unsigned long long live_blocks;
  unsigned long long kept_blocks;    /* segments never given back: the device's work could not be
                                     waited for */
  unsigned long long waiting_blocks; /* segments released while a pool was open: they go back
                                        once none is */
  unsigned long long segments;       /* held now */
  unsigned long long free_blocks;    /* free blocks in them, after merging */
} mrctx_torch_pools_info;

/* beginAllocateToPool with a C filter (NULL: every stream): the entry for
 * tests and C callers; PyTorch's hook passes its std::function. */
typedef int (*mrctx_torch_c_filter)(void *stream, void *user);
void mrctx_torch_pools_begin_c(int device, unsigned long long first, unsigned long long second,
                               mrctx_torch_c_filter filter, void *user);
void mrctx_torch_pools_end_c(int device, unsigned long long first, unsigned long long second);
void mrctx_torch_pools_release_c(int device, unsigned long long first, unsigned long long second);

/* Route 0's allocation and free as PyTorch's functions make them, with the
 * pools first; the allocation returns NULL with *status on failure instead
 * of throwing. */
void *mrctx_torch_route0_alloc(ssize_t size, int device, void *stream, mr_status *status);
void mrctx_torch_route0_free(void *ptr, ssize_t size, int device, void *stream);

/* Whether a pool is open (the allocation path asks the pools). */
bool mrctx_torch_pools_route(void);
/* A pool's allocation: *handled false when no open pool takes (device,
 * stream); else the block, or NULL with *status. */
void *mrctx_torch_pools_alloc(ssize_t size, int device, void *stream, mr_status *status,
                              bool *handled);
/* true when the pools took the block back (a pool's block, or one freed on
 * a stream a pool captures). */
bool mrctx_torch_pools_free(void *ptr, ssize_t size, int device, void *stream);
/* true when `ptr` is a pool's block: it is then kept, not reused, until
 * the pool goes (Tensor.record_stream). */
bool mrctx_torch_pools_record_stream(void *ptr);
/* The live blocks of pool (first, second) on `device`: their count (up to
 * `cap` of them written to `out`), or -1 for a pool that does not exist
 * (checkPoolLiveAllocations). */
long mrctx_torch_pool_live(int device, unsigned long long first, unsigned long long second,
                           void **out, size_t cap);
/* The segments of that pool: their count (up to `cap` of them written,
 * address and size), or -1 (held-memory checks in tests). */
long mrctx_torch_pool_segments(int device, unsigned long long first, unsigned long long second,
                               void **base, size_t *size, size_t cap);
void mrctx_torch_pools_read(int device, mrctx_torch_pools_info *info);

/* torch.cuda.MemPool's pool made before use (createOrIncrefPool: one use,
 * released by releasePool), and its use count (getPoolUseCount). */
void mrctx_torch_pools_incref(int device, unsigned long long first, unsigned long long second);
long mrctx_torch_pools_use_count(int device, unsigned long long first, unsigned long long second);

/* MemPool(use_on_oom=True) and its destructor (setUseOnOOM; nothing for
 * a pool that does not exist), and MemPool(no_split=True) (setNoSplit:
 * the pool's new blocks are whole segments of their rounded size). */
void mrctx_torch_pools_set_use_on_oom(int device, unsigned long long first,
                                      unsigned long long second, int use_on_oom);
void mrctx_torch_pools_set_no_split(int device, unsigned long long first,
                                    unsigned long long second);
/* An allocation outside the pools that the tag refused for lack of
 * memory: a free block of a use_on_oom pool on (device, stream), which
 * stays that pool's, or NULL. */
void *mrctx_torch_pools_alloc_on_oom(ssize_t size, int device, void *stream);

/* A live block of a pool, as Inductor's graph trees checkpoint it. */
typedef struct mrctx_torch_pool_block {
  void *ptr;
  size_t size;  /* as PyTorch asked for it */
  void *stream; /* the stream PyTorch allocated it on */
} mrctx_torch_pool_block;
/* The live blocks of a pool: their count (-1: no such pool), up to `cap`
 * of them in `out` (getCheckpointState). */
long mrctx_torch_pool_state(int device, unsigned long long first, unsigned long long second,
                            mrctx_torch_pool_block *out, size_t cap);
/* Make exactly `wanted` (n blocks, as mrctx_torch_pool_state gave them)
 * the pool's live blocks, at their addresses (setCheckpointPoolState):
 * every block live now is freed into the pool and written to `freed`
 * (their count in *freed_count, at most `cap` written), then each wanted
 * block is cut again out of the pool's free memory. 0; -1 with nothing
 * changed when the pool does not exist or a wanted block is not inside its
 * segments, overlaps another, or overlaps a block kept for another
 * stream's use. */
int mrctx_torch_pool_restore(int device, unsigned long long first, unsigned long long second,
                             const mrctx_torch_pool_block *wanted, size_t n, void **freed,
                             size_t cap, size_t *freed_count);

MR_EXTERN_C_END

#ifdef __cplusplus
#include <functional>
#include <utility>

struct CUstream_st;
/* PyTorch's MempoolId_t and its allocation filter, as its pluggable
 * allocator's hooks pass them. */
typedef std::pair<unsigned long long, unsigned long long> mrctx_torch_pool_id;
typedef std::function<bool(CUstream_st *)> mrctx_torch_stream_filter;

void mrctx_torch_pools_begin(int device, mrctx_torch_pool_id id, mrctx_torch_stream_filter filter);
void mrctx_torch_pools_end(int device, mrctx_torch_pool_id id);
void mrctx_torch_pools_release(int device, mrctx_torch_pool_id id);
#endif

#endif
