/*
 * The stand-in's libc10_cuda.so: the allocator interface's out-of-line
 * members, so that its vtable lives here, as PyTorch's does.
 */
#include <c10/cuda/CUDACachingAllocator.h>

namespace c10::cuda::CUDACachingAllocator {

CUDAAllocator::~CUDAAllocator() = default;

int CUDAAllocator::getPoolUseCount(c10::DeviceIndex, MempoolId_t) {
  TORCH_CHECK(false, name(),
              " does not yet support getPoolUseCount. If you need it, please file "
              "an issue describing your use case.");
  return 0;
}

void CUDAAllocator::createOrIncrefPool(c10::DeviceIndex, MempoolId_t,
                                       std::shared_ptr<CUDAAllocator>) {
  TORCH_CHECK(false, name(),
              " does not yet support createOrIncrefPool. If you need it, please "
              "file an issue describing your use case.");
}

void CUDAAllocator::setUseOnOOM(c10::DeviceIndex, MempoolId_t, bool) {
  TORCH_CHECK(false, name(),
              " does not yet support setUseOnOOM. If you need it, please file an issue "
              "describing your use case.");
}

void CUDAAllocator::setNoSplit(c10::DeviceIndex, MempoolId_t) {
  TORCH_CHECK(false, name(),
              " does not yet support setNoSplit. If you need it, please file an issue "
              "describing your use case.");
}

bool CUDAAllocator::checkPoolLiveAllocations(c10::DeviceIndex, MempoolId_t,
                                             const std::unordered_set<void *> &) {
  TORCH_CHECK(false, name(),
              " does not yet support checkPoolLiveAllocations. If you need it, "
              "please file an issue describing your use case.");
  return false;
}

} // namespace c10::cuda::CUDACachingAllocator
