/*
 * _torch_pools.cpp: PyTorch's private memory pools over route 0 (the tag
 * of mrctx.torch.use): what CUDA graphs (torch.cuda.graph,
 * make_graphed_callables, torch.compile's CUDA graphs) and
 * torch.cuda.use_mem_pool allocate into.
 *
 * PyTorch opens a pool with beginAllocateToPool(device, id, filter): until
 * endAllocateToPool, an allocation on `device` whose stream the filter
 * accepts (a graph's: the stream capturing that graph; use_mem_pool's: any
 * stream of the calling thread) belongs to the pool. A pool's memory stays
 * the pool's until releasePool has been called once for every
 * beginAllocateToPool (a graph's reset or destruction, the end of a
 * use_mem_pool block): a replay writes into every block the capture used,
 * at the same addresses, so none of it may go to anyone else while a graph
 * of the pool lives. Here a pool is a set of segments taken from the tag,
 * cut into blocks as PyTorch's own allocator cuts its segments ("The
 * pools" below says how):
 *  - an allocation in the pool takes the best-fitting free block of the
 *    pool on the same stream, split to size, or a new segment from the tag;
 *  - a block of the pool that PyTorch frees merges with its free
 *    neighbours and stays the pool's, never the tag's, while the pool is in
 *    use; a block used on another stream (Tensor.record_stream) is kept but
 *    not reused;
 *  - a block allocated before the capture and freed on the capturing stream
 *    during it joins the pool as a segment (the graph's kernels read it on
 *    every replay), which PyTorch's own allocator does not do;
 *  - when the last use is released, the segments with no live block go
 *    back to the tag, after the device's work has finished (replays run on
 *    streams the pool never sees); a segment with live blocks (a graph's
 *    outputs the program holds) goes back when the last of them is freed.
 * A capture's new segment is allocated from the tag on the calling thread's
 * per-thread default stream, which is never captured, and that stream is
 * synchronized before the block is handed out (a replay may run on any
 * stream), in the relaxed capture mode, as PyTorch's own allocator calls
 * cudaMalloc during a capture. So the tag's chain sees ordinary requests,
 * its statistics count the pool's segments (live or free) as the tag's,
 * and they are never graph allocation nodes.
 *
 * Threads: one mutex over every pool; filters (PyTorch's functions) run
 * under it. The tag is never called under it (an allocation that runs out
 * reclaims process-wide and may call other frameworks' reclaimers). The
 * allocation path checks one relaxed atomic while no pool is open, the free
 * path one while the pools hold no segment.
 */
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "_torch_alloc.h"
#include "_torch_pools.h"

#define EXPORT __attribute__((visibility("default")))

namespace {

/* ---- The driver entries the pools need -----------------------------------
 *
 * mrctx loads the driver privately (RTLD_LOCAL), and the shim links no CUDA
 * library: the entries are asked of cuGetProcAddress_v2 (CUDA 13.0, legacy
 * default-stream semantics, as mrctx's own loader asks) in the driver
 * library already loaded ($MRCTX_CUDA_DRIVER or libcuda.so.1, never loading
 * one), or in the process (a program linked to a driver). */
typedef int (*get_proc_fn)(const char *symbol, void **pfn, int version, unsigned long long flags,
                           int *status);
typedef int (*exchange_mode_fn)(int *mode);  /* cuThreadExchangeStreamCaptureMode */
typedef int (*stream_sync_fn)(void *stream); /* cuStreamSynchronize */
typedef int (*ctx_sync_fn)(void *ctx);       /* cuCtxSynchronize at 13.0: NULL is the current one */
typedef int (*is_capturing_fn)(void *stream, int *status); /* cuStreamIsCapturing */

struct driver_entries {
  exchange_mode_fn exchange_mode = nullptr;
  stream_sync_fn stream_sync = nullptr;
  ctx_sync_fn ctx_sync = nullptr;
  is_capturing_fn is_capturing = nullptr;
};

const driver_entries &driver() {
  static driver_entries entries;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *named = std::getenv("MRCTX_CUDA_DRIVER");
    void *handle = nullptr;
    if (named != nullptr && named[0] != '\0') handle = dlopen(named, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *symbol = dlsym(handle != nullptr ? handle : RTLD_DEFAULT, "cuGetProcAddress_v2");
    if (symbol == nullptr) return;
    get_proc_fn get = reinterpret_cast<get_proc_fn>(symbol);
    auto entry = [get](const char *name) {
      void *pfn = nullptr;
      int found = 0;
      return get(name, &pfn, 13000, 1 /* CU_GET_PROC_ADDRESS_LEGACY_STREAM */, &found) == 0
                 ? pfn
                 : nullptr;
    };
    entries.exchange_mode =
        reinterpret_cast<exchange_mode_fn>(entry("cuThreadExchangeStreamCaptureMode"));
    entries.stream_sync = reinterpret_cast<stream_sync_fn>(entry("cuStreamSynchronize"));
    entries.ctx_sync = reinterpret_cast<ctx_sync_fn>(entry("cuCtxSynchronize"));
    entries.is_capturing = reinterpret_cast<is_capturing_fn>(entry("cuStreamIsCapturing"));
  });
  return entries;
}

