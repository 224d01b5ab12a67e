//===- List.cpp - te-run --list: an artifact's manifest as text -----------===//
//
// The entries, their groups, arguments, temporaries (with where each buffer
// lives) and computed_by, and the GEMMs. Works without a GPU: the manifest
// comes from the artifact's trailer (Artifact::inspect).
//
//===----------------------------------------------------------------------===//

#include "TeRun.h"

#include <cstdio>

namespace mlir::teq::terun {

using namespace mlir::teq::runtime;

namespace {

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string padRight(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

/// One line describing a manifest GEMM (no algorithm: that is chosen on the
/// device).
std::string describeGemmSpec(const GemmSpec &g) {
  std::string text = std::to_string(g.id) + " " + g.name + ": " +
                     g.describeProblem() + ", scales " +
                     stringifyGemmScaleMode(g.aScaleMode) + "/" +
                     stringifyGemmScaleMode(g.bScaleMode) + ", epilogue " +
                     stringifyGemmEpilogue(g.epilogue);
  if (g.epilogue != GemmEpilogue::Default)
    text += std::string(" (") + stringifyGemmType(g.biasType) + ")";
  if (g.accumulate)
    text += ", accumulate";
  if (g.fastAccum)
    text += ", fast_accum";
  if (g.alphaOnDevice)
    text += ", device alpha";
  if (g.fastTf32)
    text += ", fast tf32";
  if (g.hasAlgo)
    text += ", pinned algo " + std::to_string(g.algo.id) + " tile " +
            std::to_string(g.algo.tile) + " stages " +
            std::to_string(g.algo.stages) + " splitk " +
            std::to_string(g.algo.splitK);
  if (g.sharesPlanOf >= 0)
    text += ", the plan of GEMM " + std::to_string(g.sharesPlanOf);
  return text;
}

} // namespace

void printList(const std::string &path, const Manifest &manifest) {
  std::printf("artifact %s: target %s, device code %s, %zu %s", path.c_str(),
              manifest.target.name.c_str(),
              stringifyDeviceCode(manifest.deviceCode), manifest.entries.size(),
              manifest.entries.size() == 1 ? "entry" : "entries");
  if (!manifest.gemms.empty())
    std::printf(", %zu %s", manifest.gemms.size(),
                manifest.gemms.size() == 1 ? "GEMM" : "GEMMs");
  std::printf("\n");
  for (const EntrySpec &entry : manifest.entries) {
    std::printf("\nentry %s (symbol %s): %zu buffers, %lld bytes moved per "
                "call",
                entry.name.c_str(), entry.symbol.c_str(), entry.numBuffers(),
                static_cast<long long>(entry.bytesMoved()));
    if (entry.workspaceBytes > 0)
      std::printf(", %lld-byte workspace",
                  static_cast<long long>(entry.workspaceBytes));
    std::printf("\n");
    // One communicator per group (--nranks).
    for (size_t g = 0; g < entry.groups.size(); ++g) {
      if (entry.groups[g].size == 0) // it only reduces amaxes
        std::printf("  group  %zu %s of any size\n", g,
                    entry.groups[g].name.c_str());
      else
        std::printf("  group  %zu %s of %lld ranks\n", g,
                    entry.groups[g].name.c_str(),
                    static_cast<long long>(entry.groups[g].size));
    }
    std::vector<const ArgSpec *> listed;
    for (const ArgSpec &arg : entry.args)
      listed.push_back(&arg);
    for (const ArgSpec &temporary : entry.temporaries)
      listed.push_back(&temporary);
    // Where a temporary's buffer lives (its "placement").
    auto placed = [](const ArgSpec &arg, size_t b) -> std::string {
      if (b >= arg.placement.size())
        return "";
      const artifact::BufferPlacement &at = arg.placement[b];
      using Where = artifact::BufferPlacement::Where;
      if (at.in == Where::Input)
        return "  in its input's buffer";
      std::string offset = " +" + std::to_string(at.offset);
      if (at.in == Where::Workspace)
        return "  in the workspace" + offset;
      return "  in output '" + at.output + "' buffer " +
             std::to_string(at.buffer) + offset;
    };
    for (const ArgSpec *argPtr : listed) {
      const ArgSpec &arg = *argPtr;
      std::string type;
      if (arg.isProto) {
        type = "proto " + arg.proto.dtype + formatShape(arg.proto.shape) +
               " " + arg.proto.quantizerKind() + " " + arg.proto.usage;
        if (!arg.proto.scaleLayout.empty())
          type += " " + arg.proto.scaleLayout;
      } else {
        type = "tensor " + arg.tensor.dtype + formatShape(arg.tensor.shape);
      }
      std::string computed;
      if (arg.computedBy)
        computed = "  = " + toJson(*arg.computedBy).serialize();
      // An alias output is the argument itself: no buffers, no bytes.
      if (arg.isAlias())
        computed = "  = argument '" + arg.aliasOf + "' itself (alias_of)";
      std::string size =
          arg.inRegisters ? std::string("in registers")
          : arg.isAlias() ? std::string("no buffers")
                          : std::to_string(static_cast<long long>(
                                arg.totalBytes())) +
                                " bytes";
      if (!arg.isProto)
        size += placed(arg, 0);
      std::printf("  %s %s %s  %s%s\n",
                  padRight(stringifyArgKind(arg.kind), 6).c_str(),
                  padRight(arg.name, 12).c_str(), type.c_str(), size.c_str(),
                  computed.c_str());
      if (!arg.isProto)
        continue;
      for (size_t b = 0; b < arg.buffers.size(); ++b) {
        const BufferSpec &buffer = arg.buffers[b];
        std::string layout = buffer.encoding + formatShape(buffer.shape);
        if (buffer.validShape != buffer.shape)
          layout += " valid " + formatShape(buffer.validShape);
        if (buffer.transposed)
          layout += " transposed";
        if (!buffer.scaleLayout.empty())
          layout += " " + buffer.scaleLayout;
        std::printf("           %s %s  %lld bytes%s\n",
                    padRight(buffer.name, 22).c_str(), layout.c_str(),
                    static_cast<long long>(buffer.bytes),
                    placed(arg, b).c_str());
      }
    }
  }
  if (!manifest.gemms.empty()) {
    std::printf("\nGEMMs (algorithms are chosen on the device when the "
                "artifact is opened):\n");
    for (const GemmSpec &gemm : manifest.gemms)
      std::printf("  %s\n", describeGemmSpec(gemm).c_str());
  }
}

} // namespace mlir::teq::terun
