//===- Context.cpp - A CUDA device, its context and stream ----------------===//

#include "teq/Runtime/Context.h"

#include "Driver.h"
#include "Internal.h"

namespace mlir::teq::runtime {

using detail::checkCU;
using detail::Driver;
using detail::getDriver;

std::string DeviceInfo::smName() const {
  return "sm_" + std::to_string(computeCapability);
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<Context>> Context::create(int ordinal) {
  auto driverOr = getDriver();
  if (!driverOr.ok())
    return driverOr.status();
  const Driver &cu = **driverOr;

  TEQ_RETURN_IF_ERROR(checkCU(cu.cuInit(0), "cuInit failed"));
  int count = 0;
  TEQ_RETURN_IF_ERROR(
      checkCU(cu.cuDeviceGetCount(&count), "cannot count CUDA devices"));
  if (count == 0)
    return Status::error("no CUDA device is present");
  if (ordinal < 0 || ordinal >= count)
    return Status::error("CUDA device " + std::to_string(ordinal) +
                         " requested, but " + std::to_string(count) +
                         (count == 1 ? " device is" : " devices are") +
                         " present");

  std::shared_ptr<Context> context(new Context());
  CUdevice device = 0;
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuDeviceGet(&device, ordinal),
                              "cannot get CUDA device " +
                                  std::to_string(ordinal)));
  context->cuDevice_ = device;
  DeviceInfo &info = context->device_;
  info.ordinal = ordinal;
  char name[256] = {0};
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuDeviceGetName(name, sizeof(name) - 1, device),
                              "cannot get the device name"));
  info.name = name;
  auto attribute = [&](CUdevice_attribute attr, const char *what,
                       int &value) -> Status {
    return checkCU(cu.cuDeviceGetAttribute(&value, attr, device),
                   std::string("cannot query the device's ") + what);
  };
  int major = 0, minor = 0, sms = 0, l2 = 0;
  TEQ_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                "compute capability", major));
  TEQ_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                "compute capability", minor));
  TEQ_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                "multiprocessor count", sms));
  TEQ_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size", l2));
  info.computeCapability = major * 10 + minor;
  info.multiprocessors = sms;
  info.l2CacheBytes = l2;
  size_t totalMemory = 0;
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuDeviceTotalMem(&totalMemory, device),
                              "cannot query the device memory size"));
  info.totalMemoryBytes = static_cast<int64_t>(totalMemory);
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuDriverGetVersion(&info.driverVersion),
                              "cannot query the driver version"));

  CUcontext primary = nullptr;
  TEQ_RETURN_IF_ERROR(
      checkCU(cu.cuDevicePrimaryCtxRetain(&primary, device),
              "cannot retain the primary context of CUDA device " +
                  std::to_string(ordinal)));
  context->context_ = primary;
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuCtxSetCurrent(primary),
                              "cannot make the CUDA context current"));
  CUstream stream = nullptr;
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                              "cannot create a CUDA stream"));
  context->stream_ = stream;
  return context;
}

Context::~Context() {
  auto driverOr = getDriver();
  if (!driverOr.ok())
    return;
  detail::CurrentContextRestorer restorer;
  const Driver &cu = **driverOr;
  if (context_)
    (void)cu.cuCtxSetCurrent(static_cast<CUcontext>(context_));
  if (stream_)
    (void)cu.cuStreamSynchronize(static_cast<CUstream>(stream_));
  // GEMM work on the stream has finished: the workspace can go.
  detail::destroyGemmResources(gemm_);
  gemm_ = nullptr;
  if (stream_)
    (void)cu.cuStreamDestroy(static_cast<CUstream>(stream_));
  if (context_)
    (void)cu.cuDevicePrimaryCtxRelease(static_cast<CUdevice>(cuDevice_));
}

Status Context::makeCurrent() const {
  auto driverOr = getDriver();
  if (!driverOr.ok())
    return driverOr.status();
  return checkCU((*driverOr)->cuCtxSetCurrent(static_cast<CUcontext>(context_)),
                 "cannot make the CUDA context current");
}

Status Context::synchronize() const {
  TEQ_RETURN_IF_ERROR(makeCurrent());
  auto driverOr = getDriver();
  return checkCU(
      (*driverOr)->cuStreamSynchronize(static_cast<CUstream>(stream_)),
      "stream synchronization failed");
}

//===----------------------------------------------------------------------===//
// Event
//===----------------------------------------------------------------------===//

StatusOr<Event> Event::create(std::shared_ptr<Context> context) {
  if (!context)
    return Status::error("Event::create: null context");
  TEQ_RETURN_IF_ERROR(context->makeCurrent());
  const Driver &cu = **getDriver();
  Event event;
  event.context_ = std::move(context);
  CUevent handle = nullptr;
  TEQ_RETURN_IF_ERROR(checkCU(cu.cuEventCreate(&handle, CU_EVENT_DEFAULT),
                              "cannot create a CUDA event"));
  event.event_ = handle;
  return event;
}

Event::Event(Event &&other) noexcept
    : context_(std::move(other.context_)), event_(other.event_) {
  other.event_ = nullptr;
}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    reset();
    context_ = std::move(other.context_);
    event_ = other.event_;
    other.event_ = nullptr;
  }
  return *this;
}

Event::~Event() { reset(); }

void Event::reset() {
  detail::CurrentContextRestorer restorer;
  if (event_ && context_ && context_->makeCurrent().ok())
    (void)(*getDriver())->cuEventDestroy(static_cast<CUevent>(event_));
  event_ = nullptr;
}

Status Event::record() {
  if (!event_)
    return Status::error("record on an empty event");
  TEQ_RETURN_IF_ERROR(context_->makeCurrent());
  return checkCU((*getDriver())->cuEventRecord(
                     static_cast<CUevent>(event_),
                     static_cast<CUstream>(context_->stream())),
                 "cannot record a CUDA event");
}

Status Event::synchronize() {
  if (!event_)
    return Status::error("synchronize on an empty event");
  TEQ_RETURN_IF_ERROR(context_->makeCurrent());
  return checkCU(
      (*getDriver())->cuEventSynchronize(static_cast<CUevent>(event_)),
      "event synchronization failed");
}

StatusOr<float> Event::elapsedMs(const Event &start, const Event &stop) {
  if (!start.event_ || !stop.event_)
    return Status::error("elapsed time of an empty event");
  TEQ_RETURN_IF_ERROR(start.context_->makeCurrent());
  float ms = 0.0f;
  TEQ_RETURN_IF_ERROR(checkCU(
      (*getDriver())->cuEventElapsedTime(&ms, static_cast<CUevent>(start.event_),
                                         static_cast<CUevent>(stop.event_)),
      "cannot read the elapsed time between CUDA events"));
  return ms;
}

} // namespace mlir::teq::runtime