enum { CAPTURE_MODE_RELAXED = 2, CAPTURE_STATUS_NONE = 0 };
void *const PER_THREAD_STREAM = reinterpret_cast<void *>(0x2); /* CU_STREAM_PER_THREAD */

/* Whether `stream` is being captured. Without the entry, or when the query
 * fails, a stream counts as captured: the pool then takes its block the
 * way that is safe for both. */
bool capturing(void *stream) {
  const driver_entries &d = driver();
  if (stream == nullptr || d.is_capturing == nullptr) return stream != nullptr;
  int status = CAPTURE_STATUS_NONE;
  return d.is_capturing(stream, &status) != 0 || status != CAPTURE_STATUS_NONE;
}

/* The relaxed capture mode for this thread while in scope. */
struct relaxed_capture {
  int mode = CAPTURE_MODE_RELAXED;
  bool swapped = false;
  relaxed_capture() {
    exchange_mode_fn f = driver().exchange_mode;
    swapped = f != nullptr && f(&mode) == 0;
  }
  ~relaxed_capture() {
    if (swapped) driver().exchange_mode(&mode);
  }
  relaxed_capture(const relaxed_capture &) = delete;
  relaxed_capture &operator=(const relaxed_capture &) = delete;
};

/* ---- The pools --------------------------------------------------------------
 *
 * A pool holds segments, each one allocation from the tag, cut into blocks
 * in address order as PyTorch's own allocator cuts its segments: sizes
 * rounded to 512 bytes; requests up to 1 MiB ("small") served from 2 MiB
 * segments, up to 10 MiB from 20 MiB segments, larger ones from a segment
 * of their size rounded to 2 MiB; a free block is the best fit among the
 * pool's free blocks of the same kind and stream, split when what remains
 * is worth keeping (512 bytes of a small block, more than 1 MiB of a large
 * one); a freed block merges with its free neighbours. So memory a capture
 * freed serves later requests of any size, as it does in PyTorch's pool. */

constexpr size_t MIN_BLOCK = 512;
constexpr size_t SMALL_REQUEST = size_t{1} << 20; /* served from small segments */
constexpr size_t SMALL_SEGMENT = size_t{2} << 20;
constexpr size_t MID_REQUEST = size_t{10} << 20; /* below: 20 MiB segments */
constexpr size_t MID_SEGMENT = size_t{20} << 20;
constexpr size_t LARGE_ROUND = size_t{2} << 20;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
size_t block_size(size_t asked) {
  return asked < MIN_BLOCK ? MIN_BLOCK : round_up(asked, MIN_BLOCK);
}
bool small_kind(size_t rounded) { return rounded <= SMALL_REQUEST; }
size_t segment_size(size_t rounded) {
  if (rounded <= SMALL_REQUEST) return SMALL_SEGMENT;
  if (rounded < MID_REQUEST) return MID_SEGMENT;
  return round_up(rounded, LARGE_ROUND);
}
/* Whether a free block of `size` split for `rounded` leaves a remainder
 * worth keeping. */
bool worth_splitting(size_t size, size_t rounded, bool small) {
  size_t rest = size - rounded;
  return small ? rest >= MIN_BLOCK : rest > SMALL_REQUEST;
}

