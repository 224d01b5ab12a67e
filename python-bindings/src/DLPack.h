//===- DLPack.h - DLPack capsules for teq._teq_runtime ----------*- C++ -*-===//
//
// What RuntimeModule.cpp needs of DLPack: the specification's C structs
// (written out here: version 0.x "dltensor" capsules and 1.x
// "dltensor_versioned" ones), which DLPack dtypes hold which buffer
// encodings, and a consumed capsule that calls its producer's deleter
// exactly once. Internal to the Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_PYTHON_BINDINGS_SRC_DLPACK_H
#define TEQ_PYTHON_BINDINGS_SRC_DLPACK_H

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace teq_python {

namespace py = pybind11;

namespace dlpack {

enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
};

enum DataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e8m0fnu = 14,
  kDLFloat4_e2m1fn = 17,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void *data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(ManagedTensor *self);
};

struct PackVersion {
  uint32_t major;
  uint32_t minor;
};

struct ManagedTensorVersioned {
  PackVersion version;
  void *manager_ctx;
  void (*deleter)(ManagedTensorVersioned *self);
  uint64_t flags;
  Tensor dl_tensor;
};

constexpr uint64_t kFlagReadOnly = 1ull << 0;

inline const char *deviceTypeName(int32_t type) {
  switch (type) {
  case kDLCPU:
    return "cpu";
  case kDLCUDA:
    return "cuda";
  case kDLCUDAHost:
    return "cuda_host (pinned host memory)";
  case kDLCUDAManaged:
    return "cuda_managed";
  default:
    return nullptr;
  }
}

inline std::string dtypeName(DataType dtype) {
  std::string base;
  switch (dtype.code) {
  case kDLInt:
    base = "int";
    break;
  case kDLUInt:
    base = "uint";
    break;
  case kDLFloat:
    base = "float";
    break;
  case kDLBfloat:
    base = "bfloat";
    break;
  case kDLBool:
    return "bool";
  case kDLComplex:
    base = "complex";
    break;
  case kDLFloat8_e4m3fn:
    return "float8_e4m3fn";
  case kDLFloat8_e5m2:
    return "float8_e5m2";
  case kDLFloat8_e8m0fnu:
    return "float8_e8m0fnu";
  case kDLFloat4_e2m1fn:
    return "float4_e2m1fn";
  default:
    base = "dlpack type code " + std::to_string(dtype.code) + " of ";
    break;
  }
  std::string name = base + std::to_string(dtype.bits);
  if (dtype.lanes != 1)
    name += "x" + std::to_string(dtype.lanes);
  return name;
}

} // namespace dlpack

/// Whether `dtype` holds elements of `encoding`: the exact DLPack type, or
/// (for the 8- and 16-bit encodings frameworks lack) unsigned integers of
/// the same width as raw bits, as TE keeps FP8/FP4 data and E8M0 scales in
/// torch.uint8 tensors.
inline bool dtypeMatches(const std::string &encoding, dlpack::DataType dtype) {
  using namespace dlpack;
  if (dtype.lanes != 1)
    return false;
  auto is = [&](uint8_t code, uint8_t bits) {
    return dtype.code == code && dtype.bits == bits;
  };
  if (encoding == "f32")
    return is(kDLFloat, 32);
  if (encoding == "f16")
    return is(kDLFloat, 16);
  if (encoding == "bf16")
    return is(kDLBfloat, 16) || is(kDLUInt, 16);
  if (encoding == "i64")
    return is(kDLInt, 64);
  if (encoding == "e4m3")
    return is(kDLUInt, 8) || is(kDLFloat8_e4m3fn, 8);
  if (encoding == "e5m2")
    return is(kDLUInt, 8) || is(kDLFloat8_e5m2, 8);
  if (encoding == "e8m0")
    return is(kDLUInt, 8) || is(kDLFloat8_e8m0fnu, 8);
  if (encoding == "e2m1x2")
    return is(kDLUInt, 8);
  return false;
}

inline const char *expectedDtype(const std::string &encoding) {
  if (encoding == "f32")
    return "float32";
  if (encoding == "f16")
    return "float16";
  if (encoding == "bf16")
    return "bfloat16";
  if (encoding == "i64")
    return "int64";
  if (encoding == "e4m3")
    return "uint8 (raw e4m3 bytes) or float8_e4m3fn";
  if (encoding == "e5m2")
    return "uint8 (raw e5m2 bytes) or float8_e5m2";
  if (encoding == "e8m0")
    return "uint8 (raw e8m0 bytes) or float8_e8m0fnu";
  if (encoding == "e2m1x2")
    return "uint8 (two e2m1 values a byte)";
  return "an unknown encoding";
}

