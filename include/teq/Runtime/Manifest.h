//===- Manifest.h - The artifact manifest the runtime reads ---------*- C++ -*-===//
//
// The runtime reads the manifest with the artifact contract
// (teq/Artifact/Manifest.h: its types, parseManifest and its validation);
// these are the contract's names in the runtime's namespace.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_MANIFEST_H
#define TEQ_RUNTIME_MANIFEST_H

#include "teq/Artifact/Manifest.h"
#include "teq/Runtime/Json.h"
#include "teq/Runtime/Status.h"

namespace mlir::teq::runtime {
using artifact::ArgKind;
using artifact::ArgSpec;
using artifact::BufferRef;
using artifact::BufferSpec;
using artifact::checkGemmForDevice;
using artifact::ComputedBy;
using artifact::ComputeOp;
using artifact::DeviceCodeKind;
using artifact::EntrySpec;
using artifact::GemmAlgoSpec;
using artifact::GemmEpilogue;
using artifact::GemmScaleMode;
using artifact::GemmSpec;
using artifact::GemmType;
using artifact::GpuTarget;
using artifact::isFp8;
using artifact::isLowPrecision;
using artifact::isTargetCompatible;
using artifact::Manifest;
using artifact::parseManifest;
using artifact::ProtoSpec;
using artifact::QuantizerDesc;
using artifact::QuantizerKind;
using artifact::stringifyArgKind;
using artifact::stringifyDeviceCode;
using artifact::stringifyGemmEpilogue;
using artifact::stringifyGemmScaleMode;
using artifact::stringifyGemmType;
using artifact::tensorDTypeBytes;
using artifact::TensorSpec;
using artifact::toJson;
} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_MANIFEST_H