struct pool_key {
  int device;
  mrctx_torch_pool_id id;
  bool operator<(const pool_key &o) const {
    return std::tie(device, id.first, id.second) < std::tie(o.device, o.id.first, o.id.second);
  }
  bool operator==(const pool_key &o) const {
    return device == o.device && id.first == o.id.first && id.second == o.id.second;
  }
};

struct segment;

struct block {
  char *ptr;
  size_t size;
  segment *seg;
  block *prev = nullptr; /* neighbours in the segment, in address order */
  block *next = nullptr;
  bool live = false;
  bool shared = false; /* used on another stream: kept until the pool goes, not reused */
  size_t asked = 0;    /* what PyTorch asked for, while live */
};

struct segment {
  pool_key pool;
  char *base;
  size_t size;  /* what the tag gave (the free to the tag passes it) */
  void *stream; /* its blocks are reused only on this stream */
  bool small;
  size_t live_blocks = 0;
  block *first = nullptr;
};

/* Free blocks in the order a best fit searches them: kind, stream, size,
 * address. */
struct free_order {
  bool operator()(const block *a, const block *b) const {
    auto key = [](const block *x) {
      return std::make_tuple(x->seg->small, reinterpret_cast<uintptr_t>(x->seg->stream), x->size,
                             reinterpret_cast<uintptr_t>(x->ptr));
    };
    return key(a) < key(b);
  }
};

struct private_pool {
  long uses = 0;           /* begins not yet released */
  bool use_on_oom = false; /* MemPool(use_on_oom=True): its free blocks serve allocations
                              outside it that the tag cannot */
  bool no_split = false;   /* MemPool(no_split=True): each block is a whole segment, never cut
                              or merged (memory registered per allocation, as NCCL's) */
  size_t held_bytes = 0;   /* its segments, live or free */
  size_t live_bytes = 0;   /* blocks handed out now */
  size_t live_blocks = 0;
  std::set<block *, free_order> free;
  std::map<char *, segment *> segments; /* by base address */
};

struct open_pool {
  pool_key key;
  mrctx_torch_stream_filter filter; /* empty: every stream */
};

std::mutex lock;
std::map<pool_key, private_pool> pools;
std::vector<open_pool> open;
std::unordered_map<void *, block *> live; /* every block handed out, by address */
std::atomic<int> open_count{0};
std::atomic<long> segment_count{0};
std::atomic<int> oom_pools{0}; /* pools with use_on_oom set */
long segments_held = 0;        /* under the lock */
std::atomic<unsigned long long> kept_blocks{0};

/* A segment on its way back to the tag. */
struct returning {
  void *ptr;
  size_t size;
  int device;
};
/* Segments that went back while some pool was open: waiting for the
 * device then could break that capture (a capture forbids waiting for the
 * whole device), so they wait here, still the tag's, until no pool is
 * open. */
std::vector<returning> deferred;

/* Called with the lock held after a change. */
void publish() {
  open_count.store(static_cast<int>(open.size()), std::memory_order_relaxed);
  segment_count.store(segments_held, std::memory_order_relaxed);
}

/* The open pool an allocation on (device, stream) belongs to: the first
 * whose filter takes it, as PyTorch's own allocator picks. */
const open_pool *routed(int device, void *stream) {
  for (const open_pool &p : open) {
    if (p.key.device != device) continue;
    if (!p.filter || p.filter(static_cast<CUstream_st *>(stream))) return &p;
  }
  return nullptr;
}

/* A new segment of `pool`, one free block over all of it (lock held). */
block *add_segment(private_pool &pool, const pool_key &key, void *base, size_t size, void *stream,
                   bool small) {
  segment *seg = new segment{key, static_cast<char *>(base), size, stream, small};
  block *b = new block{seg->base, size, seg};
  seg->first = b;
  pool.segments.emplace(seg->base, seg);
  pool.held_bytes += size;
  segments_held++;
  return b;
}

/* Cut `b` (not in the free set) at `offset`: `b` keeps the part before,
 * the part after is a new block, returned, in no set yet. */
block *split(block *b, size_t offset) {
  block *rest = new block{b->ptr + offset, b->size - offset, b->seg, b, b->next};
  if (b->next != nullptr) b->next->prev = rest;
  b->next = rest;
  b->size = offset;
  return rest;
}

