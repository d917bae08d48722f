// The public headers compile as C++ and link with C linkage.
#include <mrctx/mrctx.h>

int main() {
  mr_resource *host = nullptr;
  if (mr_host_resource_create(&host) != MR_OK) return 1;
  void *p = nullptr;
  mr_status st = mr_allocate(host, 64, 0, nullptr, &p);
  if (mr_deallocate(host, p, 64, 0, nullptr) != MR_OK) return 1;
  mr_resource_release(host);
  mr_stats stats;
  mr_stats_init(&stats);
  return st == MR_OK && stats.size == sizeof stats ? 0 : 1;
}
