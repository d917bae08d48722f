/*
 * The stand-in's libc10_cuda.so: the allocator interface's out-of-line
 * members, so that its vtable lives here, as PyTorch's does.
 */
#include <c10/cuda/CUDACachingAllocator.h>

namespace c10::cuda {
namespace {
thread_local DeviceIndex device = 0; /* the stand-in's Python sets it per call */
} // namespace

DeviceIndex current_device() { return device; }
} // namespace c10::cuda

/* The stand-in's torch/cuda/memory.py: the device (and, in libtorch_cuda,
 * the stream) the next allocate() is on, as torch.cuda.device(...) and
 * torch.cuda.stream(...) make them current in PyTorch. */
extern "C" __attribute__((visibility("default"))) void fake_c10_cuda_set_device(int device) {
  c10::cuda::device = static_cast<c10::DeviceIndex>(device);
}

namespace c10::cuda::CUDACachingAllocator {

CUDAAllocator::~CUDAAllocator() = default;

bool CUDAAllocator::isHistoryEnabled() {
  TORCH_CHECK(false, name(),
              " does not yet support recordHistory. If you need it, please file an issue "
              "describing your use case.");
  return false;
}

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