/* `b` (not in the free set) is handed to PyTorch, which asked `asked`. */
void *make_live(private_pool &pool, block *b, size_t asked) {
  b->live = true;
  b->asked = asked;
  b->seg->live_blocks++;
  pool.live_bytes += b->size;
  pool.live_blocks++;
  live.emplace(b->ptr, b);
  return b->ptr;
}

/* Hand out `b` for `rounded` bytes (PyTorch asked `asked`), splitting off
 * the rest when it is worth keeping; `b` is not in the free set. */
void *hand_out(private_pool &pool, block *b, size_t rounded, size_t asked) {
  if (!pool.no_split && worth_splitting(b->size, rounded, b->seg->small))
    pool.free.insert(split(b, rounded));
  return make_live(pool, b, asked);
}

/* `b` (neither live nor in the free set) absorbs its free neighbours, then
 * joins the free set, unless it is kept for another stream's use. */
void merge_and_file(private_pool &pool, block *b) {
  if (b->shared) return;
  for (block *n : {b->prev, b->next}) {
    if (n == nullptr || n->live || n->shared) continue;
    pool.free.erase(n);
    if (n == b->prev) {
      b->ptr = n->ptr;
      b->prev = n->prev;
      if (n->prev != nullptr)
        n->prev->next = b;
      else
        b->seg->first = b;
    } else {
      b->next = n->next;
      if (n->next != nullptr) n->next->prev = b;
    }
    b->size += n->size;
    delete n;
  }
  pool.free.insert(b);
}

/* Take `b` back from PyTorch (lock held). */
void take_back(private_pool &pool, block *b) {
  live.erase(b->ptr);
  b->live = false;
  b->seg->live_blocks--;
  pool.live_bytes -= b->size;
  pool.live_blocks--;
}

/* A segment none of whose blocks is live goes back (lock held): its blocks
 * leave the free set. */
void drop_segment(private_pool &pool, segment *seg, std::vector<returning> &back) {
  for (block *b = seg->first; b != nullptr;) {
    block *next = b->next;
    pool.free.erase(b);
    delete b;
    b = next;
  }
  pool.segments.erase(seg->base);
  pool.held_bytes -= seg->size;
  segments_held--;
  back.push_back(returning{seg->base, seg->size, seg->pool.device});
  delete seg;
}

/* A pool that no begin uses any more and that holds nothing goes. */
void forget_if_done(std::map<pool_key, private_pool>::iterator it) {
  if (it->second.uses > 0 || !it->second.segments.empty()) return;
  if (it->second.use_on_oom) oom_pools.fetch_sub(1, std::memory_order_relaxed);
  pools.erase(it);
}

/* The best-fitting free block of `pool` for `rounded` bytes of this kind
 * on `stream`, or NULL (a probe block orders before every real one of its
 * size). */
block *best_fit(private_pool &pool, const pool_key &key, size_t rounded, bool small, void *stream) {
  segment probe_seg{key, nullptr, 0, stream, small};
  block probe{nullptr, rounded, &probe_seg};
  auto it = pool.free.lower_bound(&probe);
  if (it == pool.free.end() || (*it)->seg->small != small || (*it)->seg->stream != stream)
    return nullptr;
  return *it;
}

/* Called with the lock held on what is going back: while a pool is open
 * it waits in `deferred`; once none is, it goes with what waited there. */
void settle(std::vector<returning> &back) {
  if (!open.empty()) {
    deferred.insert(deferred.end(), back.begin(), back.end());
    back.clear();
  } else if (!deferred.empty()) {
    back.insert(back.end(), deferred.begin(), deferred.end());
    deferred.clear();
  }
}

/* Segments going back to the tag, outside the lock, after the device's
 * work: a replay of a graph of the pool may run on any stream, which the
 * pool never saw (the calling thread's current context is waited for:
 * PyTorch releases a pool with its device current). */
void give_back(const std::vector<returning> &segments) {
  if (segments.empty()) return;
  {
    relaxed_capture relaxed;
    ctx_sync_fn sync = driver().ctx_sync;
    if (sync != nullptr && sync(nullptr) != 0) {
      /* The device's work could not be waited for: keeping the memory is
       * safe, handing it to others is not. */
      kept_blocks.fetch_add(segments.size(), std::memory_order_relaxed);
      return;
    }
  }
  for (const returning &r : segments) mrctx_torch_route_free_block(0, r.ptr, r.size, r.device);
}

