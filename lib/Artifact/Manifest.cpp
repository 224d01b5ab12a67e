//===- Manifest.cpp - The artifact manifest: the reader -------------------===//
//
// parseManifest: the document, its entries and their arguments, with the
// validation that spans them (names, placements, sizes). The parts have
// their own readers (Readers.h); ManifestWriter.cpp writes the manifest.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Manifest.h"

#include "JsonFields.h"
#include "Readers.h"

#include <algorithm>
#include <map>
#include <set>

namespace mlir::teq::artifact {

using namespace detail;

const EntrySpec *Manifest::findEntry(std::string_view name) const {
  for (const EntrySpec &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

int64_t Manifest::maxWorkspaceBytes() const {
  int64_t bytes = 0;
  for (const EntrySpec &entry : entries)
    bytes = std::max(bytes, entry.workspaceBytes);
  return bytes;
}

namespace {

//===----------------------------------------------------------------------===//
// Arguments and entries
//===----------------------------------------------------------------------===//

Status parseArg(const JsonValue &value, const std::string &path,
                const GpuTarget &target, ArgSpec &arg,
                bool temporary = false) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readName(value, path, "name");
  if (!name.ok())
    return name.status();
  arg.name = *name;
  auto kind = readString(value, path, "kind");
  if (!kind.ok())
    return kind.status();
  if (*kind == "input")
    arg.kind = ArgKind::Input;
  else if (*kind == "output")
    arg.kind = ArgKind::Output;
  else if (*kind == "inout")
    arg.kind = ArgKind::InOut;
  else if (*kind == "temporary")
    arg.kind = ArgKind::Temporary;
  else
    return errorAt(child(path, "kind"),
                   "unknown kind \"" + *kind + "\" (expected " +
                       (temporary ? "temporary" : "input, output or inout") +
                       ")");
  if (temporary != (arg.kind == ArgKind::Temporary))
    return errorAt(child(path, "kind"),
                   temporary ? "a temporary has kind \"temporary\", got \"" +
                                   *kind + "\""
                             : std::string("kind \"temporary\" is only for "
                                           "the entry's \"temporaries\""));

  // "role"/"of" (optional: older manifests have none).
  auto role = readOptionalString(value, path, "role");
  if (!role.ok())
    return role.status();
  auto of = readOptionalString(value, path, "of");
  if (!of.ok())
    return of.status();
  if (value.find("role") && !isArgRole(*role))
    return errorAt(child(path, "role"), "unknown role \"" + *role +
                                            "\" (expected " + argRoleList() +
                                            ")");
  if (!role->empty() && temporary)
    return errorAt(child(path, "role"), "a temporary has no role");
  if (value.find("of")) {
    if (!argRoleTakesOf(*role))
      return errorAt(child(path, "of"),
                     role->empty() ? std::string("\"of\" without a \"role\"")
                                   : "role \"" + *role +
                                         "\" names no other value");
    if (of->empty())
      return errorAt(child(path, "of"), "is empty");
    TEQ_RETURN_IF_ERROR(checkName(*of, child(path, "of")));
  }
  arg.role = *role;
  arg.roleOf = *of;

  // "alias_of": an output that is an input argument returned as is. What it
  // names, parseEntry checks.
  auto aliasOf = readOptionalString(value, path, "alias_of");
  if (!aliasOf.ok())
    return aliasOf.status();
  if (value.find("alias_of")) {
    const std::string aliasPath = child(path, "alias_of");
    if (arg.kind != ArgKind::Output)
      return errorAt(aliasPath, "only an output is an alias of an argument, "
                                "got kind \"" + *kind + "\"");
    if (aliasOf->empty())
      return errorAt(aliasPath, "is empty");
    TEQ_RETURN_IF_ERROR(checkName(*aliasOf, aliasPath));
    // Its value is the argument's: nothing computes it, and it has no
    // buffers of its own to describe.
    if (value.find("computed_by"))
      return errorAt(child(path, "computed_by"),
                     "an alias output is not computed (it is argument '" +
                         *aliasOf + "')");
    if (value.find("buffers"))
      return errorAt(child(path, "buffers"),
                     "an alias output has no buffers of its own (it is "
                     "argument '" + *aliasOf + "')");
  }
  arg.aliasOf = *aliasOf;

  const JsonValue *tensor = value.find("tensor");
  const JsonValue *proto = value.find("proto");
  if (tensor && proto)
    return errorAt(path, "has both \"tensor\" and \"proto\"");
  if (!tensor && !proto)
    return errorAt(path, "missing \"tensor\" or \"proto\"");
  if (tensor) {
    TEQ_RETURN_IF_ERROR(parseTensor(*tensor, child(path, "tensor"), arg));
  } else {
    arg.isProto = true;
    TEQ_RETURN_IF_ERROR(parseProto(value, *proto, path, target, arg,
                                   /*ownBuffers=*/!arg.isAlias()));
  }
  if (arg.isAlias())
    arg.buffers.clear();

  if (const JsonValue *computedBy = value.find("computed_by")) {
    auto parsed = parseComputedBy(*computedBy, child(path, "computed_by"));
    if (!parsed.ok())
      return parsed.status();
    arg.computedBy = std::move(*parsed);
  }
  auto inRegisters = readOptionalBool(value, path, "in_registers", false);
  if (!inRegisters.ok())
    return inRegisters.status();
  arg.inRegisters = *inRegisters;
  if (arg.inRegisters && (!temporary || arg.isProto))
    return errorAt(child(path, "in_registers"),
                   "only a tensor temporary lives in registers");
  if (const JsonValue *placement = value.find("placement")) {
    // Its structure here; what it names, parseEntry checks.
    const std::string placementPath = child(path, "placement");
    if (!temporary || arg.inRegisters)
      return errorAt(placementPath, temporary
                                        ? "a temporary in registers has no "
                                          "placement"
                                        : "only a temporary has a placement");
    if (!placement->isArray())
      return typeError(placementPath, "an array", *placement);
    if (placement->asArray().size() != arg.buffers.size())
      return errorAt(placementPath,
                     "has " + std::to_string(placement->asArray().size()) +
                         " items, but the temporary has " +
                         std::to_string(arg.buffers.size()) + " buffers");
    for (size_t i = 0; i < placement->asArray().size(); ++i) {
      const JsonValue &item = placement->asArray()[i];
      const std::string itemPath = element(placementPath, i);
      if (!item.isObject())
        return typeError(itemPath, "an object", item);
      using Where = BufferPlacement::Where;
      BufferPlacement at;
      auto in = readString(item, itemPath, "in");
      if (!in.ok())
        return in.status();
      if (*in == "workspace")
        at.in = Where::Workspace;
      else if (*in == "output")
        at.in = Where::Output;
      else if (*in == "input")
        at.in = Where::Input;
      else
        return errorAt(child(itemPath, "in"),
                       "unknown place \"" + *in +
                           "\" (expected workspace, output or input)");
      if (at.in != Where::Input) {
        auto offset = readIntegerMember(item, itemPath, "offset");
        if (!offset.ok())
          return offset.status();
        if (*offset < 0 || *offset % 256 != 0)
          return errorAt(child(itemPath, "offset"),
                         "must be a multiple of 256 (>= 0), got " +
                             std::to_string(*offset));
        at.offset = *offset;
      }
      if (at.in == Where::Output) {
        auto output = readName(item, itemPath, "output");
        if (!output.ok())
          return output.status();
        at.output = *output;
        auto buffer = readIntegerMember(item, itemPath, "buffer");
        if (!buffer.ok())
          return buffer.status();
        if (*buffer < 0)
          return errorAt(child(itemPath, "buffer"), "must be >= 0");
        at.buffer = static_cast<size_t>(*buffer);
      }
      arg.placement.push_back(std::move(at));
    }
  }
  return Status::success();
}

/// A temporary's placement against its entry: each buffer inside the
/// workspace or inside a buffer of an output, or (a swizzle_scales
/// temporary's non-scale buffers) its input's.
Status checkPlacement(const EntrySpec &entry, const ArgSpec &temporary,
                      const std::vector<layout::BufferDesc> &layout,
                      const std::string &path) {
  for (size_t b = 0; b < temporary.placement.size(); ++b) {
    const BufferPlacement &at = temporary.placement[b];
    const std::string itemPath = element(child(path, "placement"), b);
    const int64_t bytes = temporary.buffers[b].bytes;
    if (at.in == BufferPlacement::Where::Input) {
      bool swizzled = temporary.computedBy &&
                      temporary.computedBy->op == ComputeOp::SwizzleScales &&
                      b < layout.size() &&
                      layout[b].role != layout::BufferRole::ScaleInv;
      if (!swizzled)
        return errorAt(itemPath, "only a swizzle_scales temporary's data "
                                 "buffers are their input's (\"in\": "
                                 "\"input\")");
      continue;
    }
    int64_t room = entry.workspaceBytes;
    std::string where = "the entry's workspace_bytes";
    if (at.in == BufferPlacement::Where::Output) {
      const ArgSpec *output = entry.findArg(at.output);
      if (!output || output->kind != ArgKind::Output)
        return errorAt(child(itemPath, "output"),
                       "'" + at.output + "' is not an output of the entry");
      if (at.buffer >= output->buffers.size())
        return errorAt(child(itemPath, "buffer"),
                       "output '" + at.output + "' has " +
                           std::to_string(output->buffers.size()) +
                           " buffers, got buffer " + std::to_string(at.buffer));
      room = output->buffers[at.buffer].bytes;
      where = "output '" + at.output + "' buffer " +
              std::to_string(at.buffer) + " ('" +
              output->buffers[at.buffer].name + "')";
    }
    if (at.offset + bytes > room)
      return errorAt(itemPath, "temporary '" + temporary.name + "' buffer " +
                                   std::to_string(b) + " (" +
                                   std::to_string(bytes) + " bytes at " +
                                   std::to_string(at.offset) +
                                   ") does not fit " + where + " (" +
                                   std::to_string(room) + " bytes)");
  }
  return Status::success();
}

/// "bf16[64, 128]", "proto bf16[64, 128] mxfp8 rowwise compact".
std::string typeText(const ArgSpec &arg) {
  if (!arg.isProto)
    return arg.tensor.dtype + formatShape(arg.tensor.shape);
  const ProtoSpec &proto = arg.proto;
  return "proto " + proto.dtype + formatShape(proto.shape) + " " +
         proto.quantizerKind() + " " + proto.usage +
         (proto.scaleLayout.empty() ? "" : " " + proto.scaleLayout);
}

/// An alias output against the argument it names: an input of the entry
/// (an inout is updated in place, so the value returned would not be the
/// one passed), of exactly its type.
Status checkAlias(const EntrySpec &entry, const ArgSpec &alias,
                  const std::string &path, int version) {
  const std::string at = child(path, "alias_of");
  if (version < 2)
    return errorAt(at, "alias outputs need manifest version 2 (a version-1 "
                       "runtime would expect buffers for them)");
  const ArgSpec *arg = entry.findArg(alias.aliasOf);
  if (!arg || arg->kind != ArgKind::Input)
    return errorAt(at, "'" + alias.aliasOf + "' is not an input argument " +
                           "of entry '" + entry.name + "'" +
                           (arg ? std::string(" (it is an ") +
                                      stringifyArgKind(arg->kind) + ")"
                                : ""));
  bool same = arg->isProto == alias.isProto;
  if (same && !arg->isProto)
    same = arg->tensor.dtype == alias.tensor.dtype &&
           arg->tensor.shape == alias.tensor.shape;
  if (same && arg->isProto) {
    const ProtoSpec &a = arg->proto, &b = alias.proto;
    same = a.dtype == b.dtype && a.shape == b.shape &&
           a.quantizer == b.quantizer && a.usage == b.usage &&
           a.scaleLayout == b.scaleLayout;
  }
  if (!same)
    return errorAt(at, "output '" + alias.name + "' (" + typeText(alias) +
                           ") is argument '" + arg->name + "' (" +
                           typeText(*arg) + ") itself: it has its type");
  return Status::success();
}

Status parseEntry(const JsonValue &value, const std::string &path,
                  const GpuTarget &target, int version, EntrySpec &entry) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readName(value, path, "name");
  if (!name.ok())
    return name.status();
  entry.name = *name;
  if (value.find("symbol")) {
    auto symbol = readName(value, path, "symbol");
    if (!symbol.ok())
      return symbol.status();
    entry.symbol = *symbol;
  } else {
    entry.symbol = "teq_entry_" + entry.name;
  }
  if (const JsonValue *workspace = value.find("workspace_bytes")) {
    const std::string at = child(path, "workspace_bytes");
    auto bytes = readInteger(*workspace, at);
    if (!bytes.ok())
      return bytes.status();
    if (*bytes < 0)
      return errorAt(at, "negative size " + std::to_string(*bytes));
    if (*bytes > kMaxBytes)
      return errorAt(at, std::to_string(*bytes) +
                             " bytes is more than a workspace can have "
                             "(2^48)");
    entry.workspaceBytes = *bytes;
  }
  if (const JsonValue *groups = value.find("groups")) {
    const std::string groupsPath = child(path, "groups");
    if (!groups->isArray())
      return typeError(groupsPath, "an array", *groups);
    for (size_t i = 0; i < groups->asArray().size(); ++i) {
      const JsonValue &item = groups->asArray()[i];
      const std::string groupPath = element(groupsPath, i);
      if (!item.isObject())
        return typeError(groupPath, "an object", item);
      GroupSpec group;
      auto groupName = readName(item, groupPath, "name");
      if (!groupName.ok())
        return groupName.status();
      group.name = *groupName;
      auto size = readIntegerMember(item, groupPath, "size");
      if (!size.ok())
        return size.status();
      // 0: any size (a group the entry only reduces amaxes over).
      if (*size < 0 || *size > (int64_t(1) << 30))
        return errorAt(child(groupPath, "size"),
                       "a group has 1 to 2^30 ranks (0: any), got " +
                           std::to_string(*size));
      group.size = *size;
      for (const GroupSpec &other : entry.groups)
        if (other.name == group.name)
          return errorAt(child(groupPath, "name"),
                         "group \"" + group.name + "\" is listed twice");
      entry.groups.push_back(std::move(group));
    }
  }
  auto args = member(value, path, "args");
  if (!args.ok())
    return args.status();
  const std::string argsPath = child(path, "args");
  if (!(*args)->isArray())
    return typeError(argsPath, "an array", **args);
  std::set<std::string> names;
  int64_t totalBytes = 0;
  for (size_t i = 0; i < (*args)->asArray().size(); ++i) {
    ArgSpec arg;
    const std::string argPath = element(argsPath, i);
    TEQ_RETURN_IF_ERROR(
        parseArg((*args)->asArray()[i], argPath, target, arg));
    if (!names.insert(arg.name).second)
      return errorAt(child(argPath, "name"),
                     "duplicate argument name \"" + arg.name + "\"");
    // Each argument is at most kMaxBytes, so the sum cannot overflow before
    // it passes the limit.
    totalBytes += arg.totalBytes();
    if (totalBytes > kMaxBytes)
      return errorAt(argsPath, "the arguments' buffers add up to more than "
                               "2^48 bytes");
    for (size_t b = 0; b < arg.buffers.size(); ++b)
      entry.flatBuffers.push_back(BufferRef{i, b});
    entry.args.push_back(std::move(arg));
  }
  for (size_t i = 0; i < entry.args.size(); ++i)
    if (entry.args[i].isAlias())
      TEQ_RETURN_IF_ERROR(checkAlias(entry, entry.args[i],
                                     element(argsPath, i), version));
  if (const JsonValue *temporaries = value.find("temporaries")) {
    const std::string temporariesPath = child(path, "temporaries");
    if (!temporaries->isArray())
      return typeError(temporariesPath, "an array", *temporaries);
    for (size_t i = 0; i < temporaries->asArray().size(); ++i) {
      ArgSpec temporary;
      const std::string temporaryPath = element(temporariesPath, i);
      TEQ_RETURN_IF_ERROR(parseArg(temporaries->asArray()[i], temporaryPath,
                                   target, temporary, /*temporary=*/true));
      if (!names.insert(temporary.name).second)
        return errorAt(child(temporaryPath, "name"),
                       "duplicate name \"" + temporary.name +
                           "\" (arguments and temporaries share names)");
      // te-run --check recomputes a temporary from it when a later value
      // reads it (a temporary is never in the caller's buffers).
      if (!temporary.computedBy)
        return errorAt(temporaryPath, "a temporary needs a \"computed_by\"");
      // A placed temporary: each buffer where the placement says.
      if (!temporary.placement.empty()) {
        std::vector<layout::BufferDesc> layout;
        if (temporary.isProto)
          layout = layout::describeBuffers(temporary.proto.tensorDesc(),
                                           target.caps());
        TEQ_RETURN_IF_ERROR(
            checkPlacement(entry, temporary, layout, temporaryPath));
        entry.temporaries.push_back(std::move(temporary));
        continue;
      }
      // Otherwise temporaries live in the workspace (several at once, at
      // offsets the compiler chose): each one must fit it. A swizzle_scales
      // temporary owns only its scales; its other buffers are its input's.
      int64_t bytes = temporary.inRegisters ? 0 : temporary.totalBytes();
      if (temporary.isProto && temporary.computedBy &&
          temporary.computedBy->op == ComputeOp::SwizzleScales) {
        bytes = 0;
        std::vector<layout::BufferDesc> layout = layout::describeBuffers(
            temporary.proto.tensorDesc(), target.caps());
        for (size_t b = 0; b < layout.size(); ++b)
          if (layout[b].role == layout::BufferRole::ScaleInv)
            bytes += temporary.buffers[b].bytes;
      }
      if (bytes > entry.workspaceBytes)
        return errorAt(temporaryPath,
                       "temporary '" + temporary.name + "' has " +
                           std::to_string(bytes) +
                           " bytes, but the entry's workspace_bytes is " +
                           std::to_string(entry.workspaceBytes));
      entry.temporaries.push_back(std::move(temporary));
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The document
//===----------------------------------------------------------------------===//

Status parseManifestValue(const JsonValue &root, Manifest &manifest) {
  const std::string path;
  if (!root.isObject())
    return typeError(path, "a JSON object", root);

  auto format = readString(root, path, "format", /*nonEmpty=*/false);
  if (!format.ok())
    return format.status();
  if (*format != "teq-artifact")
    return errorAt("format", "unknown format \"" + *format +
                                 "\" (expected \"teq-artifact\")");
  manifest.format = *format;

  auto version = member(root, path, "version");
  if (!version.ok())
    return version.status();
  auto versionNumber = readInteger(**version, "version");
  if (!versionNumber.ok())
    return versionNumber.status();
  if (*versionNumber < kMinManifestVersion ||
      *versionNumber > kManifestVersion)
    return errorAt("version", "unsupported version " +
                                  std::to_string(*versionNumber) +
                                  " (this runtime reads versions " +
                                  std::to_string(kMinManifestVersion) +
                                  " and " + std::to_string(kManifestVersion) +
                                  ")");
  manifest.version = static_cast<int>(*versionNumber);

  auto target = readString(root, path, "target");
  if (!target.ok())
    return target.status();
  auto gpuTarget = GpuTarget::parse(*target);
  if (!gpuTarget.ok())
    return gpuTarget.status().withPrefix("target");
  manifest.target = *gpuTarget;

  auto deviceCode = readString(root, path, "device_code");
  if (!deviceCode.ok())
    return deviceCode.status();
  if (*deviceCode == "ptx")
    manifest.deviceCode = DeviceCodeKind::PTX;
  else if (*deviceCode == "cubin")
    manifest.deviceCode = DeviceCodeKind::Cubin;
  else
    return errorAt("device_code", "unknown device code \"" + *deviceCode +
                                      "\" (expected ptx or cubin)");

  // GEMMs before entries: the entries' computed_by refer to them.
  if (const JsonValue *gemms = root.find("gemms")) {
    if (!gemms->isArray())
      return typeError("gemms", "an array", *gemms);
    std::set<std::string> names;
    for (size_t i = 0; i < gemms->asArray().size(); ++i) {
      GemmSpec gemm;
      const std::string gemmPath = element("gemms", i);
      TEQ_RETURN_IF_ERROR(parseGemm(gemms->asArray()[i], gemmPath, i, gemm));
      // te-compile --gemm-algos pins algorithms by GEMM name.
      if (!names.insert(gemm.name).second)
        return errorAt(child(gemmPath, "name"),
                       "duplicate GEMM name \"" + gemm.name + "\"");
      if (gemm.sharesPlanOf >= 0) {
        const GemmSpec &planOwner = manifest.gemms[gemm.sharesPlanOf];
        if (planOwner.sharesPlanOf >= 0)
          return errorAt(child(gemmPath, "shares_plan_of"),
                         "GEMM " + std::to_string(gemm.sharesPlanOf) +
                             " shares the plan of GEMM " +
                             std::to_string(planOwner.sharesPlanOf) +
                             " itself: name the GEMM that owns the plan");
        if (!sameGemmPlan(planOwner, gemm))
          return errorAt(child(gemmPath, "shares_plan_of"),
                         "GEMM '" + gemm.name + "' is not the same problem "
                         "and algorithm as GEMM '" + planOwner.name +
                             "' (" + gemm.describeProblem() + " vs " +
                             planOwner.describeProblem() + ")");
      }
      manifest.gemms.push_back(std::move(gemm));
    }
  }

  auto entries = member(root, path, "entries");
  if (!entries.ok())
    return entries.status();
  if (!(*entries)->isArray())
    return typeError("entries", "an array", **entries);
  std::set<std::string> names;
  std::map<std::string, std::string> entryOfSymbol;
  // Entries are pushed as they are read: reserve, so that the checker's
  // pointers into earlier entries stay valid (it only looks at one).
  manifest.entries.reserve((*entries)->asArray().size());
  for (size_t i = 0; i < (*entries)->asArray().size(); ++i) {
    EntrySpec entry;
    const std::string entryPath = element("entries", i);
    TEQ_RETURN_IF_ERROR(parseEntry((*entries)->asArray()[i], entryPath,
                                   manifest.target, manifest.version, entry));
    if (!names.insert(entry.name).second)
      return errorAt(child(entryPath, "name"),
                     "duplicate entry name \"" + entry.name + "\"");
    auto [other, fresh] = entryOfSymbol.emplace(entry.symbol, entry.name);
    if (!fresh)
      return errorAt(child(entryPath, "symbol"),
                     "'" + entry.symbol + "' is also the symbol of entry '" +
                         other->second + "'");
    TEQ_RETURN_IF_ERROR(checkComputedBy(manifest, entry, entryPath));
    manifest.entries.push_back(std::move(entry));
  }

  if (const JsonValue *kernels = root.find("dependent_launch_kernels")) {
    if (!kernels->isArray())
      return typeError("dependent_launch_kernels", "an array", *kernels);
    for (size_t i = 0; i < kernels->asArray().size(); ++i) {
      const JsonValue &kernel = kernels->asArray()[i];
      const std::string at = element("dependent_launch_kernels", i);
      if (!kernel.isString())
        return typeError(at, "a kernel name (a string)", kernel);
      if (kernel.asString().empty())
        return errorAt(at, "empty kernel name");
      TEQ_RETURN_IF_ERROR(checkName(kernel.asString(), at));
      manifest.dependentLaunchKernels.insert(kernel.asString());
    }
  }
  return Status::success();
}

} // namespace

StatusOr<Manifest> parseManifest(std::string_view json) {
  auto root = JsonValue::parse(json);
  if (!root.ok())
    return root.status().withPrefix("manifest");
  Manifest manifest;
  Status status = parseManifestValue(*root, manifest);
  if (!status.ok())
    return status.withPrefix("manifest");
  manifest.json = std::move(*root);
  return manifest;
}

} // namespace mlir::teq::artifact
