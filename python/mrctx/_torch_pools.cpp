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
 * of the pool lives. Here a pool is a list of blocks taken from the tag:
 *  - an allocation in the pool takes the best-fitting free block of the
 *    pool freed on the same stream (best fit within a quarter more than
 *    asked, so a block never wastes much), or a new block from the tag;
 *  - a block of the pool that PyTorch frees goes back to the pool's free
 *    list, never to the tag, while the pool is in use; a block used on
 *    another stream (Tensor.record_stream) is kept but not reused;
 *  - a block allocated before the capture and freed on the capturing stream
 *    during it joins the pool (the graph's kernels read it on every
 *    replay), which PyTorch's own allocator does not do;
 *  - when the last use is released, the pool's free blocks go back to the
 *    tag, after the device's work has finished (replays run on streams the
 *    pool never sees); blocks still live (a graph's outputs the program
 *    holds) go back to the tag when PyTorch frees them, the same way.
 * A capture's new block is allocated from the tag on the calling thread's
 * per-thread default stream, which is never captured, and that stream is
 * synchronized before the block is handed out (a replay may run on any
 * stream), in the relaxed capture mode, as PyTorch's own allocator calls
 * cudaMalloc during a capture. So the tag's chain sees ordinary requests,
 * its statistics count the pool's blocks (live or free) as the tag's, and
 * the blocks are never graph allocation nodes.
 *
 * Threads: one mutex over every pool; filters (PyTorch's functions) run
 * under it. The tag is never called under it (an allocation that runs out
 * reclaims process-wide and may call other frameworks' reclaimers). The
 * allocation path checks one relaxed atomic while no pool is open, the free
 * path one while the pools own no block.
 */
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <tuple>
#include <mutex>
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

/* ---- The pools -------------------------------------------------------------- */

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

struct private_pool {
  long uses = 0;         /* begins not yet released */
  size_t held_bytes = 0; /* every block it holds, live or free */
  size_t live_bytes = 0; /* handed out now */
  size_t live_blocks = 0;
  /* Free blocks, by the stream they may be reused on and their size. */
  std::multimap<std::pair<void *, size_t>, void *> free;
};

struct owned_block {
  pool_key pool;
  size_t size;  /* what the tag gave (the free to the tag passes it) */
  void *stream; /* reused only on this stream */
  bool live;
  bool shared; /* used on another stream: kept until the pool goes, not reused */
};

struct open_pool {
  pool_key key;
  mrctx_torch_stream_filter filter; /* empty: every stream */
};

std::mutex lock;
std::map<pool_key, private_pool> pools;
std::vector<open_pool> open;
std::unordered_map<void *, owned_block> owned;
std::atomic<int> open_count{0};
std::atomic<long> owned_count{0};
std::atomic<unsigned long long> kept_blocks{0};

/* A block on its way back to the tag. */
struct returning {
  void *ptr;
  size_t size;
  int device;
};
/* Blocks that went back while some pool was open: waiting for the device
 * then could break that capture (a capture forbids waiting for the whole
 * device), so they wait here, still the tag's, until no pool is open. */
std::vector<returning> deferred;

/* Called with the lock held after a change. */
void publish() {
  open_count.store(static_cast<int>(open.size()), std::memory_order_relaxed);
  owned_count.store(static_cast<long>(owned.size()), std::memory_order_relaxed);
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

/* A pool that no begin uses any more and that holds nothing goes; its free
 * blocks were collected by the caller. */
void forget_if_done(std::map<pool_key, private_pool>::iterator it) {
  if (it->second.uses <= 0 && it->second.live_blocks == 0 && it->second.free.empty())
    pools.erase(it);
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

/* Blocks going back to the tag, outside the lock, after the device's work:
 * a replay of a graph of the pool may run on any stream, which the pool
 * never saw (the calling thread's current context is waited for: PyTorch
 * releases a pool with its device current). */
void give_back(const std::vector<returning> &blocks) {
  if (blocks.empty()) return;
  {
    relaxed_capture relaxed;
    ctx_sync_fn sync = driver().ctx_sync;
    if (sync != nullptr && sync(nullptr) != 0) {
      /* The device's work could not be waited for: keeping the memory is
       * safe, handing it to others is not. */
      kept_blocks.fetch_add(blocks.size(), std::memory_order_relaxed);
      return;
    }
  }
  for (const returning &b : blocks) mrctx_torch_route_free_block(0, b.ptr, b.size, b.device);
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
      /* Every block not handed out goes: those in the free list and those
       * kept for another stream's use. No graph of the pool is left to
       * write into them, and the device is waited for. */
      it->second.free.clear();
      for (auto o = owned.begin(); o != owned.end();) {
        if (o->second.pool == key && !o->second.live) {
          back.push_back(returning{o->first, o->second.size, device});
          it->second.held_bytes -= o->second.size;
          o = owned.erase(o);
        } else {
          ++o;
        }
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

void *mrctx_torch_pools_alloc(ssize_t size, int device, void *stream, mr_status *status,
                              bool *handled) {
  pool_key key;
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
    size_t want = static_cast<size_t>(size);
    size_t most = want + want / 4;
    auto it = pool.free.lower_bound({stream, want});
    if (it != pool.free.end() && it->first.first == stream && it->first.second <= most) {
      void *ptr = it->second;
      pool.free.erase(it);
      owned_block &b = owned[ptr];
      b.live = true;
      pool.live_bytes += b.size;
      pool.live_blocks++;
      *status = MR_OK;
      return ptr;
    }
  }
  /* A new block from the tag, outside the lock. A captured stream cannot
   * take it (the driver would make it the graph's allocation node): the
   * per-thread default stream does, and is waited for. */
  void *ptr = nullptr;
  if (capturing(stream)) {
    relaxed_capture relaxed;
    ptr = mrctx_torch_route_alloc(0, size, device, PER_THREAD_STREAM, status);
    stream_sync_fn sync = driver().stream_sync;
    if (*status == MR_OK && sync != nullptr && sync(PER_THREAD_STREAM) != 0) {
      mrctx_torch_route_free_block(0, ptr, static_cast<size_t>(size), device);
      *status = mr_error(MR_ERR_DRIVER,
                         "a CUDA graph's private pool (%llu, %llu) on device %d: the "
                         "per-thread default stream could not be synchronized after "
                         "taking %zd bytes from the tag",
                         key.id.first, key.id.second, device, size);
      return nullptr;
    }
  } else {
    ptr = mrctx_torch_route_alloc(0, size, device, stream, status);
  }
  if (*status != MR_OK) return nullptr;
  std::lock_guard<std::mutex> hold(lock);
  auto it = pools.find(key);
  if (it == pools.end()) return ptr; /* the pool went meanwhile: an ordinary block */
  owned[ptr] = owned_block{key, static_cast<size_t>(size), stream, true, false};
  it->second.held_bytes += static_cast<size_t>(size);
  it->second.live_bytes += static_cast<size_t>(size);
  it->second.live_blocks++;
  publish();
  return ptr;
}

bool mrctx_torch_pools_free(void *ptr, ssize_t size, int device, void *stream) {
  if (owned_count.load(std::memory_order_relaxed) == 0 &&
      open_count.load(std::memory_order_relaxed) == 0)
    return false;
  std::vector<returning> back;
  {
    std::lock_guard<std::mutex> hold(lock);
    auto o = owned.find(ptr);
    if (o == owned.end()) {
      /* Freed on a stream a pool captures: the graph reads it on every
       * replay, so the pool keeps it. */
      const open_pool *p = open.empty() ? nullptr : routed(device, stream);
      if (p == nullptr || !capturing(stream)) return false;
      private_pool &pool = pools[p->key];
      owned[ptr] = owned_block{p->key, static_cast<size_t>(size), stream, false, false};
      pool.held_bytes += static_cast<size_t>(size);
      pool.free.emplace(std::make_pair(stream, static_cast<size_t>(size)), ptr);
      publish();
      return true;
    }
    owned_block &b = o->second;
    auto it = pools.find(b.pool);
    if (!b.live || it == pools.end()) return true; /* freed twice: PyTorch never does */
    b.live = false;
    it->second.live_bytes -= b.size;
    it->second.live_blocks--;
    if (it->second.uses > 0) {
      if (!b.shared) it->second.free.emplace(std::make_pair(b.stream, b.size), ptr);
    } else {
      back.push_back(returning{ptr, b.size, device});
      it->second.held_bytes -= b.size;
      owned.erase(o);
      forget_if_done(it);
      settle(back);
    }
    publish();
  }
  give_back(back);
  return true;
}

bool mrctx_torch_pools_record_stream(void *ptr) {
  if (owned_count.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> hold(lock);
  auto o = owned.find(ptr);
  if (o == owned.end()) return false;
  o->second.shared = true;
  return true;
}

/* ---- What the pools hold (tests, checkPoolLiveAllocations, statistics) ---- */

EXPORT long mrctx_torch_pool_live(int device, unsigned long long first, unsigned long long second,
                                  void **out, size_t cap) {
  std::lock_guard<std::mutex> hold(lock);
  pool_key key{device, {first, second}};
  if (pools.find(key) == pools.end()) return -1;
  size_t n = 0;
  for (const auto &o : owned) {
    if (!(o.second.pool == key) || !o.second.live) continue;
    if (n < cap && out != nullptr) out[n] = o.first;
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
 * again, blocks live now and not then are freed into the pool. Blocks never
 * leave a pool while it is in use, so a saved state's blocks are all still
 * the pool's. */

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

/* The live blocks of a pool: their count (-1: no such pool), up to `cap`
 * of them in `out`. */
EXPORT long mrctx_torch_pool_state(int device, unsigned long long first, unsigned long long second,
                                   mrctx_torch_pool_block *out, size_t cap) {
  std::lock_guard<std::mutex> hold(lock);
  pool_key key{device, {first, second}};
  if (pools.find(key) == pools.end()) return -1;
  size_t n = 0;
  for (const auto &o : owned) {
    if (!(o.second.pool == key) || !o.second.live) continue;
    if (n < cap && out != nullptr)
      out[n] = mrctx_torch_pool_block{o.first, o.second.size, o.second.stream};
    n++;
  }
  return static_cast<long>(n);
}

/* Make exactly `live` (n blocks) the pool's live blocks: every block live
 * now is freed into the pool and written to `freed` (their count in
 * *freed_count, at most `cap`), then those in `live` are live again. 0; -1 when the pool does not exist or a block of `live` is not
 * one of its blocks (nothing changed then). */
EXPORT int mrctx_torch_pool_restore(int device, unsigned long long first, unsigned long long second,
                                    void *const *live, size_t n, void **freed, size_t cap,
                                    size_t *freed_count) {
  std::lock_guard<std::mutex> hold(lock);
  pool_key key{device, {first, second}};
  *freed_count = 0;
  auto it = pools.find(key);
  if (it == pools.end()) return -1;
  std::unordered_map<void *, bool> wanted;
  for (size_t i = 0; i < n; i++) {
    auto o = owned.find(live[i]);
    if (o == owned.end() || !(o->second.pool == key)) return -1;
    wanted[live[i]] = true;
  }
  private_pool &pool = it->second;
  auto take_from_free = [&](void *ptr, const owned_block &b) {
    auto range = pool.free.equal_range({b.stream, b.size});
    for (auto f = range.first; f != range.second; ++f) {
      if (f->second == ptr) {
        pool.free.erase(f);
        return;
      }
    }
  };
  /* As PyTorch's own allocator does it: every block live now is freed
   * (PyTorch invalidates the storages that held them), then the saved ones
   * are live again; a block may be in both. */
  for (auto &o : owned) {
    if (!(o.second.pool == key) || !o.second.live) continue;
    owned_block &b = o.second;
    b.live = false;
    pool.live_bytes -= b.size;
    pool.live_blocks--;
    if (!b.shared) pool.free.emplace(std::make_pair(b.stream, b.size), o.first);
    if (*freed_count < cap) freed[*freed_count] = o.first;
    (*freed_count)++;
  }
  for (auto &w : wanted) {
    owned_block &b = owned[w.first];
    if (!b.shared) take_from_free(w.first, b);
    b.live = true;
    pool.live_bytes += b.size;
    pool.live_blocks++;
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
  }
  info->open = open.size();
  info->kept_blocks = kept_blocks.load(std::memory_order_relaxed);
  for (const returning &r : deferred)
    if (device < 0 || r.device == device) info->waiting_blocks++;
}