/* The segment of `pool` that holds [ptr, ptr + size), or NULL. */
segment *segment_of(private_pool &pool, const char *ptr, size_t size) {
  auto it = pool.segments.upper_bound(const_cast<char *>(ptr));
  if (it == pool.segments.begin()) return nullptr;
  segment *seg = std::prev(it)->second;
  if (ptr + size > seg->base + seg->size) return nullptr;
  return seg;
}

} // namespace

/* ---- Hooks --------------------------------------------------------------- */

void mrctx_torch_pools_begin(int device, mrctx_torch_pool_id id, mrctx_torch_stream_filter filter) {
  std::lock_guard<std::mutex> hold(lock);
  pool_key key{device, id};
  pools[key].uses++;
  open.push_back(open_pool{key, std::move(filter)});
  publish();
}

/* No allocation goes to the pool any more (called with the lock held). */
static void close_open(const pool_key &key) {
  open.erase(
      std::remove_if(open.begin(), open.end(), [&](const open_pool &p) { return p.key == key; }),
      open.end());
}

void mrctx_torch_pools_end(int device, mrctx_torch_pool_id id) {
  std::vector<returning> back;
  {
    std::lock_guard<std::mutex> hold(lock);
    close_open(pool_key{device, id});
    settle(back);
    publish();
  }
  give_back(back);
}

void mrctx_torch_pools_release(int device, mrctx_torch_pool_id id) {
  std::vector<returning> back;
  {
    std::lock_guard<std::mutex> hold(lock);
    pool_key key{device, id};
    close_open(key); /* a release without its end closes the pool too */
    auto it = pools.find(key);
    if (it != pools.end() && --it->second.uses <= 0) {
      it->second.uses = 0;
      /* Every segment with no block handed out goes, with the blocks kept
       * for another stream's use: no graph of the pool is left to write
       * into them, and the device is waited for. A segment with live
       * blocks (a graph's outputs the program holds) goes when the last
       * of them is freed. */
      for (auto s = it->second.segments.begin(); s != it->second.segments.end();) {
        segment *seg = (s++)->second;
        if (seg->live_blocks == 0) drop_segment(it->second, seg, back);
      }
      forget_if_done(it);
    }
    settle(back);
    publish();
  }
  give_back(back);
}

/* The same for C callers and tests: a C filter, ids as two integers. */
EXPORT void mrctx_torch_pools_begin_c(int device, unsigned long long first,
                                      unsigned long long second, mrctx_torch_c_filter filter,
                                      void *user) {
  mrctx_torch_stream_filter f;
  if (filter != nullptr)
    f = [filter, user](CUstream_st *stream) { return filter(stream, user) != 0; };
  mrctx_torch_pools_begin(device, {first, second}, std::move(f));
}

EXPORT void mrctx_torch_pools_end_c(int device, unsigned long long first,
                                    unsigned long long second) {
  mrctx_torch_pools_end(device, {first, second});
}

EXPORT void mrctx_torch_pools_release_c(int device, unsigned long long first,
                                        unsigned long long second) {
  mrctx_torch_pools_release(device, {first, second});
}

/* ---- Allocation and free ---------------------------------------------------- */

bool mrctx_torch_pools_route(void) { return open_count.load(std::memory_order_relaxed) != 0; }

/* A segment of `size` bytes from the tag for a pool's allocation on
 * `stream`. A captured stream cannot take it (the driver would make it the
 * graph's allocation node): the per-thread default stream does, and is
 * waited for. */
static void *segment_from_tag(const pool_key &key, size_t size, int device, void *stream,
                              mr_status *status) {
  ssize_t n = static_cast<ssize_t>(size);
  if (!capturing(stream)) return mrctx_torch_route_alloc(0, n, device, stream, status);
  relaxed_capture relaxed;
  void *ptr = mrctx_torch_route_alloc(0, n, device, PER_THREAD_STREAM, status);
  stream_sync_fn sync = driver().stream_sync;
  if (*status == MR_OK && sync != nullptr && sync(PER_THREAD_STREAM) != 0) {
    mrctx_torch_route_free_block(0, ptr, size, device);
    *status = mr_error(MR_ERR_DRIVER,
                       "a CUDA graph's private pool (%llu, %llu) on device %d: the "
                       "per-thread default stream could not be synchronized after "
                       "taking %zu bytes from the tag",
                       key.id.first, key.id.second, device, size);
    return nullptr;
  }
  return ptr;
}