/// A consumed DLPack capsule: owns its managed tensor until released (the
/// producer's deleter is called exactly once).
class Consumed {
public:
  Consumed() = default;
  Consumed(const Consumed &) = delete;
  Consumed &operator=(const Consumed &) = delete;
  Consumed(Consumed &&other) noexcept { *this = std::move(other); }
  Consumed &operator=(Consumed &&other) noexcept {
    release();
    legacy_ = other.legacy_;
    versioned_ = other.versioned_;
    other.legacy_ = nullptr;
    other.versioned_ = nullptr;
    return *this;
  }
  ~Consumed() { release(); }

  /// Takes the capsule's tensor and renames the capsule "used_dltensor"
  /// (or "used_dltensor_versioned") so that its destructor leaves it alone.
  static Consumed take(const py::object &capsule, const std::string &label) {
    PyObject *object = capsule.ptr();
    Consumed consumed;
    if (PyCapsule_IsValid(object, "dltensor")) {
      consumed.legacy_ = static_cast<dlpack::ManagedTensor *>(
          PyCapsule_GetPointer(object, "dltensor"));
      if (PyCapsule_SetName(object, "used_dltensor") != 0)
        throw py::error_already_set();
    } else if (PyCapsule_IsValid(object, "dltensor_versioned")) {
      consumed.versioned_ = static_cast<dlpack::ManagedTensorVersioned *>(
          PyCapsule_GetPointer(object, "dltensor_versioned"));
      if (PyCapsule_SetName(object, "used_dltensor_versioned") != 0)
        throw py::error_already_set();
      if (consumed.versioned_ && consumed.versioned_->version.major != 1)
        throw py::value_error(label + ": DLPack version " +
                              std::to_string(consumed.versioned_->version.major) +
                              " is not supported (expected 1.x)");
    } else {
      throw py::value_error(label +
                            ": __dlpack__() did not return a DLPack capsule "
                            "(\"dltensor\" or \"dltensor_versioned\")");
    }
    if (!consumed.legacy_ && !consumed.versioned_)
      throw py::value_error(label + ": empty DLPack capsule");
    return consumed;
  }

  const dlpack::Tensor &tensor() const {
    return legacy_ ? legacy_->dl_tensor : versioned_->dl_tensor;
  }
  bool readOnly() const {
    return versioned_ && (versioned_->flags & dlpack::kFlagReadOnly);
  }

  void release() {
    if (legacy_ && legacy_->deleter)
      legacy_->deleter(legacy_);
    if (versioned_ && versioned_->deleter)
      versioned_->deleter(versioned_);
    legacy_ = nullptr;
    versioned_ = nullptr;
  }

private:
  dlpack::ManagedTensor *legacy_ = nullptr;
  dlpack::ManagedTensorVersioned *versioned_ = nullptr;
};

/// A framework's direct exporter of its tensor type: PyTorch's
/// torch._C._to_dlpack makes the capsule in one C call (0.24-0.32 us a tensor
/// on the H200's host) where the protocol's Tensor.__dlpack__(stream=...)
/// takes 12.4 us, mostly Python. It skips the protocol's stream handshake, so
/// runDlpack uses it only when the caller states that the run's stream is
/// the producer's current stream (`producer_stream=True`): the work that
/// wrote the tensor is then already ordered before the run.
struct Exporter {
  py::object type;
  py::object exportFn;
};

/// Never freed: the objects must not be released after the interpreter is
/// gone (static destructors run after Py_Finalize).
inline std::vector<Exporter> &exporters() {
  static auto *registered = new std::vector<Exporter>();
  return *registered;
}

inline void registerExporter(py::object type, py::object exportFn) {
  if (!PyType_Check(type.ptr()))
    throw py::type_error("register_exporter: expected a type, got " +
                         py::str(py::type::handle_of(type).attr("__name__"))
                             .cast<std::string>());
  if (!PyCallable_Check(exportFn.ptr()))
    throw py::type_error("register_exporter: the exporter must be callable");
  for (Exporter &exporter : exporters())
    if (exporter.type.is(type)) {
      exporter.exportFn = std::move(exportFn);
      return;
    }
  exporters().push_back({std::move(type), std::move(exportFn)});
}

/// The registered exporter of `tensor`'s type (or a base type), if any.
inline const Exporter *exporterFor(py::handle tensor) {
  for (const Exporter &exporter : exporters())
    if (PyObject_TypeCheck(tensor.ptr(),
                           reinterpret_cast<PyTypeObject *>(exporter.type.ptr())))
      return &exporter;
  return nullptr;
}

} // namespace teq_python

#endif // TEQ_PYTHON_BINDINGS_SRC_DLPACK_H