void *mrctx_torch_pools_alloc(ssize_t size, int device, void *stream, mr_status *status,
                              bool *handled) {
  pool_key key;
  size_t asked = static_cast<size_t>(size);
  size_t rounded = block_size(asked);
  bool small = small_kind(rounded);
  bool no_split = false;
  {
    std::lock_guard<std::mutex> hold(lock);
    const open_pool *p = routed(device, stream);
    if (p == nullptr) {
      *handled = false;
      return nullptr;
    }
    key = p->key;
    *handled = true;
    private_pool &pool = pools[key];
    /* Best fit: the smallest free block of this kind and stream that holds
     * the request. */
    if (block *b = best_fit(pool, key, rounded, small, stream)) {
      pool.free.erase(b);
      *status = MR_OK;
      return hand_out(pool, b, rounded, asked);
    }
    no_split = pool.no_split;
  }
  /* A new segment from the tag, outside the lock; where the tag cannot give
   * a whole segment, a block of just the size asked (a pool that never
   * splits asks for just that). */
  size_t want = no_split ? rounded : segment_size(rounded);
  void *base = segment_from_tag(key, want, device, stream, status);
  if (base == nullptr && *status == MR_ERR_OUT_OF_MEMORY && want > rounded) {
    want = rounded;
    base = segment_from_tag(key, want, device, stream, status);
  }
  if (base == nullptr) return nullptr;
  std::lock_guard<std::mutex> hold(lock);
  /* The pool may have been released meanwhile (PyTorch does not do that):
   * the segment is then a pool's with no use, and goes with its last
   * block. */
  private_pool &pool = pools[key];
  block *b = add_segment(pool, key, base, want, stream, small);
  void *ptr = hand_out(pool, b, rounded, asked);
  publish();
  return ptr;
}

bool mrctx_torch_pools_free(void *ptr, ssize_t size, int device, void *stream) {
  if (segment_count.load(std::memory_order_relaxed) == 0 &&
      open_count.load(std::memory_order_relaxed) == 0)
    return false;
  std::vector<returning> back;
  {
    std::lock_guard<std::mutex> hold(lock);
    auto o = live.find(ptr);
    if (o == live.end()) {
      /* Freed on a stream a pool captures: the graph reads it on every
       * replay, so the pool keeps it, as a segment of its own. */
      const open_pool *p = open.empty() ? nullptr : routed(device, stream);
      if (p == nullptr || !capturing(stream)) return false;
      private_pool &pool = pools[p->key];
      size_t n = static_cast<size_t>(size);
      block *b = add_segment(pool, p->key, ptr, n, stream, small_kind(n));
      pool.free.insert(b);
      publish();
      return true;
    }
    block *b = o->second;
    segment *seg = b->seg;
    auto it = pools.find(seg->pool);
    private_pool &pool = it->second;
    take_back(pool, b);
    merge_and_file(pool, b);
    if (pool.uses <= 0 && seg->live_blocks == 0) {
      drop_segment(pool, seg, back);
      forget_if_done(it);
      settle(back);
    }
    publish();
  }
  give_back(back);
  return true;
}

bool mrctx_torch_pools_record_stream(void *ptr) {
  if (segment_count.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> hold(lock);
  auto o = live.find(ptr);
  if (o == live.end()) return false;
  o->second->shared = true;
  return true;
}

/* ---- What the pools hold (tests, checkPoolLiveAllocations, statistics) ---- */

namespace {
/* Calls f(block) for every live block of the pool `key` (lock held). */
template <typename F> void each_live(const private_pool &pool, F f) {
  for (const auto &s : pool.segments)
    for (const block *b = s.second->first; b != nullptr; b = b->next)
      if (b->live) f(b);
}
} // namespace

EXPORT long mrctx_torch_pool_live(int device, unsigned long long first, unsigned long long second,
                                  void **out, size_t cap) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  if (it == pools.end()) return -1;
  size_t n = 0;
  each_live(it->second, [&](const block *b) {
    if (n < cap && out != nullptr) out[n] = b->ptr;
    n++;
  });
  return static_cast<long>(n);
}

EXPORT long mrctx_torch_pool_segments(int device, unsigned long long first,
                                      unsigned long long second, void **base, size_t *size,
                                      size_t cap) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  if (it == pools.end()) return -1;
  size_t n = 0;
  for (const auto &s : it->second.segments) {
    if (n < cap) {
      base[n] = s.second->base;
      size[n] = s.second->size;
    }
    n++;
  }
  return static_cast<long>(n);
}

/* ---- MemPool and Inductor's CUDA-graph trees -------------------------------
 *
 * torch.cuda.MemPool() makes its pool before any allocation goes to it
 * (createOrIncrefPool, released by its destructor), and reads its use
 * count. Inductor's graph trees save which blocks of a pool are live after
 * each recording and later make the pool's state that again
 * (getCheckpointState / setCheckpointPoolState): blocks live then are live
 * again, at the same addresses, blocks live now and not then are freed
 * into the pool. Segments never leave a pool while it is in use, so a
 * saved state's blocks are all still inside the pool's segments. */

EXPORT void mrctx_torch_pools_incref(int device, unsigned long long first,
                                     unsigned long long second) {
  std::lock_guard<std::mutex> hold(lock);
  pools[pool_key{device, {first, second}}].uses++;
  publish();
}

EXPORT long mrctx_torch_pools_use_count(int device, unsigned long long first,
                                        unsigned long long second) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  return it == pools.end() ? 0 : it->second.uses;
}

/* MemPool(use_on_oom=True) and its destructor (setUseOnOOM): a pool that
 * does not exist is not made for it (the destructor calls it for every
 * MemPool, before releasePool). */
EXPORT void mrctx_torch_pools_set_use_on_oom(int device, unsigned long long first,
                                             unsigned long long second, int use_on_oom) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  if (it == pools.end() || it->second.use_on_oom == (use_on_oom != 0)) return;
  it->second.use_on_oom = use_on_oom != 0;
  oom_pools.fetch_add(use_on_oom != 0 ? 1 : -1, std::memory_order_relaxed);
}

/* MemPool(no_split=True) (setNoSplit): from now on the pool's blocks are
 * whole segments of the size asked (rounded to 512 bytes), so a block's
 * memory is one allocation from the tag, which a library registers as it
 * is (NCCL's window registration). Segments cut before stay cut. */
EXPORT void mrctx_torch_pools_set_no_split(int device, unsigned long long first,
                                           unsigned long long second) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  if (it != pools.end()) it->second.no_split = true;
}

/* An allocation outside the pools that the tag refused for lack of memory
 * (after mrctx's process-wide reclaim): the best-fitting free block of a
 * use_on_oom pool on `device` and `stream`, which stays that pool's (its
 * free goes back to the pool), or NULL. As PyTorch's own allocator does,
 * only blocks the pools hold free are used: the tag has none to give. */
EXPORT void *mrctx_torch_pools_alloc_on_oom(ssize_t size, int device, void *stream) {
  if (oom_pools.load(std::memory_order_relaxed) == 0 || size < 0) return nullptr;
  size_t asked = static_cast<size_t>(size);
  size_t rounded = block_size(asked);
  bool small = small_kind(rounded);
  std::lock_guard<std::mutex> hold(lock);
  private_pool *best_pool = nullptr;
  block *best = nullptr;
  for (auto &p : pools) {
    if (p.first.device != device || !p.second.use_on_oom) continue;
    block *b = best_fit(p.second, p.first, rounded, small, stream);
    if (b != nullptr && (best == nullptr || b->size < best->size)) {
      best = b;
      best_pool = &p.second;
    }
  }
  if (best == nullptr) return nullptr;
  best_pool->free.erase(best);
  void *ptr = hand_out(*best_pool, best, rounded, asked);
  publish();
  return ptr;
}

/* The live blocks of a pool: their count (-1: no such pool), up to `cap`
 * of them in `out`, each with the size PyTorch asked for. */
EXPORT long mrctx_torch_pool_state(int device, unsigned long long first, unsigned long long second,
                                   mrctx_torch_pool_block *out, size_t cap) {
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(pool_key{device, {first, second}});
  if (it == pools.end()) return -1;
  size_t n = 0;
  each_live(it->second, [&](const block *b) {
    if (n < cap && out != nullptr)
      out[n] = mrctx_torch_pool_block{b->ptr, b->asked, b->seg->stream};
    n++;
  });
  return static_cast<long>(n);
}

EXPORT int mrctx_torch_pool_restore(int device, unsigned long long first, unsigned long long second,
                                    const mrctx_torch_pool_block *wanted, size_t n, void **freed,
                                    size_t cap, size_t *freed_count) {
  std::lock_guard<std::mutex> hold(lock);
  *freed_count = 0;
  auto it = pools.find(pool_key{device, {first, second}});
  if (it == pools.end()) return -1;
  private_pool &pool = it->second;
  /* Check before changing anything: each saved block lies in one of the
   * pool's segments, overlaps no other saved block and no block kept for
   * another stream. */
  std::vector<std::pair<char *, size_t>> ranges;
  for (size_t i = 0; i < n; i++) {
    char *ptr = static_cast<char *>(wanted[i].ptr);
    size_t size = block_size(wanted[i].size);
    segment *seg = segment_of(pool, ptr, size);
    if (seg == nullptr || (pool.no_split && ptr != seg->base)) return -1;
    /* A block kept for another stream's use is never cut: a saved block
     * over it must be that block. */
    for (const block *b = seg->first; b != nullptr; b = b->next)
      if (b->shared && b->ptr < ptr + size && ptr < b->ptr + b->size &&
          !(b->ptr == ptr && size <= b->size))
        return -1;
    ranges.emplace_back(ptr, size);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); i++)
    if (ranges[i - 1].first + ranges[i - 1].second > ranges[i].first) return -1;
  /* As PyTorch's own allocator does it: every block live now is freed
   * (PyTorch invalidates the storages that held them) and merges with its
   * free neighbours; then each saved block is cut again out of the free
   * block that now covers it. */
  std::vector<block *> now;
  each_live(pool, [&](const block *b) { now.push_back(const_cast<block *>(b)); });
  for (block *b : now) {
    if (*freed_count < cap) freed[*freed_count] = b->ptr;
    (*freed_count)++;
    take_back(pool, b);
    merge_and_file(pool, b); /* one kept for another stream stays kept */
  }
  for (size_t i = 0; i < n; i++) {
    char *ptr = static_cast<char *>(wanted[i].ptr);
    size_t size = block_size(wanted[i].size);
    segment *seg = segment_of(pool, ptr, size);
    block *b = seg->first;
    while (b != nullptr && !(b->ptr <= ptr && ptr + size <= b->ptr + b->size)) b = b->next;
    /* Every range not over a kept block lies in one free block: the frees
     * above merged every free neighbour. A kept block is made live whole. */
    if (pool.no_split) {
      if (!b->shared) pool.free.erase(b); /* a whole segment, as it was */
    } else if (!b->shared) {
      pool.free.erase(b);
      if (b->ptr < ptr) { /* the part before stays free */
        block *rest = split(b, static_cast<size_t>(ptr - b->ptr));
        pool.free.insert(b);
        b = rest;
      }
      if (b->size > size) pool.free.insert(split(b, size)); /* and the part after */
    }
    make_live(pool, b, wanted[i].size);
  }
  publish();
  return 0;
}

EXPORT void mrctx_torch_pools_read(int device, mrctx_torch_pools_info *info) {
  std::lock_guard<std::mutex> hold(lock);
  *info = mrctx_torch_pools_info{};
  for (const auto &p : pools) {
    if (device >= 0 && p.first.device != device) continue;
    info->pools++;
    info->uses += static_cast<unsigned long long>(p.second.uses);
    info->held_bytes += p.second.held_bytes;
    info->live_bytes += p.second.live_bytes;
    info->live_blocks += p.second.live_blocks;
    info->segments += p.second.segments.size();
    info->free_blocks += p.second.free.size();
  }
  info->open = open.size();
  info->kept_blocks = kept_blocks.load(std::memory_order_relaxed);
  for (const returning &r : deferred)
    if (device < 0 || r.device == device) info->waiting_blocks++;
}
