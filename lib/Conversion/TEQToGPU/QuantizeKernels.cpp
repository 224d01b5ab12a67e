//===- QuantizeKernels.cpp - GPU kernels of teq.quantize ------------------===//
//
// Kernels are emitted as MLIR text specialised to one quantization, then
// parsed into the module's gpu.module. `$NAME` tokens are substituted; loops
// that must be unrolled (byte packing) are generated here.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernels.h"

#include "teq/Reference/Hadamard.h"

#include "llvm/ADT/StringRef.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

using namespace mlir::teq::kernels;

namespace {

const char *typeName(InputType t) {
  switch (t) {
  case InputType::F32:
    return "f32";
  case InputType::BF16:
    return "bf16";
  case InputType::F16:
    return "f16";
  }
  return "bf16";
}

int64_t typeBytes(InputType t) { return t == InputType::F32 ? 4 : 2; }

/// Replaces every `$KEY` of `vars` in `text` (longest keys first).
std::string substituteVars(llvm::StringRef text,
                           const std::map<std::string, std::string> &vars);

/// `$KEY` substitution (the libdevice-free rewrite of math.absf and
/// arith.maxnumf is an IR pattern applied to every kernel: LibdeviceFree.h).
std::string substitute(llvm::StringRef text,
                       const std::map<std::string, std::string> &vars) {
  return substituteVars(text, vars);
}

std::string substituteVars(llvm::StringRef text,
                           const std::map<std::string, std::string> &vars) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '$') {
      const std::string *best = nullptr;
      const std::string *value = nullptr;
      for (const auto &[key, val] : vars)
        if (text.substr(i + 1).starts_with(key) &&
            (!best || key.size() > best->size())) {
          best = &key;
          value = &val;
        }
      if (best) {
        out += *value;
        i += 1 + best->size();
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}


/// Whether `c` continues an SSA name (`%name`).
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// `text` with every whole SSA name `%from` of `names` spelled `%to`.
std::string renameValues(const std::string &text,
                         const std::map<std::string, std::string> &names) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '%') {
      size_t end = i + 1;
      while (end < text.size() && isNameChar(text[end]))
        ++end;
      auto it = names.find(text.substr(i + 1, end - i - 1));
      out += '%';
      out += it == names.end() ? text.substr(i + 1, end - i - 1) : it->second;
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

/// `text` with the values it defines (`%a = ...`, `%a, %b = ...`) renamed
/// `%<prefix>a`, so that it can sit beside another copy of itself in an
/// enclosing region (MLIR names may not shadow).
std::string prefixDefinitions(const std::string &text,
                              const std::string &prefix) {
  std::map<std::string, std::string> names;
  static const std::regex def(R"(^\s*((%[A-Za-z0-9_]+\s*,\s*)*%[A-Za-z0-9_]+)\s*=)");
  static const std::regex name(R"(%([A-Za-z0-9_]+))");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, def))
      continue;
    std::string defs = m[1];
    for (std::sregex_iterator it(defs.begin(), defs.end(), name), e; it != e;
         ++it)
      names[(*it)[1]] = prefix + (*it)[1].str();
  }
  return renameValues(text, names);
}

/// Exact decimal-free spelling of a float constant (hex bit pattern).
std::string floatLiteral(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "0x";
  os.write_hex(bits);
  return s;
}

/// Shared pieces: reduce %VAL across the block into thread 0's %RES (f32,
/// maxnumf) using workgroup memory %smem (8 x f32).
/// Lines reducing the f32 `%<p>acc` of every thread of a 256-thread block
/// to one maximum per warp (maxnumf over xor shuffles) in workgroup
/// `%smem[warp]`, then a barrier. Names are `p`-prefixed; needs `%<p>tid`,
/// `%<p>c32` and `%<p>c0`.
std::string warpMaxToSharedLines(const std::string &p) {
  return substituteVars(R"(
      %$Pw32 = arith.constant 32 : i32
      %$Po16 = arith.constant 16 : i32
      %$Po8 = arith.constant 8 : i32
      %$Po4 = arith.constant 4 : i32
      %$Po2 = arith.constant 2 : i32
      %$Po1 = arith.constant 1 : i32
      %$Ps16, %$Pp16 = gpu.shuffle xor %$Pacc, %$Po16, %$Pw32 : f32
      %$Pa16 = arith.maxnumf %$Pacc, %$Ps16 : f32
      %$Ps8, %$Pp8 = gpu.shuffle xor %$Pa16, %$Po8, %$Pw32 : f32
      %$Pa8 = arith.maxnumf %$Pa16, %$Ps8 : f32
      %$Ps4, %$Pp4 = gpu.shuffle xor %$Pa8, %$Po4, %$Pw32 : f32
      %$Pa4 = arith.maxnumf %$Pa8, %$Ps4 : f32
      %$Ps2, %$Pp2 = gpu.shuffle xor %$Pa4, %$Po2, %$Pw32 : f32
      %$Pa2 = arith.maxnumf %$Pa4, %$Ps2 : f32
      %$Ps1, %$Pp1 = gpu.shuffle xor %$Pa2, %$Po1, %$Pw32 : f32
      %$Pa1 = arith.maxnumf %$Pa2, %$Ps1 : f32
      %$Plane = arith.remui %$Ptid, %$Pc32 : index
      %$Pwarp = arith.divui %$Ptid, %$Pc32 : index
      %$Plane0 = arith.cmpi eq, %$Plane, %$Pc0 : index
      scf.if %$Plane0 {
        memref.store %$Pa1, %smem[%$Pwarp] : memref<8xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier)",
                        {{"P", p}});
}

/// An amax pass's first line with PerTensorFP8Spec::launchDependents: the
/// launch after it may start once every block has run it.
const char *const kLaunchDependentsLine =
    "      nvvm.griddepcontrol launch_dependents\n";

/// warpMaxToSharedLines for `%acc`, then `%t0` (thread 0 of the block).
const std::string kBlockMaxReduce = warpMaxToSharedLines("") + R"(
      %t0 = arith.cmpi eq, %tid, %c0 : index
)";

} // namespace

namespace {
/// `@<prefix>_nvfp4_consts` (f32): S_enc of the rowwise copy [0] and of the
/// columnwise copy [1], then each copy's encode multipliers of the E4M3
/// codes 0..127 from kNVFP4EncTable[copy].
constexpr int64_t kNVFP4ConstsSize = 4 + 2 * 128;
constexpr int64_t kNVFP4EncTable[2] = {4, 4 + 128};
} // namespace

std::string mlir::teq::kernels::nvfp4ConstsGlobal(const std::string &prefix) {
  return "    memref.global \"private\" @" + prefix + "_nvfp4_consts : memref<" +
         std::to_string(kNVFP4ConstsSize) +
         "xf32, #gpu.address_space<global>> = dense<0.0>\n";
}

std::string mlir::teq::kernels::fusedAmaxGlobals(const std::string &prefix) {
  return "    memref.global \"private\" @" + prefix +
         "_amax_acc : memref<2xi32, #gpu.address_space<global>> = dense<0>\n"
         "    memref.global \"private\" @" + prefix +
         "_amax_count : memref<1xi32, #gpu.address_space<global>> = dense<0>\n";
}

namespace {
/// Lines of the encode multiplier %enc of the E4M3 scale code %code (i32)
/// and the copy's %sdec = 1 / S_enc; self-contained (its own constants).
const char *kNVFP4EncodeMultiplierLines = R"(        // The scale's value (non-negative, finite): normal or subnormal E4M3.
        %i0 = arith.constant 0 : i32
        %i3 = arith.constant 3 : i32
        %i7 = arith.constant 7 : i32
        %i15 = arith.constant 15 : i32
        %i20 = arith.constant 20 : i32
        %i23 = arith.constant 23 : i32
        %i120 = arith.constant 120 : i32
        %fone = arith.constant 1.0 : f32
        %fltmax = arith.constant 0x7F7FFFFF : f32
        %ce0 = arith.shrui %code, %i3 : i32
        %ce = arith.andi %ce0, %i15 : i32
        %cmn = arith.andi %code, %i7 : i32
        %nb1 = arith.addi %ce, %i120 : i32
        %nb2 = arith.shli %nb1, %i23 : i32
        %nb3 = arith.shli %cmn, %i20 : i32
        %nb4 = arith.ori %nb2, %nb3 : i32
        %nval = arith.bitcast %nb4 : i32 to f32
        %smn = arith.uitofp %cmn : i32 to f32
        %p2m9 = arith.constant 0.001953125 : f32
        %sval = arith.mulf %smn, %p2m9 : f32
        %isub = arith.cmpi eq, %ce, %i0 : i32
        %sf = arith.select %isub, %sval, %nval : f32
        // Encode multiplier: fminf(1 / (scale * (1 / S_enc)), FLT_MAX).
        %sd = arith.mulf %sf, %sdec : f32
        %enc0 = arith.divf %fone, %sd : f32
        %elt = arith.cmpf olt, %enc0, %fltmax : f32
        %enc = arith.select %elt, %enc0, %fltmax : f32
)";

/// Thread 0's lines finishing a fused amax reduction (fusedAmaxGlobals):
/// each block's max (`values`[i], f32, never NaN) into running maximum i
/// by an atomic max of its pattern (non-negative floats order as their
/// patterns), a fence, then the count of blocks done; the last of `grid`
/// blocks reads the maxima and stores maximum i into `buffers`[i] (each
/// memref<1xf32>), then resets both globals for the next launch. This
/// replaces a one-block finalize kernel (its launch and tail).
/// With `constsAmaxes` (value indices for the rowwise and columnwise
/// copies), thread 0 also leaves for nvfp4ConstsLines the flag "last
/// block" in `%smem`[slot] (type `smemType`) and those values in
/// [slot + 1], [slot + 2]: slots the block's reduction does not use (the
/// CPU emulation runs its stores again).
std::string fusedAmaxLines(const std::string &prefix, int64_t grid,
                           const std::vector<std::string> &values,
                           const std::vector<std::vector<std::string>> &buffers,
                           std::pair<int, int> constsAmaxes = {-1, -1},
                           const std::string &smemType = "",
                           int64_t slot = 0) {
  const bool consts = constsAmaxes.first >= 0;
  const std::string slots = "        %fs0 = arith.constant " + std::to_string(slot) +
                            " : index\n        %fs1 = arith.constant " +
                            std::to_string(slot + 1) +
                            " : index\n        %fs2 = arith.constant " +
                            std::to_string(slot + 2) + " : index\n";
  const std::string acc = "memref<2xi32, #gpu.address_space<global>>";
  const std::string cnt = "memref<1xi32, #gpu.address_space<global>>";
  std::string s = "        %facc = memref.get_global @" + prefix + "_amax_acc : " + acc + "\n" +
                  "        %fcnt = memref.get_global @" + prefix + "_amax_count : " + cnt + "\n" +
                  "        %fi0 = arith.constant 0 : index\n" +
                  "        %fi1 = arith.constant 1 : index\n" +
                  "        %fz32 = arith.constant 0 : i32\n" +
                  "        %fone32 = arith.constant 1 : i32\n";
  for (size_t i = 0; i < values.size(); ++i) {
    std::string n = std::to_string(i);
    s += "        %fb" + n + " = arith.bitcast " + values[i] + " : f32 to i32\n" +
         "        %fo" + n + " = memref.atomic_rmw maxu %fb" + n + ", %facc[%fi" + n +
         "] : (i32, " + acc + ") -> i32\n";
  }
  s += "        nvvm.memory.barrier #nvvm.mem_scope<gpu>\n"
       "        %fold = memref.atomic_rmw addi %fone32, %fcnt[%fi0] : (i32, " + cnt + ") -> i32\n"
       "        %fgm1 = arith.constant " + std::to_string(grid - 1) + " : i32\n"
       "        %flast = arith.cmpi eq, %fold, %fgm1 : i32\n";
  if (consts)
    s += slots + "        %fnotlast = arith.constant 0.0 : f32\n"
         "        memref.store %fnotlast, %smem[%fs0] : " + smemType + "\n";
  s += "        scf.if %flast {\n"
       "          nvvm.memory.barrier #nvvm.mem_scope<gpu>\n";
  for (size_t i = 0; i < values.size(); ++i) {
    std::string n = std::to_string(i);
    // An atomic read: the other blocks' maxima, not a cached line.
    s += "          %fm" + n + " = memref.atomic_rmw maxu %fz32, %facc[%fi" + n +
         "] : (i32, " + acc + ") -> i32\n" +
         "          %fmf" + n + " = arith.bitcast %fm" + n + " : i32 to f32\n";
    for (const std::string &b : buffers[i])
      s += "          memref.store %fmf" + n + ", %" + b + "[%fi0] : memref<1xf32>\n";
    s += "          memref.store %fz32, %facc[%fi" + n + "] : " + acc + "\n";
  }
  if (consts)
    s += "          %fislast = arith.constant 1.0 : f32\n"
         "          memref.store %fislast, %smem[%fs0] : " + smemType + "\n"
         "          memref.store %fmf" + std::to_string(constsAmaxes.first) +
         ", %smem[%fs1] : " + smemType + "\n"
         "          memref.store %fmf" + std::to_string(constsAmaxes.second) +
         ", %smem[%fs2] : " + smemType + "\n";
  s += "          memref.store %fz32, %fcnt[%fi0] : " + cnt + "\n"
       "        }\n";
  return s;
}

/// Lines after thread 0's fusedAmaxLines (with constsAmaxes), at the
/// kernel's top level (`%tid`, 256 threads): in the last block, every
/// thread fills an entry of @<prefix>_nvfp4_consts from the amaxes thread 0
/// left in `%smem` from `slot` on — thread t for the copy t / 128 (0 rowwise, 1
/// columnwise): S_enc = fminf(2688 / amax, FLT_MAX) (1 when amax or S_enc
/// is 0; te-semantics.md §5.5; thread 128c stores it) and the encode
/// multiplier of E4M3 code t % 128 (kNVFP4EncodeMultiplierLines). The
/// data kernel then looks them up instead of dividing in every block.
std::string nvfp4ConstsLines(const std::string &prefix,
                             const std::string &smemType, int64_t slot) {
  std::string text = R"(      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c128 = arith.constant 128 : index
      %cflag = arith.constant $SLOT : index
      %flag = memref.load %smem[%cflag] : $SMEM
      %one = arith.constant 1.0 : f32
      %islast = arith.cmpf oeq, %flag, %one : f32
      scf.if %islast {
        %ncst = memref.get_global @$PREFIX_nvfp4_consts : memref<$NCONSTxf32, #gpu.address_space<global>>
        %cw = arith.divui %tid, %c128 : index
        %codei = arith.remui %tid, %c128 : index
        %slot0 = arith.addi %cw, %c1 : index
        %slot = arith.addi %slot0, %cflag : index
        %gamax = memref.load %smem[%slot] : $SMEM
        %c2688 = arith.constant 2688.0 : f32
        %fz = arith.constant 0.0 : f32
        %fmax = arith.constant 0x7F7FFFFF : f32
        %q = arith.divf %c2688, %gamax : f32
        %qlt = arith.cmpf olt, %q, %fmax : f32
        %q1 = arith.select %qlt, %q, %fmax : f32
        %az = arith.cmpf oeq, %gamax, %fz : f32
        %qz = arith.cmpf oeq, %q1, %fz : f32
        %sp = arith.ori %az, %qz : i1
        %senc = arith.select %sp, %one, %q1 : f32
        %sdec = arith.divf %one, %senc : f32
        %code64 = arith.index_cast %codei : index to i64
        %code = arith.trunci %code64 : i64 to i32
)" + std::string(kNVFP4EncodeMultiplierLines) +
                     R"(        %cwb = arith.muli %cw, %c128 : index
        %eb = arith.addi %cwb, %codei : index
        %ebase = arith.constant $ENCBASE0 : index
        %ei = arith.addi %eb, %ebase : index
        memref.store %enc, %ncst[%ei] : memref<$NCONSTxf32, #gpu.address_space<global>>
        %first = arith.cmpi eq, %codei, %c0 : index
        scf.if %first {
          memref.store %senc, %ncst[%cw] : memref<$NCONSTxf32, #gpu.address_space<global>>
        }
      }
)";
  text = substituteVars(text, {{"SMEM", smemType},
                               {"PREFIX", prefix},
                               {"NCONST", std::to_string(kNVFP4ConstsSize)},
                               {"ENCBASE0", std::to_string(kNVFP4EncTable[0])},
                               {"SLOT", std::to_string(slot)}});
  // Its own names: beside the amax kernel's.
  return "      gpu.barrier\n" + prefixDefinitions(text, "nc_");
}
} // namespace

std::string
mlir::teq::kernels::perTensorAmaxKernel(const PerTensorFP8Spec &spec,
                                        const std::vector<std::string> &finalBuffers) {
  // The fused (NVFP4) pass needs three more workgroup slots (8..10).
  const std::string kAmaxSmem = "memref<11xf32, #gpu.address_space<workgroup>>";
  int64_t n = spec.rows * spec.cols;
  int64_t perVector = 16 / typeBytes(spec.input);
  int64_t grid = amaxGridSize(n, spec.input);
  std::string uext;
  for (int u = 0; u < 4; ++u) {
    std::string i = std::to_string(u);
    uext += spec.input == InputType::F32
                ? "%uf" + i + " = arith.addf %u" + i + ", %unz : vector<$Vxf32>\n        "
                : "%uf" + i + " = arith.extf %u" + i + " : vector<$Vx$T> to vector<$Vxf32>\n        ";
  }
  if (spec.input == InputType::F32)
    uext = "%unz = arith.constant dense<-0.0> : vector<$Vxf32>\n        " + uext;
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_amax"},
      {"PARTIALS", spec.prefix + "_partials"},
      {"N", std::to_string(n)},
      {"T", typeName(spec.input)},
      {"V", std::to_string(perVector)},
      {"G", std::to_string(grid)},
      {"NVEC", std::to_string(n / perVector)},
      {"NTAIL", std::to_string(n % perVector)},
      {"STRIDE", std::to_string(grid * kBlockSize)},
      {"STRIDE4", std::to_string(4 * grid * kBlockSize)},
      {"NFULL", std::to_string((n / perVector) / (4 * grid * kBlockSize) *
                               (4 * grid * kBlockSize))},
      {"UEXT", uext},
      {"FINALARGS", [&] {
         std::string a;
         for (const std::string &b : finalBuffers)
           a += ", %" + b + ": memref<1xf32>";
         return a;
       }()},
      {"FINALSTORE",
       finalBuffers.empty()
           ? std::string("        memref.store %bm, %partials[%bid] : memref<$Gxf32, #gpu.address_space<global>>\n")
           : fusedAmaxLines(spec.prefix, grid, {"%bm"}, {finalBuffers},
                            {0, 0}, kAmaxSmem, 8)},
      {"AFTERT0", finalBuffers.empty()
                      ? std::string()
                      : nvfp4ConstsLines(spec.prefix, kAmaxSmem, 8)},
      {"EXT", spec.input == InputType::F32
                  ? "%vnz = arith.constant dense<-0.0> : vector<$Vxf32>\n        %vf = arith.addf %v, %vnz : vector<$Vxf32>"
                  : "%vf = arith.extf %v : vector<$Vx$T> to vector<$Vxf32>"},
      {"SEXT", spec.input == InputType::F32
                   ? "%tnz = arith.constant -0.0 : f32\n        %tf = arith.addf %t, %tnz : f32"
                   : "%tf = arith.extf %t : $T to f32"},
      {"TRIGGER", spec.launchDependents ? kLaunchDependentsLine : ""},
  };
  std::string text = R"(
    gpu.func @$NAME(%x: memref<$Nx$T>$FINALARGS)
        workgroup(%smem: memref<8xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %partials = memref.get_global @$PARTIALS : memref<$Gxf32, #gpu.address_space<global>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %cv = arith.constant $V : index
      %nvec = arith.constant $NVEC : index
      %ntail = arith.constant $NTAIL : index
      %stride = arith.constant $STRIDE : index
      %zero = arith.constant 0.0 : f32
      %vzero = arith.constant dense<0.0> : vector<$Vxf32>
$TRIGGER      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %start = arith.addi %base, %tid : index
      // Four independent 16-byte loads in flight a thread (each coalesced
      // across the warp), then the rest one at a time. The max is order
      // free (NaN-ignoring), so the grouping does not change it.
      %stride4 = arith.constant $STRIDE4 : index
      %nfull = arith.constant $NFULL : index
      %uacc = scf.for %i = %start to %nfull step %stride4 iter_args(%m = %zero) -> f32 {
        %i1 = arith.addi %i, %stride : index
        %i2 = arith.addi %i1, %stride : index
        %i3 = arith.addi %i2, %stride : index
        %off0 = arith.muli %i, %cv : index
        %off1 = arith.muli %i1, %cv : index
        %off2 = arith.muli %i2, %cv : index
        %off3 = arith.muli %i3, %cv : index
        %u0 = vector.load %x[%off0] {alignment = 16} : memref<$Nx$T>, vector<$Vx$T>
        %u1 = vector.load %x[%off1] {alignment = 16} : memref<$Nx$T>, vector<$Vx$T>
        %u2 = vector.load %x[%off2] {alignment = 16} : memref<$Nx$T>, vector<$Vx$T>
        %u3 = vector.load %x[%off3] {alignment = 16} : memref<$Nx$T>, vector<$Vx$T>
        $UEXT
        %ua0 = math.absf %uf0 : vector<$Vxf32>
        %ua1 = math.absf %uf1 : vector<$Vxf32>
        %ua2 = math.absf %uf2 : vector<$Vxf32>
        %ua3 = math.absf %uf3 : vector<$Vxf32>
        %ur0 = vector.reduction <maxnumf>, %ua0 : vector<$Vxf32> into f32
        %ur1 = vector.reduction <maxnumf>, %ua1 : vector<$Vxf32> into f32
        %ur2 = vector.reduction <maxnumf>, %ua2 : vector<$Vxf32> into f32
        %ur3 = vector.reduction <maxnumf>, %ua3 : vector<$Vxf32> into f32
        %um0 = arith.maxnumf %m, %ur0 : f32
        %um1 = arith.maxnumf %um0, %ur1 : f32
        %um2 = arith.maxnumf %um1, %ur2 : f32
        %um3 = arith.maxnumf %um2, %ur3 : f32
        scf.yield %um3 : f32
      }
      %rstart = arith.addi %nfull, %start : index
      %vacc = scf.for %i = %rstart to %nvec step %stride iter_args(%m = %uacc) -> f32 {
        %off = arith.muli %i, %cv : index
        %v = vector.load %x[%off] {alignment = 16} : memref<$Nx$T>, vector<$Vx$T>
        $EXT
        %a = math.absf %vf : vector<$Vxf32>
        %r = vector.reduction <maxnumf>, %a : vector<$Vxf32> into f32
        %m2 = arith.maxnumf %m, %r : f32
        scf.yield %m2 : f32
      }
      %tailstart = arith.muli %nvec, %cv : index
      %istail = arith.cmpi ult, %start, %ntail : index
      %acc = scf.if %istail -> f32 {
        %ti = arith.addi %tailstart, %start : index
        %t = memref.load %x[%ti] : memref<$Nx$T>
        $SEXT
        %ta = math.absf %tf : f32
        %tm = arith.maxnumf %vacc, %ta : f32
        scf.yield %tm : f32
      } else {
        scf.yield %vacc : f32
      })";
  text += kBlockMaxReduce;
  text += R"(
      scf.if %t0 {
        %bm = scf.for %j = %c0 to %c8 step %c1 iter_args(%mm = %zero) -> f32 {
          %e = memref.load %smem[%j] : memref<8xf32, #gpu.address_space<workgroup>>
          %n = arith.maxnumf %mm, %e : f32
          scf.yield %n : f32
        }
$FINALSTORE      }
$AFTERT0      gpu.return
    }
)";
  // Two rounds: $EXT/$SEXT bring in $V/$T.
  if (!finalBuffers.empty())
    text = std::regex_replace(
        text, std::regex("memref<8xf32, #gpu.address_space<workgroup>>"),
        kAmaxSmem);
  return substitute(substitute(text, vars), vars);
}

std::string mlir::teq::kernels::perTensorGlobals(const PerTensorFP8Spec &spec) {
  int64_t grid = amaxPartialsCount(spec);
  return "    memref.global \"private\" @" + spec.prefix + "_partials : memref<" +
         std::to_string(grid) +
         "xf32, #gpu.address_space<global>>\n"
         "    memref.global \"private\" @" +
         spec.prefix +
         "_scale_value : memref<1xf32, #gpu.address_space<global>>\n";
}

//===----------------------------------------------------------------------===//
// FP8 block scaling (te-semantics.md §5.3)
//===----------------------------------------------------------------------===//

namespace {

/// Lines computing `%<p>sc` (scale) and `%<p>inv` (1/scale) from the f32
/// `%<p>in` per compute_scale_from_amax (§5.1) with `valueForInf`.
std::string scaleFromAmax(const std::string &p, float fp8Max, float epsilon,
                          bool pow2, float valueForInf) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto lit = [](float f) { return floatLiteral(f); };
  os << "      %" << p << "eps = arith.constant " << lit(epsilon) << " : f32\n"
     << "      %" << p << "max = arith.constant " << lit(fp8Max) << " : f32\n"
     << "      %" << p << "vfi = arith.constant " << lit(valueForInf) << " : f32\n"
     << "      %" << p << "one = arith.constant 1.0 : f32\n"
     << "      %" << p << "zero = arith.constant 0.0 : f32\n"
     << "      %" << p << "inf = arith.constant 0x7F800000 : f32\n"
     << "      %" << p << "below = arith.cmpf olt, %" << p << "in, %" << p << "eps : f32\n"
     << "      %" << p << "am = arith.select %" << p << "below, %" << p << "eps, %" << p << "in : f32\n"
     << "      %" << p << "abs = math.absf %" << p << "am : f32\n"
     << "      %" << p << "isinf = arith.cmpf oeq, %" << p << "abs, %" << p << "inf : f32\n"
     << "      %" << p << "iszero = arith.cmpf oeq, %" << p << "am, %" << p << "zero : f32\n"
     << "      %" << p << "isnan = arith.cmpf uno, %" << p << "am, %" << p << "am : f32\n"
     << "      %" << p << "sp0 = arith.ori %" << p << "isinf, %" << p << "iszero : i1\n"
     << "      %" << p << "sp = arith.ori %" << p << "sp0, %" << p << "isnan : i1\n"
     << "      %" << p << "q = arith.divf %" << p << "max, %" << p << "am : f32\n"
     << "      %" << p << "qinf = arith.cmpf oeq, %" << p << "q, %" << p << "inf : f32\n"
     << "      %" << p << "q1 = arith.select %" << p << "qinf, %" << p << "vfi, %" << p << "q : f32\n"
     << "      %" << p << "bits = arith.bitcast %" << p << "q1 : f32 to i32\n"
     << "      %" << p << "mask = arith.constant " << (pow2 ? "-8388608" : "-1") << " : i32\n"
     << "      %" << p << "mbits = arith.andi %" << p << "bits, %" << p << "mask : i32\n"
     << "      %" << p << "q2 = arith.bitcast %" << p << "mbits : i32 to f32\n"
     << "      %" << p << "sc = arith.select %" << p << "sp, %" << p << "one, %" << p << "q2 : f32\n"
     << "      %" << p << "inv = arith.divf %" << p << "one, %" << p << "sc : f32\n";
  return s;
}

float maxFiniteOf(InputType t) {
  switch (t) {
  case InputType::F32:
    return 3.40282347e38f;
  case InputType::BF16:
    return 3.38953139e38f; // 0x7F7F0000
  case InputType::F16:
    return 65504.0f;
  }
  return 3.40282347e38f;
}

} // namespace


namespace {
/// Unrolled: for each of the 16 lanes of `vec`, the max over the 4 threads
/// of a warp sharing the column (xor 8, 16), stored by lanes 0..7 into
/// `buffer[base + %c + e]`. Constant positions keep `vec` in registers (a
/// dynamic index would spill it to local memory).
std::string columnPartialStores(const std::string &vec, const std::string &base,
                                const std::string &buffer,
                                const std::string &bufferType) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int e = 0; e < 16; ++e) {
    std::string n = std::to_string(e);
    os << "      %cpv" << n << " = vector.extract " << vec << "[" << e
       << "] : f32 from vector<16xf32>\n"
       << "      %cpa" << n << ", %cpb" << n << " = gpu.shuffle xor %cpv" << n
       << ", %o8, %w32 : f32\n"
       << "      %cpc" << n << " = arith.maxnumf %cpv" << n << ", %cpa" << n
       << " : f32\n"
       << "      %cpd" << n << ", %cpe" << n << " = gpu.shuffle xor %cpc" << n
       << ", %o16, %w32 : f32\n"
       << "      %cpf" << n << " = arith.maxnumf %cpc" << n << ", %cpd" << n
       << " : f32\n";
  }
  os << "      scf.if %writer {\n";
  for (int e = 0; e < 16; ++e) {
    std::string n = std::to_string(e);
    os << "        %cpk" << n << " = arith.constant " << e << " : index\n"
       << "        %cpo" << n << " = arith.addi %c, %cpk" << n << " : index\n"
       << "        %cpi" << n << " = arith.addi " << base << ", %cpo" << n
       << " : index\n"
       << "        memref.store %cpf" << n << ", " << buffer << "[%cpi" << n
       << "] : " << bufferType << "\n";
  }
  os << "      }\n";
  return s;
}

} // namespace

int64_t mlir::teq::kernels::tileSharedBytes(InputType input) {
  (void)input;
  return 0;
}

int64_t mlir::teq::kernels::blockFP8SharedBytes(const BlockFP8Spec &spec) {
  (void)spec;
  return 0;
}

namespace {

/// `text` four times, once per row step p of the register-resident tile
/// kernels, with `@P` replaced by p and `@R` by 4p (the row offset).
std::string perRow(const std::string &text) {
  std::string out;
  for (int p = 0; p < 4; ++p) {
    std::string t = text;
    for (size_t at; (at = t.find("@R")) != std::string::npos;)
      t.replace(at, 2, std::to_string(4 * p));
    for (size_t at; (at = t.find("@Q")) != std::string::npos;)
      t.replace(at, 2, p ? std::to_string(p - 1) : std::string("init"));
    for (size_t at; (at = t.find("@P")) != std::string::npos;)
      t.replace(at, 2, std::to_string(p));
    out += t;
  }
  return out;
}

/// Lines converting the f32 lanes of vector<16xf32> `in` into `out`
/// (vector<16xi8>), RNE + satfinite; `tag` keeps the names apart.
std::string packFP8Tagged(const std::string &in, const std::string &out,
                          const std::string &tag, bool e5m2) {
  std::string s;
  llvm::raw_string_ostream os(s);
  const char *ty = e5m2 ? "f8E5M2" : "f8E4M3FN";
  for (int j = 0; j < 16; j += 2) {
    os << "      %" << tag << "e" << j << " = vector.extract " << in << "["
       << j << "] : f32 from vector<16xf32>\n";
    os << "      %" << tag << "e" << j + 1 << " = vector.extract " << in
       << "[" << j + 1 << "] : f32 from vector<16xf32>\n";
    os << "      %" << tag << "h" << j / 2 << " = nvvm.convert.f32x2.to.f8x2 %"
       << tag << "e" << j + 1 << ", %" << tag << "e" << j
       << " {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16 ("
       << ty << ")\n";
  }
  os << "      %" << tag << "hv = vector.from_elements ";
  for (int j = 0; j < 8; ++j)
    os << (j ? ", " : "") << "%" << tag << "h" << j;
  os << " : vector<8xi16>\n";
  os << "      " << out << " = vector.bitcast %" << tag
     << "hv : vector<8xi16> to vector<16xi8>\n";
  return s;
}

/// Start of the register-resident 128x128-tile kernels (block FP8, MXFP8):
/// warp w owns tile rows 16w..16w+15; lane l holds the 16 columns from
/// %c = 16 (l % 8) of rows %rbase + 4p, p = 0..3 (%rbase = 16w + l / 8).
/// The four rows are loaded at once (8 or 16 independent 16-byte loads a
/// thread) into %v0..%v3 (f32, zeros outside the tensor).
const char *kRegTilePrologue = R"(      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c12 = arith.constant 12 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %cm = arith.constant $M : index
      %ck = arith.constant $K : index
      %fz = arith.constant 0.0 : f32
      %fnz = arith.constant -0.0 : f32
      %vzero = arith.constant dense<0.0> : vector<16xf32>
      %vnz = arith.constant dense<-0.0> : vector<16xf32>
      %rzero = arith.constant dense<0> : vector<16xi16>
      %cmaxinit = arith.constant dense<0.0> : vector<16xf32>
      %i16z = arith.constant 0 : i16
      %sh16 = arith.constant dense<16> : vector<8xi32>
      %sh16x16 = arith.constant dense<16> : vector<16xi32>
      %mhi = arith.constant dense<-65536> : vector<8xi32>
      %w32 = arith.constant 32 : i32
      %o1 = arith.constant 1 : i32
      %o2 = arith.constant 2 : i32
      %o4 = arith.constant 4 : i32
      %o8 = arith.constant 8 : i32
      %o16 = arith.constant 16 : i32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %k0 = arith.muli %bx, %c128 : index
      %m0 = arith.muli %by, %c128 : index
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %j = arith.remui %lane, %c8 : index
      %rl = arith.divui %lane, %c8 : index
      %c = arith.muli %j, %c16 : index
      %gk = arith.addi %k0, %c : index
      %kend = arith.addi %gk, %c16 : index
      %fullk = arith.cmpi ule, %kend, %ck : index
      %vecin = arith.constant $VECIN
      %w16 = arith.muli %warp, %c16 : index
      %rbase = arith.addi %w16, %rl : index
      %writer = arith.cmpi ult, %lane, %c8 : index
      %j0 = arith.cmpi eq, %j, %c0 : index
      %wbase = arith.muli %warp, %c128 : index
)";

/// Per row step: %r@P (tile row), %gm@P, %rowok@P, %rowbase@P, %goff@P.
const char *kRegTileRowVars = R"(      %cr@P = arith.constant @R : index
      %r@P = arith.addi %rbase, %cr@P : index
      %gm@P = arith.addi %m0, %r@P : index
      %rowok@P = arith.cmpi ult, %gm@P, %cm : index
      %rowbase@P = arith.muli %gm@P, %ck : index
      %goff@P = arith.addi %rowbase@P, %gk : index
)";

/// The f32 values of row step @P for a phase after a barrier: %w@P widened
/// again from the raw bf16 bits (exact: bf16 -> f32 is a 16-bit shift), or
/// %v@P itself for other inputs. Returns the lines; `name` gets the value.
std::string regTileWide(InputType input, std::string &name,
                        const std::string &tag = "") {
  if (input != InputType::BF16) {
    name = "%v@P";
    return "";
  }
  name = "%w" + tag + "@P";
  if (!tag.empty())
    // A third form (16-bit lanes, zero-extended, shifted): LLVM would merge
    // an identical expression with the one after the barriers.
    return "      %w" + tag + "h@P = vector.bitcast %u@P : vector<8xi32> to vector<16xi16>\n"
           "      %w" + tag + "x@P = arith.extui %w" + tag + "h@P : vector<16xi16> to vector<16xi32>\n"
           "      %w" + tag + "s@P = arith.shli %w" + tag + "x@P, %sh16x16 : vector<16xi32>\n"
           "      %w" + tag + "@P = arith.bitcast %w" + tag + "s@P : vector<16xi32> to vector<16xf32>\n";
  std::string s = R"(      %wlo@P = arith.shli %u@P, %sh16 : vector<8xi32>
      %whi@P = arith.andi %u@P, %mhi : vector<8xi32>
      %wl@P = arith.bitcast %wlo@P : vector<8xi32> to vector<8xf32>
      %wh@P = arith.bitcast %whi@P : vector<8xi32> to vector<8xf32>
      %w@P = vector.shuffle %wl@P, %wh@P [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15] : vector<8xf32>, vector<8xf32>
)";
  for (size_t at = 0; (at = s.find("%w", at)) != std::string::npos; at += 2 + tag.size())
    s.replace(at, 2, "%w" + tag);
  return s;
}

/// The four rows' loads: one branch with all 16-byte loads where the
/// thread's four chunks are whole and aligned, else element by element.
/// bf16 inputs also keep the raw bits (%u0..%u3, vector<8xi32>): the phases
/// after a barrier widen them again (regTileWide) so that only 32 registers,
/// not 64, of tile data live across barriers.
std::string regTileLoads(InputType input) {
  bool f32 = input == InputType::F32, bf16 = input == InputType::BF16;
  std::string ext = f32 ? "arith.addf %l@P, %vnz : vector<16xf32>"
                        : "arith.extf %l@P : vector<16x$T> to vector<16xf32>";
  std::string types = "vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>";
  std::string rawTypes = "vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>";
  std::string s = perRow(kRegTileRowVars) + R"(      %fast0 = arith.andi %rowok3, %fullk : i1
      %fast = arith.andi %fast0, %vecin : i1
)";
  if (bf16) {
    s += "      %u0, %u1, %u2, %u3 = scf.if %fast -> (" + rawTypes + ") {\n" +
         perRow("        %l@P = vector.load %x[%goff@P] {alignment = 16} : memref<$Nx$T>, vector<16x$T>\n") +
         perRow("        %fu@P = vector.bitcast %l@P : vector<16xbf16> to vector<8xi32>\n") +
         "        scf.yield %fu0, %fu1, %fu2, %fu3 : " + rawTypes + "\n      } else {\n" +
         perRow(R"(        %sr@P = scf.for %e = %c0 to %c16 step %c1 iter_args(%racc = %rzero) -> vector<16xi16> {
          %kk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %kk, %ck : index
          %ok = arith.andi %rowok@P, %kin : i1
          %raw = scf.if %ok -> i16 {
            %go = arith.addi %rowbase@P, %kk : index
            %xs = memref.load %x[%go] : memref<$Nx$T>
            %xr = arith.bitcast %xs : bf16 to i16
            scf.yield %xr : i16
          } else {
            scf.yield %i16z : i16
          }
          %rins = vector.insert %raw, %racc[%e] : i16 into vector<16xi16>
          scf.yield %rins : vector<16xi16>
        }
        %su@P = vector.bitcast %sr@P : vector<16xi16> to vector<8xi32>
)") + "        scf.yield %su0, %su1, %su2, %su3 : " + rawTypes + "\n      }\n";
  } else {
    s += "      %v0, %v1, %v2, %v3 = scf.if %fast -> (" + types + ") {\n" +
         perRow("        %l@P = vector.load %x[%goff@P] {alignment = 16} : memref<$Nx$T>, vector<16x$T>\n") +
         perRow("        %f@P = " + ext + "\n") +
         "        scf.yield %f0, %f1, %f2, %f3 : " + types + "\n      } else {\n" +
         perRow(R"(        %s@P = scf.for %e = %c0 to %c16 step %c1 iter_args(%acc = %vzero) -> vector<16xf32> {
          %kk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %kk, %ck : index
          %ok = arith.andi %rowok@P, %kin : i1
          %val = scf.if %ok -> f32 {
            %go = arith.addi %rowbase@P, %kk : index
            %xs = memref.load %x[%go] : memref<$Nx$T>
            $SEXT
            scf.yield %xf : f32
          } else {
            scf.yield %fz : f32
          }
          %ins = vector.insert %val, %acc[%e] : f32 into vector<16xf32>
          scf.yield %ins : vector<16xf32>
        }
)") + "        scf.yield %s0, %s1, %s2, %s3 : " + types + "\n      }\n";
  }
  return s;
}

/// Per row step, before the barriers: %v@P (f32), %ab@P = |%v@P| and the
/// running column maximum %cmax@P (%cmax3 covers the thread's four rows).
/// Emitted row by row with the phase that uses %v@P, so that one row's f32
/// values are live at a time. bf16 widens with fpext here (a form LLVM does
/// not merge with regTileWide's shifts after the barriers).
std::string rowPrep(InputType input) {
  std::string s;
  if (input == InputType::BF16)
    s = "      %vb@P = vector.bitcast %u@P : vector<8xi32> to vector<16xbf16>\n"
        "      %v@P = arith.extf %vb@P : vector<16xbf16> to vector<16xf32>\n";
  return s + "      %ab@P = math.absf %v@P : vector<16xf32>\n"
             "      %cmax@P = arith.maxnumf %cmax@Q, %ab@P : vector<16xf32>\n";
}


/// Stores the bytes `bytes` (vector<16xi8>) of row step @P at `buf`[%goff@P]
/// (16 bytes where whole and `vec`, else byte by byte inside the tensor).
std::string regTileRowStore(const std::string &bytes, const std::string &buf,
                            const std::string &vec) {
  return R"(      %sv0_)" + buf + R"(@P = arith.andi %rowok@P, %fullk : i1
      %sok_)" + buf + R"(@P = arith.andi %sv0_)" + buf + R"(@P, )" + vec + R"( : i1
      scf.if %sok_)" + buf + R"(@P {
        vector.store )" + bytes + ", %" + buf + R"([%goff@P] {alignment = 16} : memref<$Nxi8>, vector<16xi8>
      } else {
        scf.if %rowok@P {
          scf.for %e = %c0 to %c16 step %c1 {
            %kk = arith.addi %gk, %e : index
            %kin = arith.cmpi ult, %kk, %ck : index
            scf.if %kin {
              %b = vector.extract )" + bytes + R"([%e] : i8 from vector<16xi8>
              %go = arith.addi %rowbase@P, %kk : index
              memref.store %b, %)" + buf + R"([%go] : memref<$Nxi8>
            }
          }
        }
      }
)";
}

/// Shuffle-xor max of the f32 `in` over `offsets`; the result is `out`.
std::string shuffleMax(const std::string &in, const std::string &out,
                       const std::string &tag,
                       std::initializer_list<int> offsets) {
  std::string s, cur = in;
  int n = 0;
  for (int o : offsets) {
    std::string x = "%" + tag + "x" + std::to_string(n),
                q = "%" + tag + "q" + std::to_string(n),
                m = ++n == static_cast<int>(offsets.size())
                        ? out
                        : "%" + tag + "m" + std::to_string(n);
    s += "      " + x + ", " + q + " = gpu.shuffle xor " + cur + ", %o" +
         std::to_string(o) + ", %w32 : f32\n";
    s += "      " + m + " = arith.maxnumf " + cur + ", " + x + " : f32\n";
    cur = m;
  }
  return s;
}


} // namespace

std::string mlir::teq::kernels::blockFP8Kernel(const BlockFP8Spec &spec) {
  int64_t m = spec.rows, k = spec.cols;
  int64_t nkb = (k + 127) / 128, nmb = (m + 127) / 128;
  float fp8Max = spec.e5m2 ? 57344.0f : 448.0f;
  float vfi = maxFiniteOf(spec.input);
  bool f32 = spec.input == InputType::F32;
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_block"},
      {"N", std::to_string(m * k)},
      {"M", std::to_string(m)},
      {"K", std::to_string(k)},
      {"T", typeName(spec.input)},
      {"RSR", std::to_string(spec.rowScaleRows * spec.rowScaleCols)},
      {"RSC", std::to_string(spec.rowScaleCols)},
      {"CSR", std::to_string(spec.colScaleRows * spec.colScaleCols)},
      {"CSC", std::to_string(spec.colScaleCols)},
      {"MPAD", std::to_string((m + 3) / 4 * 4)},
      {"KPAD", std::to_string((k + 3) / 4 * 4)},
      {"NKB", std::to_string(nkb)},
      {"NMB", std::to_string(nmb)},
      {"NKBPAD", std::to_string((nkb + 3) / 4 * 4)},
      {"NMBPAD", std::to_string((nmb + 3) / 4 * 4)},
      {"VECIN", k % 8 == 0 ? "true" : "false"},
      {"VECROW", k % 16 == 0 ? "true" : "false"},
      {"VECCOL", m % 16 == 0 ? "true" : "false"},
      {"SEXT", f32 ? "%xf = arith.addf %xs, %fnz : f32"
                   : "%xf = arith.extf %xs : $T to f32"},
      {"SHM", "#gpu.address_space<workgroup>"},
      // bf16 tiles fit 80 registers (tile data as raw bits; 64 for 2D):
      // three (four) blocks per SM instead of two.
      {"MINCTA", spec.input != InputType::BF16 ? ""
                 : spec.twoD                    ? ", nvvm.minctasm = 4 : i32"
                                                : ", nvvm.minctasm = 3 : i32"},
  };
  std::string args = "%x: memref<$Nx$T>";
  if (spec.rowwise)
    args += ", %rdata: memref<$Nxi8>, %rscale: memref<$RSRxf32>";
  if (spec.columnwise)
    args += ", %cdata: memref<$Nxi8>, %cscale: memref<$CSRxf32>";
  std::string wide, wideText = regTileWide(spec.input, wide);
  std::vector<std::string> wg;
  if (spec.twoD)
    wg.push_back("%wamax: memref<8xf32, $SHM> {llvm.align = 16 : i64}");
  else if (spec.columnwise)
    wg.insert(wg.end(), {"%colpart: memref<1024xf32, $SHM> {llvm.align = 16 : i64}",
                         "%colsc: memref<128xf32, $SHM> {llvm.align = 16 : i64}"});
  if (spec.columnwise)
    wg.push_back("%qt: memref<16384xi8, $SHM> {llvm.align = 16 : i64}");
  std::string wgText;
  for (const std::string &w : wg)
    wgText += (wgText.empty() ? "" : ", ") + w;

  // Layout (per 128x128 tile, one 256-thread block): the input is read once
  // into registers (kRegTilePrologue); rowwise data goes straight from
  // registers to global memory (16-byte stores); the columnwise copy is
  // quantized in registers, staged as FP8 bytes in %qt (16 KiB, 16-byte
  // chunks XOR-swizzled by row / 16 so that both the row stores and the
  // column gathers are free of bank conflicts), then gathered along columns
  // and written as 16-byte rows of the transposed copy.
  std::string text = R"(
    gpu.func @$NAME()" + args + ")" +
                     (wgText.empty() ? "" : "\n        workgroup(" + wgText + ")") + R"(
        kernel attributes {known_block_size = array<i32: 256, 1, 1>$MINCTA} {
)" + std::string(kRegTilePrologue) + regTileLoads(spec.input) + R"(      %t0 = arith.cmpi eq, %tid, %c0 : index
)";

  if (spec.twoD) {
    // The tile amax: thread, warp (shuffles), block (8 warp maxima).
    text += perRow(rowPrep(spec.input)) + R"(      %tmr = vector.reduction <maxnumf>, %cmax3 : vector<16xf32> into f32
)" + shuffleMax("%tmr", "%tmw", "tw", {1, 2, 4, 8, 16}) + R"(      %lane0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %lane0 {
        memref.store %tmw, %wamax[%warp] : memref<8xf32, $SHM>
      }
      gpu.barrier
      %wav = vector.load %wamax[%c0] {alignment = 16} : memref<8xf32, $SHM>, vector<8xf32>
      %tsin = vector.reduction <maxnumf>, %wav : vector<8xf32> into f32
)" + scaleFromAmax("ts", fp8Max, spec.epsilon, spec.forcePow2, vfi) + R"(
      %tsb = vector.broadcast %tssc : f32 to vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %tsb : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
    if (spec.rowwise) {
      text += perRow(regTileRowStore("%qb@P", "rdata", "%vecrow")) + R"(
      scf.if %t0 {
        %sb = arith.muli %by, %rsc : index
        %si = arith.addi %sb, %bx : index
        memref.store %tsinv, %rscale[%si] : memref<$RSRxf32>
        // Zero the padding columns of this block row (last K-block only).
        %lastk = arith.cmpi eq, %bx, %nkbm1 : index
        scf.if %lastk {
          scf.for %pc = %nkb to %nkbpad step %c1 {
            %pi = arith.addi %sb, %pc : index
            memref.store %fz, %rscale[%pi] : memref<$RSRxf32>
          }
        }
      }
)";
    }
    if (spec.columnwise)
      text += R"(      scf.if %t0 {
        %sb = arith.muli %bx, %csc : index
        %si = arith.addi %sb, %by : index
        memref.store %tsinv, %cscale[%si] : memref<$CSRxf32>
        %lastm = arith.cmpi eq, %by, %nmbm1 : index
        scf.if %lastm {
          scf.for %pc = %nmb to %nmbpad step %c1 {
            %pi = arith.addi %sb, %pc : index
            memref.store %fz, %cscale[%pi] : memref<$CSRxf32>
          }
        }
      }
)";
  } else {
    // Before the barrier: the column maxima first, then the rowwise data
    // (the row phase widens the raw bits again), one row at a time each.
    std::string rowText, rwide, rwideText = regTileWide(spec.input, rwide, "r");
    if (spec.rowwise) {
      // 1x128 blocks: a row's 8 threads are lanes 8q..8q+7 of one warp.
      rowText = perRow(rwideText + "      %rab@P = math.absf " + rwide + R"( : vector<16xf32>
      %rm@P = vector.reduction <maxnumf>, %rab@P : vector<16xf32> into f32
)" + shuffleMax("%rm@P", "%rs@Pin", "rr@P", {1, 2, 4}) +
                     scaleFromAmax("rs@P", fp8Max, spec.epsilon,
                                   spec.forcePow2, vfi) +
                     R"(      %rsb@P = vector.broadcast %rs@Psc : f32 to vector<16xf32>
      %rq@P = arith.mulf )" + rwide + R"(, %rsb@P : vector<16xf32>
)" + packFP8Tagged("%rq@P", "%rb@P", "pr@P", spec.e5m2) +
                     regTileRowStore("%rb@P", "rdata", "%vecrow") + R"(      %si@P = arith.addi %sbase, %gm@P : index
      %wscale@P = arith.andi %j0, %rowok@P : i1
      scf.if %wscale@P {
        memref.store %rs@Pinv, %rscale[%si@P] : memref<$RSRxf32>
      }
      %inpad0_@P = arith.cmpi uge, %gm@P, %cm : index
      %inpad1_@P = arith.cmpi ult, %gm@P, %cmpad : index
      %inpad2_@P = arith.andi %inpad0_@P, %inpad1_@P : i1
      %inpad@P = arith.andi %inpad2_@P, %j0 : i1
      scf.if %inpad@P {
        memref.store %fz, %rscale[%si@P] : memref<$RSRxf32>
      }
)");
    }
    // 128x1 blocks: column maxima over the warp's 16 rows (shuffles), then
    // over the 8 warps (colpart) by one thread per column, which computes
    // the column's scale once.
    text += perRow(rowPrep(spec.input));
    if (spec.columnwise)
      text += columnPartialStores("%cmax3", "%wbase", "%colpart",
                                  "memref<1024xf32, $SHM>");
    text += rowText;
    if (spec.columnwise) {
      text += R"(      gpu.barrier
      %tc = arith.cmpi ult, %tid, %c128 : index
      scf.if %tc {
        %csin = scf.for %w = %c0 to %c8 step %c1 iter_args(%mm = %fz) -> f32 {
          %wb = arith.muli %w, %c128 : index
          %wi = arith.addi %wb, %tid : index
          %pv = memref.load %colpart[%wi] : memref<1024xf32, $SHM>
          %mx = arith.maxnumf %mm, %pv : f32
          scf.yield %mx : f32
        }
)" + scaleFromAmax("cs", fp8Max, spec.epsilon, spec.forcePow2, vfi) + R"(
        memref.store %cssc, %colsc[%tid] : memref<128xf32, $SHM>
        %gkc = arith.addi %k0, %tid : index
        %colok = arith.cmpi ult, %gkc, %ck : index
        %sbase2 = arith.muli %by, %csc : index
        %si = arith.addi %sbase2, %gkc : index
        scf.if %colok {
          memref.store %csinv, %cscale[%si] : memref<$CSRxf32>
        }
        %kp0 = arith.cmpi uge, %gkc, %ck : index
        %kp1 = arith.cmpi ult, %gkc, %ckpad : index
        %kpad = arith.andi %kp0, %kp1 : i1
        scf.if %kpad {
          memref.store %fz, %cscale[%si] : memref<$CSRxf32>
        }
      }
      gpu.barrier
      %csv = vector.load %colsc[%c] {alignment = 16} : memref<128xf32, $SHM>, vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %csv : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
    }
  }

  if (spec.columnwise) {
    // Stage the columnwise bytes: row r, 16-byte chunk j at chunk j ^ (r/16)
    // (r / 16 is the warp).
    text += R"(      %jx = arith.xori %j, %warp : index
      %jxo = arith.muli %jx, %c16 : index
)" + perRow(R"(      %qr@P = arith.muli %r@P, %c128 : index
      %qo@P = arith.addi %qr@P, %jxo : index
      vector.store %qb@P, %qt[%qo@P] {alignment = 16} : memref<16384xi8, $SHM>, vector<16xi8>
)") + R"(      gpu.barrier
      // Transposed copy: 1024 runs of 16 bytes (output row kt, tile rows
      // 16q..16q+15), 8 threads (one warp quarter) per output row.
      %veccol = arith.constant $VECCOL
      scf.for %s = %c0 to %c4 step %c1 {
        %s256 = arith.muli %s, %c256 : index
        %idx = arith.addi %s256, %tid : index
        %kt = arith.divui %idx, %c8 : index
        %q = arith.remui %idx, %c8 : index
        %m16 = arith.muli %q, %c16 : index
        %kw = arith.divui %kt, %c16 : index
        %kl = arith.remui %kt, %c16 : index
        %kx = arith.xori %kw, %q : index
        %kxo = arith.muli %kx, %c16 : index
        %colb = arith.addi %kxo, %kl : index
        %gbase0 = arith.muli %m16, %c128 : index
        %gbase = arith.addi %gbase0, %colb : index
)";
    for (int e = 0; e < 16; ++e) {
      std::string n = std::to_string(e);
      text += "        %go" + n + " = arith.constant " + std::to_string(e * 128) +
              " : index\n        %ga" + n + " = arith.addi %gbase, %go" + n +
              " : index\n        %gv" + n + " = memref.load %qt[%ga" + n +
              "] : memref<16384xi8, $SHM>\n";
    }
    text += "        %col = vector.from_elements ";
    for (int e = 0; e < 16; ++e)
      text += (e ? ", %gv" : "%gv") + std::to_string(e);
    text += R"( : vector<16xi8>
        %gkt = arith.addi %k0, %kt : index
        %kok = arith.cmpi ult, %gkt, %ck : index
        %gmt = arith.addi %m0, %m16 : index
        %mend = arith.addi %gmt, %c16 : index
        %fullm = arith.cmpi ule, %mend, %cm : index
        %cv0 = arith.andi %kok, %fullm : i1
        %cv = arith.andi %cv0, %veccol : i1
        %crow = arith.muli %gkt, %cm : index
        %coff = arith.addi %crow, %gmt : index
        scf.if %cv {
          vector.store %col, %cdata[%coff] {alignment = 16} : memref<$Nxi8>, vector<16xi8>
        } else {
          scf.if %kok {
            scf.for %e = %c0 to %c16 step %c1 {
              %mm2 = arith.addi %gmt, %e : index
              %min = arith.cmpi ult, %mm2, %cm : index
              scf.if %min {
                %b = vector.extract %col[%e] : i8 from vector<16xi8>
                %co = arith.addi %crow, %mm2 : index
                memref.store %b, %cdata[%co] : memref<$Nxi8>
              }
            }
          }
        }
      }
)";
  }
  text += R"(      gpu.return
    }
)";
  // Constants the phases above share.
  std::string consts = R"(      %rsc = arith.constant $RSC : index
      %csc = arith.constant $CSC : index
      %cmpad = arith.constant $MPAD : index
      %ckpad = arith.constant $KPAD : index
      %nkb = arith.constant $NKB : index
      %nkbpad = arith.constant $NKBPAD : index
      %nkbm1 = arith.subi %nkb, %c1 : index
      %nmb = arith.constant $NMB : index
      %nmbpad = arith.constant $NMBPAD : index
      %nmbm1 = arith.subi %nmb, %c1 : index
      %vecrow = arith.constant $VECROW
      %sbase = arith.muli %bx, %rsc : index
)";
  size_t at = text.find("      %t0 = arith.cmpi eq, %tid, %c0 : index\n");
  text.insert(at, consts);
  return substitute(substitute(text, vars), vars);
}

//===----------------------------------------------------------------------===//
// MXFP8 (te-semantics.md §5.4)
//===----------------------------------------------------------------------===//

std::string mlir::teq::kernels::zeroBytesKernel(const std::string &name,
                                                int64_t bytes) {
  std::map<std::string, std::string> vars = {{"NAME", name},
                                             {"S", std::to_string(bytes)}};
  return substitute(R"(
    gpu.func @$NAME(%buf: memref<$Sxi8>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c256 = arith.constant 256 : index
      %cs = arith.constant $S : index
      %z = arith.constant 0 : i8
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %gd = gpu.grid_dim x
      %b0 = arith.muli %bid, %c256 : index
      %start = arith.addi %b0, %tid : index
      %stride = arith.muli %gd, %c256 : index
      scf.for %i = %start to %cs step %stride {
        memref.store %z, %buf[%i] : memref<$Sxi8>
      }
      gpu.return
    }
)",
                    vars);
}

namespace {

/// Lines computing the E8M0 code `%<p>e` (i32) and the multiplier `%<p>mul`
/// (f32) of the block amax `%<p>amax` (§5.4, TE's emulated float_to_e8m0
/// and exp2f_rcp).
std::string e8m0Code(const std::string &p, float maxNormRcp, bool hardware) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const char *n) { return "%" + p + n; };
  os << "      " << v("rcp") << " = arith.constant " << floatLiteral(maxNormRcp) << " : f32\n"
     << "      " << v("v") << " = arith.mulf " << v("amax") << ", " << v("rcp") << " : f32\n"
     << "      " << v("c23") << " = arith.constant 23 : i32\n"
     << "      " << v("cff") << " = arith.constant 255 : i32\n"
     << "      " << v("cfe") << " = arith.constant 254 : i32\n";
  if (hardware) {
    // Blackwell's round-up conversion, what TE's float_to_e8m0 emulates.
    os << "      " << v("hw") << " = nvvm.convert.f32x2.to.f8x2 " << v("v")
       << ", " << v("v")
       << " {rnd = #nvvm.fp_rnd_mode<rp>, sat = #nvvm.sat_mode<satfinite>} : "
          "i16 (f8E8M0FNU)\n"
       << "      " << v("hw32") << " = arith.extui " << v("hw")
       << " : i16 to i32\n"
       << "      " << v("e") << " = arith.andi " << v("hw32") << ", " << v("cff")
       << " : i32\n";
  } else {
    os << "      " << v("bits") << " = arith.bitcast " << v("v") << " : f32 to i32\n"
     << "      " << v("cmm") << " = arith.constant 8388607 : i32\n"
     << "      " << v("chalf") << " = arith.constant 4194304 : i32\n"
     << "      " << v("ci0") << " = arith.constant 0 : i32\n"
     << "      " << v("ci1") << " = arith.constant 1 : i32\n"
     << "      " << v("sh") << " = arith.shrui " << v("bits") << ", " << v("c23") << " : i32\n"
     << "      " << v("ex") << " = arith.andi " << v("sh") << ", " << v("cff") << " : i32\n"
     << "      " << v("man") << " = arith.andi " << v("bits") << ", " << v("cmm") << " : i32\n"
     << "      " << v("mpos") << " = arith.cmpi ugt, " << v("man") << ", " << v("ci0") << " : i32\n"
     << "      " << v("nfe") << " = arith.cmpi ne, " << v("ex") << ", " << v("cfe") << " : i32\n"
     << "      " << v("a1") << " = arith.andi " << v("mpos") << ", " << v("nfe") << " : i1\n"
     << "      " << v("ez") << " = arith.cmpi eq, " << v("ex") << ", " << v("ci0") << " : i32\n"
     << "      " << v("mle") << " = arith.cmpi ule, " << v("man") << ", " << v("chalf") << " : i32\n"
     << "      " << v("sub") << " = arith.andi " << v("ez") << ", " << v("mle") << " : i1\n"
     << "      " << v("true") << " = arith.constant true\n"
     << "      " << v("nsub") << " = arith.xori " << v("sub") << ", " << v("true") << " : i1\n"
     << "      " << v("inc") << " = arith.andi " << v("a1") << ", " << v("nsub") << " : i1\n"
     << "      " << v("incv") << " = arith.select " << v("inc") << ", " << v("ci1") << ", " << v("ci0") << " : i32\n"
     << "      " << v("e1") << " = arith.addi " << v("ex") << ", " << v("incv") << " : i32\n"
     << "      " << v("fz") << " = arith.constant 0.0 : f32\n"
     << "      " << v("finf") << " = arith.constant 0x7F800000 : f32\n"
     << "      " << v("isnan") << " = arith.cmpf uno, " << v("v") << ", " << v("v") << " : f32\n"
     << "      " << v("isinf") << " = arith.cmpf oeq, " << v("v") << ", " << v("finf") << " : f32\n"
     << "      " << v("iszero") << " = arith.cmpf oeq, " << v("v") << ", " << v("fz") << " : f32\n"
     << "      " << v("e2") << " = arith.select " << v("iszero") << ", " << v("ci0") << ", " << v("e1") << " : i32\n"
     << "      " << v("e3") << " = arith.select " << v("isinf") << ", " << v("cfe") << ", " << v("e2") << " : i32\n"
     << "      " << v("e") << " = arith.select " << v("isnan") << ", " << v("cff") << ", " << v("e3") << " : i32\n";
  }
  // exp2f_rcp
  os
     << "      " << v("rsub") << " = arith.subi " << v("cfe") << ", " << v("e") << " : i32\n"
     << "      " << v("rbits") << " = arith.shli " << v("rsub") << ", " << v("c23") << " : i32\n"
     << "      " << v("is254") << " = arith.cmpi eq, " << v("e") << ", " << v("cfe") << " : i32\n"
     << "      " << v("is255") << " = arith.cmpi eq, " << v("e") << ", " << v("cff") << " : i32\n"
     << "      " << v("c2m127") << " = arith.constant 4194304 : i32\n"
     << "      " << v("cnan") << " = arith.constant 2143289344 : i32\n"
     << "      " << v("rb1") << " = arith.select " << v("is254") << ", " << v("c2m127") << ", " << v("rbits") << " : i32\n"
     << "      " << v("rb2") << " = arith.select " << v("is255") << ", " << v("cnan") << ", " << v("rb1") << " : i32\n"
     << "      " << v("mul") << " = arith.bitcast " << v("rb2") << " : i32 to f32\n";
  return s;
}

/// `%<p>idx` (index) of scale S[%<p>i][%<p>j] in a buffer with `cols`
/// columns: compact row-major, or the 128x4 GEMM swizzle with
/// `numTilesX` tiles per 128-row band (te-semantics.md §4.2).
std::string scaleIndex(const std::string &p, bool swizzled, int64_t cols,
                       int64_t numTilesX) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const char *n) { return "%" + p + n; };
  if (!swizzled) {
    os << "      " << v("cols") << " = arith.constant " << cols << " : index\n"
       << "      " << v("r") << " = arith.muli " << v("i") << ", " << v("cols") << " : index\n"
       << "      " << v("idx") << " = arith.addi " << v("r") << ", " << v("j") << " : index\n";
    return s;
  }
  os << "      " << v("ntx") << " = arith.constant " << numTilesX << " : index\n"
     << "      " << v("k4") << " = arith.constant 4 : index\n"
     << "      " << v("k32") << " = arith.constant 32 : index\n"
     << "      " << v("k128") << " = arith.constant 128 : index\n"
     << "      " << v("k16") << " = arith.constant 16 : index\n"
     << "      " << v("k512") << " = arith.constant 512 : index\n"
     << "      " << v("ib") << " = arith.divui " << v("i") << ", " << v("k128") << " : index\n"
     << "      " << v("t0") << " = arith.muli " << v("ib") << ", " << v("ntx") << " : index\n"
     << "      " << v("jb") << " = arith.divui " << v("j") << ", " << v("k4") << " : index\n"
     << "      " << v("tile") << " = arith.addi " << v("t0") << ", " << v("jb") << " : index\n"
     << "      " << v("tb") << " = arith.muli " << v("tile") << ", " << v("k512") << " : index\n"
     << "      " << v("i32") << " = arith.remui " << v("i") << ", " << v("k32") << " : index\n"
     << "      " << v("o1") << " = arith.muli " << v("i32") << ", " << v("k16") << " : index\n"
     << "      " << v("i128") << " = arith.remui " << v("i") << ", " << v("k128") << " : index\n"
     << "      " << v("q") << " = arith.divui " << v("i128") << ", " << v("k32") << " : index\n"
     << "      " << v("o2") << " = arith.muli " << v("q") << ", " << v("k4") << " : index\n"
     << "      " << v("j4") << " = arith.remui " << v("j") << ", " << v("k4") << " : index\n"
     << "      " << v("s1") << " = arith.addi " << v("tb") << ", " << v("o1") << " : index\n"
     << "      " << v("s2") << " = arith.addi " << v("s1") << ", " << v("o2") << " : index\n"
     << "      " << v("idx") << " = arith.addi " << v("s2") << ", " << v("j4") << " : index\n";
  return s;
}

} // namespace

std::string mlir::teq::kernels::mxfp8Kernel(const MXFP8Spec &spec) {
  int64_t m = spec.rows, k = spec.cols;
  bool f32 = spec.input == InputType::F32;
  float rcp = static_cast<float>(1.0 / (spec.e5m2 ? 57344.0 : 448.0));
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_mxfp8"},
      {"N", std::to_string(m * k)},
      {"M", std::to_string(m)},
      {"K", std::to_string(k)},
      {"T", typeName(spec.input)},
      {"RS", std::to_string(spec.rowScaleRows * spec.rowScaleCols)},
      {"CS", std::to_string(spec.colScaleRows * spec.colScaleCols)},
      {"VECIN", k % 8 == 0 ? "true" : "false"},
      {"VECOUT", k % 16 == 0 ? "true" : "false"},
      {"SEXT", f32 ? "%xf = arith.addf %xs, %fnz : f32"
                   : "%xf = arith.extf %xs : $T to f32"},
      {"SHM", "#gpu.address_space<workgroup>"},
      // bf16 tiles fit 80 registers (tile data as raw bits): three blocks
      // (768 threads) per SM instead of two.
      {"MINCTA", spec.input == InputType::BF16 ? ", nvvm.minctasm = 3 : i32" : ""},
  };
  std::string args = "%x: memref<$Nx$T>";
  if (spec.rowwise)
    args += ", %rdata: memref<$Nxi8>, %rscale: memref<$RSxi8>";
  if (spec.columnwise)
    args += ", %cdata: memref<$Nxi8>, %cscale: memref<$CSxi8>";
  std::string wide, wideText = regTileWide(spec.input, wide);
  std::string wg;
  if (spec.twoD)
    wg = "%tpart: memref<32xf32, $SHM> {llvm.align = 16 : i64}";
  else if (spec.columnwise)
    wg = "%colpart: memref<1024xf32, $SHM> {llvm.align = 16 : i64}, "
         "%colmul: memref<512xf32, $SHM> {llvm.align = 16 : i64}";

  // The columnwise scale byte of column %<p>k (global) and 32-row group
  // starting at global row %cgm: S[m/32][k] compact, or the swizzle with
  // the column as the row index (as the reference lays it out); 0 in the
  // padding (%wc false). The tiles cover the padded scale buffers exactly,
  // so the kernel writes every scale byte: no zero-fill kernels.
  auto colScaleStore = [&](const std::string &e) {
    std::string s = R"(          %csi = arith.divui %cgm, %c32 : index
          %csj = arith.addi %cgk, %c0 : index
)";
    if (spec.swizzled)
      s += "          %csti = arith.addi %csj, %c0 : index\n"
           "          %cstj = arith.addi %csi, %c0 : index\n" +
           scaleIndex("cst", true, 0, spec.colScaleRows / 4) +
           "          %ceb0 = arith.trunci " + e + " : i32 to i8\n"
           "          %ceb = arith.select %wc, %ceb0, %i8z : i8\n"
           "          memref.store %ceb, %cscale[%cstidx] : memref<$CSxi8>\n";
    else
      s += scaleIndex("cs", false, spec.colScaleCols, 0) +
           "          %ceb0 = arith.trunci " + e + " : i32 to i8\n"
           "          %ceb = arith.select %wc, %ceb0, %i8z : i8\n"
           "          memref.store %ceb, %cscale[%csidx] : memref<$CSxi8>\n";
    return s;
  };

  // Layout (per 128x128 tile, one 256-thread block): the input is read once
  // into registers (kRegTilePrologue: warp w owns rows 16w..16w+15, so the
  // 32-row group of its rows is w / 2); both copies ([M,K]) are written
  // from registers with 16-byte stores. 1x32 blocks are two neighbouring
  // lanes (shuffle xor 1); 32x1 blocks are the 16 rows of a warp (shuffles
  // xor 8, 16) and its partner warp w ^ 1 (shared memory); 32x32 tiles both.
  std::string text = R"(
    gpu.func @$NAME()" + args + ")" +
                     (wg.empty() ? "" : "\n        workgroup(" + wg + ")") + R"(
        kernel attributes {known_block_size = array<i32: 256, 1, 1>$MINCTA} {
)" + std::string(kRegTilePrologue) + regTileLoads(spec.input) + R"(      %vecout = arith.constant $VECOUT
      %i8z = arith.constant 0 : i8
      %jpar = arith.remui %j, %c2 : index
      %jeven = arith.cmpi eq, %jpar, %c0 : index
      %kin0 = arith.cmpi ult, %gk, %ck : index
      %grp = arith.divui %warp, %c2 : index
      %wpar = arith.remui %warp, %c2 : index
      %weven = arith.cmpi eq, %wpar, %c0 : index
      %partner = arith.xori %warp, %c1 : index
)";

  if (spec.twoD) {
    // The 32x32 tile amax: thread (4 rows x 16 columns), lane pair (xor 1),
    // the warp's 16 rows (xor 8, 16), then the partner warp.
    text += perRow(rowPrep(spec.input)) + R"(      %tmr = vector.reduction <maxnumf>, %cmax3 : vector<16xf32> into f32
)" + shuffleMax("%tmr", "%tmw", "tw", {1, 8, 16}) + R"(      %jh = arith.divui %j, %c2 : index
      %tslot0 = arith.muli %warp, %c4 : index
      %tslot = arith.addi %tslot0, %jh : index
      %tw0 = arith.andi %writer, %jeven : i1
      scf.if %tw0 {
        memref.store %tmw, %tpart[%tslot] : memref<32xf32, $SHM>
      }
      gpu.barrier
      %pslot0 = arith.muli %partner, %c4 : index
      %pslot = arith.addi %pslot0, %jh : index
      %tmp = memref.load %tpart[%pslot] : memref<32xf32, $SHM>
      %txamax = arith.maxnumf %tmw, %tmp : f32
)" + e8m0Code("tx", rcp, spec.hardwareConversions) + R"(
      %txb = vector.broadcast %txmul : f32 to vector<16xf32>
)" + perRow(wideText + "      %qs@P = arith.mulf " + wide + ", %txb : vector<16xf32>\n" +
            packFP8Tagged("%qs@P", "%qb@P", "pq@P", spec.e5m2));
  }

  if (!spec.twoD) {
    // Before the barrier: the column maxima first, then the rowwise data
    // (the row phase widens the raw bits again), one row at a time each.
    text += perRow(rowPrep(spec.input));
    if (spec.columnwise)
      text += columnPartialStores("%cmax3", "%wbase", "%colpart",
                                  "memref<1024xf32, $SHM>");
  }
  if (spec.rowwise) {
    std::string rowCode;
    std::string bytes = "%qb@P", e = "%txe";
    if (!spec.twoD) {
      std::string rwide, rwideText = regTileWide(spec.input, rwide, "r");
      rowCode = rwideText + "      %rab@P = math.absf " + rwide + R"( : vector<16xf32>
      %hm@P = vector.reduction <maxnumf>, %rab@P : vector<16xf32> into f32
)" + shuffleMax("%hm@P", "%rx@Pamax", "rh@P", {1}) + e8m0Code("rx@P", rcp, spec.hardwareConversions) +
                R"(      %rxb@P = vector.broadcast %rx@Pmul : f32 to vector<16xf32>
      %rq@P = arith.mulf )" + rwide + R"(, %rxb@P : vector<16xf32>
)" + packFP8Tagged("%rq@P", "%rb@P", "pr@P", spec.e5m2);
      bytes = "%rb@P";
      e = "%rx@Pe";
    }
    // Every even lane writes its row's scale byte (0 in the padding).
    rowCode += regTileRowStore(bytes, "rdata", "%vecout") + R"(      %ws@P = arith.andi %rowok@P, %kin0 : i1
      scf.if %jeven {
        %rsi = arith.addi %gm@P, %c0 : index
        %rsj = arith.divui %gk, %c32 : index
)" + scaleIndex("rs", spec.swizzled, spec.rowScaleCols, spec.rowScaleCols / 4) +
               R"(
        %eb0 = arith.trunci )" + e + R"( : i32 to i8
        %eb = arith.select %ws@P, %eb0, %i8z : i8
        memref.store %eb, %rscale[%rsidx] : memref<$RSxi8>
      }
)";
    text += perRow(rowCode);
  }

  if (spec.columnwise && spec.twoD) {
    text += perRow(regTileRowStore("%qb@P", "cdata", "%vecout")) + R"(      %cw = arith.andi %writer, %weven : i1
      scf.if %cw {
        %g32 = arith.muli %grp, %c32 : index
        %cgm = arith.addi %m0, %g32 : index
        %gok = arith.cmpi ult, %cgm, %cm : index
        scf.for %e = %c0 to %c16 step %c1 {
          %cgk = arith.addi %gk, %e : index
          %kin = arith.cmpi ult, %cgk, %ck : index
          %wc = arith.andi %kin, %gok : i1
)" + colScaleStore("%txe") + R"(        }
      }
)";
  } else if (spec.columnwise) {
    text += R"(      gpu.barrier
      // Exponent and multiplier of each (32-row group, column): two a thread.
      scf.for %qq = %c0 to %c2 step %c1 {
        %qo = arith.muli %qq, %c256 : index
        %qi = arith.addi %tid, %qo : index
        %qp = arith.divui %qi, %c128 : index
        %qc = arith.remui %qi, %c128 : index
        %qw0 = arith.muli %qp, %c256 : index
        %qa = arith.addi %qw0, %qc : index
        %qb = arith.addi %qa, %c128 : index
        %pa = memref.load %colpart[%qa] : memref<1024xf32, $SHM>
        %pb = memref.load %colpart[%qb] : memref<1024xf32, $SHM>
        %cqamax = arith.maxnumf %pa, %pb : f32
)" + e8m0Code("cq", rcp, spec.hardwareConversions) + R"(
        memref.store %cqmul, %colmul[%qi] : memref<512xf32, $SHM>
        %cgk = arith.addi %k0, %qc : index
        %r32 = arith.muli %qp, %c32 : index
        %cgm = arith.addi %m0, %r32 : index
        %kin = arith.cmpi ult, %cgk, %ck : index
        %gok = arith.cmpi ult, %cgm, %cm : index
        %wc = arith.andi %kin, %gok : i1
)" + colScaleStore("%cqe") + R"(      }
      gpu.barrier
      %mg = arith.muli %grp, %c128 : index
      %mi = arith.addi %mg, %c : index
      %mulv = vector.load %colmul[%mi] {alignment = 16} : memref<512xf32, $SHM>, vector<16xf32>
)" + perRow(wideText + "      %cq@P = arith.mulf " + wide + ", %mulv : vector<16xf32>\n" +
            packFP8Tagged("%cq@P", "%cb@P", "pc@P", spec.e5m2) +
            regTileRowStore("%cb@P", "cdata", "%vecout"));
  }
  text += R"(      gpu.return
    }
)";
  return substitute(substitute(text, vars), vars);
}

//===----------------------------------------------------------------------===//
// Delayed-scaling update (te-semantics.md §5.2)
//===----------------------------------------------------------------------===//

std::string mlir::teq::kernels::delayedScalingUpdateKernel(
    const std::string &name, int64_t slots, int64_t length, float fp8Max,
    int64_t margin, bool mostRecent) {
  std::map<std::string, std::string> vars = {
      {"NAME", name},
      {"S", std::to_string(slots)},
      {"L", std::to_string(length)},
      {"LS", std::to_string(slots * length)},
      {"SMAX", floatLiteral(std::ldexp(fp8Max, -static_cast<int>(margin)))},
      {"ALGO", mostRecent ? "%last" : "%wmax0"},
  };
  return substitute(R"(
    gpu.func @$NAME(%scale: memref<$Sxf32>, %hist: memref<$LSxf32>,
                    %nscale: memref<$Sxf32>, %nhist: memref<$LSxf32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cs = arith.constant $S : index
      %cl = arith.constant $L : index
      %fz = arith.constant 0.0 : f32
      %inf = arith.constant 0x7F800000 : f32
      %fltmax = arith.constant 0x7F7FFFFF : f32
      %smax = arith.constant $SMAX : f32
      %tid = gpu.thread_id x
      scf.for %s = %tid to %cs step %c256 {
        %last = memref.load %hist[%s] : memref<$LSxf32>
        // NaN counts as non-zero, as in the C++ `last != 0`.
        %lnz = arith.cmpf une, %last, %fz : f32
        %wmax = scf.for %l = %c0 to %cl step %c1 iter_args(%wm = %fz) -> f32 {
          %lp1 = arith.addi %l, %c1 : index
          %inr = arith.cmpi ult, %lp1, %cl : index
          %a = scf.if %inr -> f32 {
            %ni = arith.muli %lp1, %cs : index
            %nidx = arith.addi %ni, %s : index
            %nv = memref.load %hist[%nidx] : memref<$LSxf32>
            scf.yield %nv : f32
          } else {
            scf.yield %last : f32
          }
          %wm2 = arith.maxnumf %wm, %a : f32
          %oi = arith.muli %l, %cs : index
          %oidx = arith.addi %oi, %s : index
          %old = memref.load %hist[%oidx] : memref<$LSxf32>
          %lgt0 = arith.cmpi ugt, %l, %c0 : index
          %rolled = arith.select %lgt0, %a, %fz : f32
          %new = arith.select %lnz, %rolled, %old : f32
          memref.store %new, %nhist[%oidx] : memref<$LSxf32>
          scf.yield %wm2 : f32
        }
        %wmax0 = arith.select %lnz, %wmax, %fz : f32
        %amax = arith.addf $ALGO, %fz : f32
        %absamax = math.absf %amax : f32
        %finite = arith.cmpf olt, %absamax, %inf : f32
        %pos = arith.cmpf ogt, %amax, %fz : f32
        %use = arith.andi %finite, %pos : i1
        %olds = memref.load %scale[%s] : memref<$Sxf32>
        %q = arith.divf %smax, %amax : f32
        %sc0 = arith.select %use, %q, %olds : f32
        %abssc = math.absf %sc0 : f32
        %scinf = arith.cmpf oeq, %abssc, %inf : f32
        %sc = arith.select %scinf, %fltmax, %sc0 : f32
        memref.store %sc, %nscale[%s] : memref<$Sxf32>
      }
      gpu.return
    }
)",
                    vars);
}

//===----------------------------------------------------------------------===//
// NVFP4 (te-semantics.md §5.5, §4.4)
//===----------------------------------------------------------------------===//

namespace {

/// Side of the square tile of the NVFP4 data kernels (one a block).
constexpr int64_t kNVFP4Tile = 64;

/// Lines loading element `elem` of copy row `row` as f32 `%<p>v`. The
/// rowwise copy is x itself; the columnwise copy is x^T, so its row r,
/// element e is x[e][r]. From x itself (row length %ck), or with `tile`
/// from the 64x64 tile staged in workgroup memory `%tile` (x[m0 + i][k0 +
/// j] at i * 64 + j; `row` and `elem` then local to the tile).
std::string elementLoad(const std::string &p, const std::string &row,
                        const std::string &elem, bool columnwise, bool f32,
                        bool tile) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const char *n) { return "%" + p + n; };
  const char *stride = tile ? "%c64" : "%ck";
  const std::string &outer = columnwise ? elem : row;
  const std::string &inner = columnwise ? row : elem;
  os << "          " << v("a0") << " = arith.muli " << outer << ", " << stride << " : index\n"
     << "          " << v("ad") << " = arith.addi " << v("a0") << ", " << inner << " : index\n";
  if (tile)
    os << "          " << v("x") << " = memref.load %tile[" << v("ad")
       << "] : memref<4096x$T, #gpu.address_space<workgroup>>\n";
  else
    os << "          " << v("x") << " = memref.load %x[" << v("ad") << "] : memref<$Nx$T>\n";
  if (f32)
    os << "          " << v("v") << " = arith.addf " << v("x") << ", %fnz : f32\n";
  else
    os << "          " << v("v") << " = arith.extf " << v("x") << " : $T to f32\n";
  return s;
}

/// elementLoad from the staged tile.
std::string tileLoad(const std::string &p, const std::string &row,
                     const std::string &elem, bool columnwise, bool f32) {
  return elementLoad(p, row, elem, columnwise, f32, /*tile=*/true);
}

/// Lines of the magnitude part of e2m1Code: the f32 pattern `%<p>m6` of
/// 2^23 + the code of |s| = `a` in its low three bits (see e2m1Code).
/// Without `saturate` the caller guarantees |s| < 7 (no NaN): the piece
/// |s| / 2 + 4 then rounds to at most 7 by itself, and the min with 7 goes.
std::string e2m1Magnitude(const std::string &p, const std::string &a,
                          bool saturate = true) {
  auto v = [&](const std::string &n) { return "%" + p + n; };
  const char *in = "            ";
  std::string s;
  llvm::raw_string_ostream os(s);
  // 2|s| and |s| / 2 are exact (a subnormal's half rounds, but far below
  // any bound), so a fused multiply-add (contract: LLVM forms fma.rn) rounds
  // like the separate add; math.fma would be a libdevice call.
  os << in << v("q1") << " = arith.mulf " << a << ", %e2m1two fastmath<contract> : f32\n"
     << in << v("p1") << " = arith.addf " << v("q1") << ", %e2m1m0 fastmath<contract> : f32\n"
     << in << v("p2") << " = arith.addf " << a << ", %e2m1m2 : f32\n"
     << in << v("q3") << " = arith.mulf " << a << ", %e2m1half fastmath<contract> : f32\n"
     << in << v("p3") << " = arith.addf " << v("q3") << ", %e2m1m4 fastmath<contract> : f32\n"
     // NaN-ignoring min as a reduction (native min.f32; arith.minnumf
     // would be a libdevice call).
     << in << v("pv") << " = vector.from_elements " << v("p1") << ", " << v("p2") << ", " << v("p3") << " : vector<3xf32>\n"
     << in << v("pm") << " = vector.reduction <minnumf>, " << v("pv")
     << (saturate ? ", %e2m1m7" : "") << " : vector<3xf32> into f32\n"
     << in << v("m6") << " = arith.bitcast " << v("pm") << " : f32 to i32\n";
  return s;
}

/// Lines rounding f32 `%<p>s` to the E2M1 nibble `%<p>n` (i32): RNE with
/// saturation to ±6 (te-semantics.md §3), NaN to 0x7, ties to the even
/// code. Only the nibble's bits of `%<p>n` are defined (callers pack).
std::string e2m1Code(const std::string &p, const std::string &absValue = "",
                     const std::string &signSource = "", bool hardware = false,
                     bool rawSign = false) {
  // The code is round-to-nearest-even of g(|s|) = min(2|s|, |s| + 2,
  // |s| / 2 + 4) to an integer, saturated at 7: g maps the E2M1 grid 0,
  // 0.5, 1, 1.5, 2, 3, 4, 6 onto 0..7 and is linear between neighbours, so
  // its integer ties are E2M1's ties, the even code included. Rounding is
  // monotonic, so the min of the three pieces' rounded values is the
  // rounded min. Each piece rounds exactly in one f32 operation: with
  // M = 2^23 (ulp 1), M + k + y (y = 2|s|, |s|, |s| / 2: exact scalings)
  // is M + k + RNE(y) for y < 2^23, larger pieces lose the min to M + 7,
  // and NaN loses every minnum (NaN -> 7). M's low 23 bits are zero, so
  // the min's pattern has the code in its low bits, and the callers' nibble
  // packing keeps only those. Checked equal to the seven comparisons (sign
  // and NaN included) for all 2^32 patterns of s.
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const std::string &n) { return "%" + p + n; };
  const char *in = "            ";
  if (hardware) {
    // Blackwell's cvt.rn.satfinite.e2m1x2 of the signed value %<p>s (the
    // low nibble holds the second operand), as TE's kernels convert there.
    os << in << v("hw") << " = nvvm.convert.f32x2.to.f4x2 " << v("s") << ", "
       << v("s") << " : i8 (f4E2M1FN)\n"
       << in << v("hw32") << " = arith.extui " << v("hw") << " : i8 to i32\n"
       << in << v("n") << " = arith.andi " << v("hw32") << ", %i15 : i32\n";
    return s;
  }
  // |s| (given as `absValue` where the caller has it: |x| * enc, exactly
  // |x * enc| for enc > 0), and the sign of s from `signSource` (x: the
  // same sign, enc being positive and finite).
  std::string a = absValue.empty() ? v("a") : absValue;
  std::string sign = signSource.empty() ? v("s") : signSource;
  if (absValue.empty())
    os << in << v("a") << " = math.absf " << v("s") << " : f32\n";
  os << e2m1Magnitude(p, a);
  if (rawSign) {
    // The block has no NaN: bit 3 is the sign bit, moved by integer
    // multiplies (pattern * 2 high word, then * 8) with the opaque
    // constants %e2m1u2 / %e2m1u8: LLVM keeps them multiplies, which run
    // beside the min.f32s (shifts and selects would queue with them).
    os << in << v("bits") << " = arith.bitcast " << sign << " : f32 to i32\n"
       << in << v("slo") << ", " << v("shi") << " = arith.mului_extended " << v("bits") << ", %e2m1u2 : i32\n"
       << in << v("sg") << " = arith.muli " << v("shi") << ", %e2m1u8 : i32\n"
       << in << v("n") << " = arith.addi " << v("m6") << ", " << v("sg") << " : i32\n";
    return s;
  }
  // NaN is 0x7 whatever its sign: its magnitude code is 7 already, and
  // bit 3 is set for negative non-NaN values only (-0 to -inf: pattern -
  // 2^31 in [0, 0x7F800000]).
  os << "            " << v("bits") << " = arith.bitcast " << sign << " : f32 to i32\n"
     << "            " << v("sgo") << " = arith.subi " << v("bits") << ", %e2m1smin : i32\n"
     << "            " << v("sneg") << " = arith.cmpi ule, " << v("sgo") << ", %e2m1sinf : i32\n"
     << "            " << v("sg") << " = arith.select " << v("sneg") << ", %i8, %i0 : i32\n"
     << "            " << v("n") << " = arith.ori " << v("m6") << ", " << v("sg") << " : i32\n";
  return s;
}

/// Lines packing a NaN-free block's 16 values, all with |x * enc| < 7,
/// into its eight E2M1 bytes `%ubytes` (vector<8xi8>): the fast path of
/// the NVFP4 data kernel. `absVal(i)` / `val(i)` name |x_i| and x_i (f32);
/// needs %enc, the opaque multiplier %e2m1u16 and the permute constants.
/// Each half block is one word W + S: W = sum over j of m_j 16^j with m_j
/// the pattern of e2m1Magnitude (2^23 + code: the codes land in nibble j,
/// 2^23's bits only in the top byte, as 0xFB000000 in all), a Horner chain
/// of multiply-adds by the opaque 16, which LLVM keeps as IMADs beside the
/// min.f32s; S = the sign bits at bit 3 of each nibble, gathered by byte
/// permutes (below).
std::string e2m1FastBytes(const std::function<std::string(int)> &absVal,
                          const std::function<std::string(int)> &val) {
  std::string s;
  for (int i = 0; i < 16; ++i) {
    std::string p = "fq" + std::to_string(i);
    s += "            %" + p + "a = arith.mulf " + absVal(i) + ", %enc : f32\n" +
         e2m1Magnitude(p, "%" + p + "a", /*saturate=*/false) +
         "            %" + p + "bits = arith.bitcast " + val(i) + " : f32 to i32\n";
  }
  // A half block's sign bits by byte permutes: the top bytes (sign in bit
  // 7) of elements (0, 2) and (4, 6), then of (1, 3) and (5, 7), side by
  // side; then each group of four as sign-replicated bytes (0x00 / 0xFF),
  // masked to bit 3 (even elements, the low nibbles) or bit 7 (odd): six
  // permutes and two logic operations for eight elements, where a mul.hi
  // and a multiply-add each took sixteen.
  auto prmt = [](const std::string &d, const char *sel, const std::string &a,
                 const std::string &b) {
    return "            " + d + " = nvvm.prmt <default> " + sel + ", " + a +
           ", " + b + " : i32\n";
  };
  for (int w = 0; w < 2; ++w) {
    std::string last = std::to_string(8 * w + 7);
    std::string mags = "%fq" + last + "m6";
    for (int j = 6; j >= 0; --j) {
      std::string q = "%fw" + std::to_string(w) + "_" + std::to_string(j);
      std::string e = std::to_string(8 * w + j);
      s += "            " + q + "ms = arith.muli " + mags + ", %e2m1u16 : i32\n" +
           "            " + q + "m = arith.addi " + q + "ms, %fq" + e + "m6 : i32\n";
      mags = q + "m";
    }
    std::string wn = "%fw" + std::to_string(w);
    auto bits = [&](int j) {
      return "%fq" + std::to_string(8 * w + j) + "bits";
    };
    s += prmt(wn + "e0", "%e2m1top2", bits(0), bits(2)) +
         prmt(wn + "e1", "%e2m1top2", bits(4), bits(6)) +
         prmt(wn + "o0", "%e2m1top2", bits(1), bits(3)) +
         prmt(wn + "o1", "%e2m1top2", bits(5), bits(7)) +
         prmt(wn + "ev", "%e2m1sign4", wn + "e0", wn + "e1") +
         prmt(wn + "od", "%e2m1sign4", wn + "o0", wn + "o1") +
         "            " + wn + "evm = arith.andi " + wn +
         "ev, %e2m1evmask : i32\n" +
         "            " + wn + "odm = arith.andi " + wn +
         "od, %e2m1odmask : i32\n" +
         "            " + wn + "s8 = arith.ori " + wn + "evm, " + wn +
         "odm : i32\n";
    s += "            " + wn + "a = arith.addi " + mags + ", " + wn + "s8 : i32\n" +
         // Less 0xFB000000: the words' pattern bits of 2^23.
         "            " + wn + " = arith.addi " + wn + "a, %e2m1wfix : i32\n";
  }
  s += "            %uwords = vector.from_elements %fw0, %fw1 : vector<2xi32>\n"
       "            %ubytes = vector.bitcast %uwords : vector<2xi32> to vector<8xi8>\n";
  return s;
}

/// Signed decimal spelling of a 32-bit pattern (i32 constants are signed).
std::string i32Literal(uint32_t bits) {
  return std::to_string(static_cast<int32_t>(bits));
}

/// Kernel-level lines of stochastic rounding (Random.h): the Philox key
/// schedule from the seed, %pk0_<r> / %pk1_<r> for rounds r = 0..9, the
/// counter's high words %po0 / %po1 from the offset (offset ^ 2^63 for the
/// columnwise copy: its own stream), the multipliers and the constants of
/// sr rounding. Reads %rng (memref<2xi64>: seed, offset).
std::string philoxSetupLines(bool columnwise) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "      %rngseed = memref.load %rng[%c0] : memref<2xi64>\n"
     << "      %rngoff0 = memref.load %rng[%c1] : memref<2xi64>\n"
     << "      %rngbit = arith.constant "
     << (columnwise ? "-9223372036854775808" : "0") << " : i64\n"
     << "      %rngoff = arith.xori %rngoff0, %rngbit : i64\n"
     << "      %srl32 = arith.constant 32 : i64\n"
     << "      %srl0 = arith.constant 0 : i64\n"
     << "      %srl1 = arith.constant 1 : i64\n"
     << "      %srl2 = arith.constant 2 : i64\n"
     << "      %srl3 = arith.constant 3 : i64\n"
     << "      %pk0_0 = arith.trunci %rngseed : i64 to i32\n"
     << "      %rngseedhi = arith.shrui %rngseed, %srl32 : i64\n"
     << "      %pk1_0 = arith.trunci %rngseedhi : i64 to i32\n"
     << "      %po0 = arith.trunci %rngoff : i64 to i32\n"
     << "      %rngoffhi = arith.shrui %rngoff, %srl32 : i64\n"
     << "      %po1 = arith.trunci %rngoffhi : i64 to i32\n"
     << "      %pm0 = arith.constant " << i32Literal(0xD2511F53u) << " : i32\n"
     << "      %pm1 = arith.constant " << i32Literal(0xCD9E8D57u) << " : i32\n"
     << "      %pw0 = arith.constant " << i32Literal(0x9E3779B9u) << " : i32\n"
     << "      %pw1 = arith.constant " << i32Literal(0xBB67AE85u) << " : i32\n";
  // Random123's key bump before every round but the first.
  for (int r = 1; r < 10; ++r)
    os << "      %pk0_" << r << " = arith.addi %pk0_" << r - 1 << ", %pw0 : i32\n"
       << "      %pk1_" << r << " = arith.addi %pk1_" << r - 1 << ", %pw1 : i32\n";
  os << "      %srhalf = arith.constant 0.5 : f32\n"
     << "      %srtwo = arith.constant 2.0 : f32\n"
     << "      %srfour = arith.constant 4.0 : f32\n"
     << "      %srsix = arith.constant 6.0 : f32\n"
     << "      %srtwo32 = arith.constant 4294967296.0 : f64\n"
     << "      %srsign = arith.constant " << i32Literal(0x80000000u)
     << " : i32\n";
  return s;
}

/// Lines evaluating Philox4x32-10 on the counter {lo, hi of the i64
/// `block`, %po0, %po1} with the key schedule of philoxSetupLines; the four
/// words are `%<p>w0`..`%<p>w3`. The 32x32->64 products are
/// arith.mului_extended (mul.lo / mul.hi).
std::string philoxLines(const std::string &p, const std::string &block) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const std::string &n) { return "%" + p + n; };
  os << "            " << v("c0_0") << " = arith.trunci " << block
     << " : i64 to i32\n"
     << "            " << v("bh") << " = arith.shrui " << block
     << ", %srl32 : i64\n"
     << "            " << v("c1_0") << " = arith.trunci " << v("bh")
     << " : i64 to i32\n";
  std::string c0 = v("c0_0"), c1 = v("c1_0"), c2 = "%po0", c3 = "%po1";
  for (int r = 0; r < 10; ++r) {
    std::string t = std::to_string(r);
    std::string lo0 = v("lo0_" + t), hi0 = v("hi0_" + t);
    std::string lo1 = v("lo1_" + t), hi1 = v("hi1_" + t);
    os << "            " << lo0 << ", " << hi0 << " = arith.mului_extended %pm0, "
       << c0 << " : i32\n"
       << "            " << lo1 << ", " << hi1 << " = arith.mului_extended %pm1, "
       << c2 << " : i32\n"
       << "            " << v("x0_" + t) << " = arith.xori " << hi1 << ", " << c1
       << " : i32\n"
       << "            " << v("n0_" + t) << " = arith.xori " << v("x0_" + t)
       << ", %pk0_" << r << " : i32\n"
       << "            " << v("x2_" + t) << " = arith.xori " << hi0 << ", " << c3
       << " : i32\n"
       << "            " << v("n2_" + t) << " = arith.xori " << v("x2_" + t)
       << ", %pk1_" << r << " : i32\n";
    c0 = v("n0_" + t);
    c1 = lo1;
    c2 = v("n2_" + t);
    c3 = lo0;
  }
  // Aliases for the result words (folded away by canonicalization).
  const std::string words[] = {c0, c1, c2, c3};
  for (int w = 0; w < 4; ++w)
    os << "            " << v("w" + std::to_string(w)) << " = arith.addi "
       << words[w] << ", %i0 : i32\n";
  return s;
}

/// Lines rounding f32 `%<p>s` to the E2M1 nibble `%<p>rn` (i32)
/// stochastically with the random word `random` (i32), exactly as
/// floatToE2M1Stochastic (Numerics.h): for |x| < 6 between the adjacent
/// grid points lo <= |x| < hi = lo + step, hi iff frac * 2^32 > random with
/// frac = (|x| - lo) / step (exact in fp32; compared exactly in f64), the
/// sign of x kept; NaN and |x| >= 6 go through the RN rounding, which
/// gives what SR defines for them (0x7, +-6).
std::string e2m1StochasticCode(const std::string &p, const std::string &random) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto v = [&](const std::string &n) { return "%" + p + n; };
  const char *in = "            ";
  os << in << v("a") << " = math.absf " << v("s") << " : f32\n"
     << in << v("fin") << " = arith.cmpf olt, " << v("a") << ", %srsix : f32\n"
     << in << v("at") << " = arith.select " << v("fin") << ", " << v("a") << ", %fz : f32\n"
     << in << v("lt2") << " = arith.cmpf olt, " << v("at") << ", %srtwo : f32\n"
     << in << v("lt4") << " = arith.cmpf olt, " << v("at") << ", %srfour : f32\n"
     << in << v("st4") << " = arith.select " << v("lt4") << ", %fone, %srtwo : f32\n"
     << in << v("step") << " = arith.select " << v("lt2") << ", %srhalf, " << v("st4") << " : f32\n"
     << in << v("is4") << " = arith.select " << v("lt4") << ", %fone, %srhalf : f32\n"
     << in << v("istep") << " = arith.select " << v("lt2") << ", %srtwo, " << v("is4") << " : f32\n"
     // floor(|x| / step): a power-of-two scaling, then truncation (>= 0).
     << in << v("u") << " = arith.mulf " << v("at") << ", " << v("istep") << " : f32\n"
     << in << v("ui") << " = arith.fptoui " << v("u") << " : f32 to i32\n"
     << in << v("uf") << " = arith.uitofp " << v("ui") << " : i32 to f32\n"
     << in << v("lo") << " = arith.mulf " << v("uf") << ", " << v("step") << " : f32\n"
     << in << v("hi") << " = arith.addf " << v("lo") << ", " << v("step") << " : f32\n"
     << in << v("d") << " = arith.subf " << v("at") << ", " << v("lo") << " : f32\n"
     << in << v("fr") << " = arith.mulf " << v("d") << ", " << v("istep") << " : f32\n"
     << in << v("frd") << " = arith.extf " << v("fr") << " : f32 to f64\n"
     << in << v("frs") << " = arith.mulf " << v("frd") << ", %srtwo32 : f64\n"
     << in << v("rd") << " = arith.uitofp " << random << " : i32 to f64\n"
     << in << v("up") << " = arith.cmpf ogt, " << v("frs") << ", " << v("rd") << " : f64\n"
     << in << v("mag") << " = arith.select " << v("up") << ", " << v("hi") << ", " << v("lo") << " : f32\n"
     << in << v("mb") << " = arith.bitcast " << v("mag") << " : f32 to i32\n"
     << in << v("xb") << " = arith.bitcast " << v("s") << " : f32 to i32\n"
     << in << v("sb") << " = arith.andi " << v("xb") << ", %srsign : i32\n"
     << in << v("smb") << " = arith.ori " << v("mb") << ", " << v("sb") << " : i32\n"
     << in << v("sv") << " = arith.bitcast " << v("smb") << " : i32 to f32\n"
     << in << v("rs") << " = arith.select " << v("fin") << ", " << v("sv") << ", " << v("s") << " : f32\n";
  // The chosen value is on the grid (or NaN / saturating): RN encodes it.
  return s + e2m1Code(p + "r");
}

/// The random Hadamard transform of the 16 f32 values `v` (x's values,
/// widened) in the exact order of Hadamard.h: `%<p>t<i>` (f32,
/// BF16-rounded), their magnitudes as `%<p>tv` (vector<16xf32>) and, with
/// `amaxReduction`, their NaN-ignoring amax `%<p>amax`. `f32`: x is f32.
/// Needs %fq / %fqn (+-0.25) and %fz.
std::string rhtTransformLines(const std::string &p,
                              const std::vector<std::string> &v, bool f32,
                              bool amaxReduction) {
  std::string s;
  llvm::raw_string_ostream os(s);
  constexpr int n = mlir::teq::reference::kRHTSize;
  auto negated = [](int i) {
    return (mlir::teq::reference::kRHTSignMask >> i) & 1u;
  };
  // (s[i] * v[i]) * 0.25 is exact for 16-bit inputs (even for their
  // subnormals: f32 has 16 more exponent steps below), so the first stage
  // takes the odd elements' products inside fused multiply-adds: the same
  // roundings, one multiply fewer a pair. f32 inputs can lose bits to
  // subnormal products: they multiply first.
  const bool fuseOdd = !f32;
  std::vector<std::string> a(n);
  for (int i = 0; i < n; ++i) {
    if (fuseOdd && (i & 1))
      continue;
    // The sign is the multiplier's: s[i] * 0.25 is +-0.25 exactly.
    a[i] = "%" + p + "a0_" + std::to_string(i);
    os << "          " << a[i] << " = arith.mulf " << v[i] << ", "
       << (negated(i) ? "%fqn" : "%fq") << " : f32\n";
  }
  int stage = 1;
  for (int h = 1; h < n; h <<= 1, ++stage) {
    std::vector<std::string> next = a;
    for (int j = 0; j < n; ++j) {
      if (j & h)
        continue;
      std::string sum = "%" + p + "a" + std::to_string(stage) + "_" +
                        std::to_string(j);
      std::string diff = "%" + p + "a" + std::to_string(stage) + "_" +
                         std::to_string(j + h);
      if (h == 1 && fuseOdd) {
        // fma(v, +-0.25, a) and fma(v, -+0.25, a): contract lets LLVM fuse
        // the exact product into both.
        std::string prod = "%" + p + "a0_" + std::to_string(j + 1);
        os << "          " << prod << " = arith.mulf " << v[j + 1] << ", "
           << (negated(j + 1) ? "%fqn" : "%fq") << " fastmath<contract> : f32\n"
           << "          " << sum << " = arith.addf " << a[j] << ", " << prod
           << " fastmath<contract> : f32\n"
           << "          " << diff << " = arith.subf " << a[j] << ", " << prod
           << " fastmath<contract> : f32\n";
      } else {
        os << "          " << sum << " = arith.addf " << a[j] << ", "
           << a[j + h] << " : f32\n"
           << "          " << diff << " = arith.subf " << a[j] << ", "
           << a[j + h] << " : f32\n";
      }
      next[j] = sum;
      next[j + h] = diff;
    }
    a = next;
  }
  // amax: max(0, max |t_i|) (NaN-ignoring, so in any order: a tree). The 0
  // is the reduction's accumulator: a native max.f32 with 0, which gives 0
  // for a block of NaNs. Not max(0, .) as a compare and select after the
  // reduction: LLVM turns that into `setp.ge r, 0; selp`, and ptxas drops
  // the select as always true for a max of |.| (NaN ignored), leaving NaN:
  // scale 448 where the reference has 0 (an all-NaN block after the RHT of
  // one NaN input). test/Tools/ptxas-nan-max.mlir checks ptxas keeps it.
  // The BF16 roundings go two at a time (cvt.rn.bf16x2.f32; a plain
  // truncf stays one cvt each), widened back by placing each half in the
  // upper 16 bits.
  std::string elems;
  for (int i = 0; i < n; i += 2) {
    std::string t0 = "%" + p + "t" + std::to_string(i);
    std::string t1 = "%" + p + "t" + std::to_string(i + 1);
    std::string w = "%" + p + "tw" + std::to_string(i);
    os << "          " << w << "h = nvvm.convert.f32x2.to.bf16x2 " << a[i + 1]
       << ", " << a[i] << " {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xbf16>\n"
       << "          " << w << "lo = vector.extract " << w << "h[0] : bf16 from vector<2xbf16>\n"
       << "          " << w << "hi = vector.extract " << w << "h[1] : bf16 from vector<2xbf16>\n"
       << "          " << t0 << " = arith.extf " << w << "lo : bf16 to f32\n"
       << "          " << t1 << " = arith.extf " << w << "hi : bf16 to f32\n";
  }
  for (int i = 0; i < n; ++i) {
    std::string t = "%" + p + "t" + std::to_string(i);
    os << "          " << t << "abs = math.absf " << t << " : f32\n";
    elems += (i ? ", " : "") + t + "abs";
  }
  os << "          %" << p << "tv = vector.from_elements " << elems
     << " : vector<16xf32>\n";
  if (amaxReduction)
    os << "          %" << p << "amax = vector.reduction <maxnumf>, %" << p
       << "tv, %fz : vector<16xf32> into f32\n";
  return s;
}

/// Lines of the RHT amax pass's transform of 16-bit values v[0..15] without
/// the 0.25 and without the BF16 roundings: the butterfly of rht16F32 on the
/// plain values, and %<p>amax = max(0, max |t_i|) of its outputs. Both
/// omissions are exact for the amax when max |v_i| < 2^123:
/// - the scaled butterfly's values are exactly 0.25 times these: the
///   scaling commutes with every f32 rounding because no value overflows
///   (|t| <= 16 max |v| < 2^127) and every value is a multiple of 2^-133
///   (16-bit inputs), so scaled by 0.25 it stays one of 2^-135, which f32
///   represents exactly below 2^-126;
/// - the reference's max |round_bf16(t_i)| is round_bf16(max |t_i|): the
///   rounding is monotonic and odd.
/// So the transformed copy's amax is round_bf16(0.25 * %<p>amax); the pass
/// checks the bound on the plain amax it computes anyway.
std::string rhtUnscaledAmaxLines(const std::string &p,
                                 const std::vector<std::string> &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  constexpr int n = mlir::teq::reference::kRHTSize;
  auto negated = [](int i) {
    return (mlir::teq::reference::kRHTSignMask >> i) & 1u;
  };
  // Each value is (name, negated): the signs s_i and the ones the stages
  // make are carried, not computed, since RN(-x) = -RN(x) and only |t_i|
  // is needed: every step is one add or subtract.
  std::vector<std::pair<std::string, bool>> a(n);
  for (int i = 0; i < n; ++i)
    a[i] = {v[i], negated(i)};
  int stage = 1;
  for (int h = 1; h < n; h <<= 1, ++stage) {
    std::vector<std::pair<std::string, bool>> next = a;
    for (int j = 0; j < n; ++j) {
      if (j & h)
        continue;
      auto [x, xn] = a[j];
      auto [y, yn] = a[j + h];
      std::string sum =
          "%" + p + "u" + std::to_string(stage) + "_" + std::to_string(j);
      std::string diff =
          "%" + p + "u" + std::to_string(stage) + "_" + std::to_string(j + h);
      // (+-x) + (+-y) and (+-x) - (+-y) as +-(x op y).
      auto emit = [&](const std::string &name, bool subtract) {
        bool yNeg = subtract ? !yn : yn; // the sign y enters with
        if (xn == yNeg) {
          os << "          " << name << " = arith.addf " << x << ", " << y
             << " : f32\n";
          return xn;
        }
        // One term negative: (pos) - (neg's magnitude).
        const std::string &pos = xn ? y : x, &neg = xn ? x : y;
        os << "          " << name << " = arith.subf " << pos << ", " << neg
           << " : f32\n";
        return false;
      };
      bool sn = emit(sum, false);
      bool dn = emit(diff, true);
      next[j] = {sum, sn};
      next[j + h] = {diff, dn};
    }
    a = next;
  }
  // max(0, max |t_i|) as in rhtTransformLines (0 the accumulator).
  std::string elems;
  for (int i = 0; i < n; ++i) {
    os << "          " << a[i].first << "abs = math.absf " << a[i].first
       << " : f32\n";
    elems += (i ? ", " : "") + a[i].first + "abs";
  }
  os << "          %" << p << "tv = vector.from_elements " << elems
     << " : vector<16xf32>\n"
     << "          %" << p << "amax = vector.reduction <maxnumf>, %" << p
     << "tv, %fz : vector<16xf32> into f32\n";
  return s;
}

/// Lines loading the 16 elements b16 + i of copy row `row` (all in range:
/// RHT needs M % 16 == 0) and transforming them (rhtTransformLines). Needs
/// %rc0..%rc15 (index) besides.
std::string rhtLines(const std::string &p, const std::string &row, bool f32,
                     bool tile = false, bool amaxReduction = true) {
  std::string s;
  std::vector<std::string> v;
  for (int i = 0; i < mlir::teq::reference::kRHTSize; ++i) {
    std::string li = p + "l" + std::to_string(i);
    s += "          %" + li + "e = arith.addi " + (tile ? "%lb16" : "%b16") +
         ", %rc" + std::to_string(i) + " : index\n" +
         elementLoad(li, row, "%" + li + "e", /*columnwise=*/true, f32, tile);
    v.push_back("%" + li + "v");
  }
  return s + rhtTransformLines(p, v, f32, amaxReduction);
}

/// Constants of the kernels that keep a 16-element block in registers
/// (rhtLines, the vectorized rowwise path): %rc0..%rc15 and %fq / %fqn = +-0.25.
std::string registerBlockConstants() {
  std::string s = "      %fq = arith.constant 0.25 : f32\n"
                  "      %fqn = arith.constant -0.25 : f32\n";
  for (int i = 0; i < mlir::teq::reference::kRHTSize; ++i)
    s += "      %rc" + std::to_string(i) + " = arith.constant " +
         std::to_string(i) + " : index\n";
  return s;
}

/// Whether the NVFP4 tile kernel stages its scales and columnwise data in
/// workgroup memory and writes them after the phases as whole 4-byte scale
/// words and 16-byte data runs (tiles are then whole: m and k are multiples
/// of 64, so a tile row's four block scales are one aligned word in either
/// layout). Byte-wide scale stores and 8-byte columnwise stores 32 rows
/// apart made L2 the busiest unit of the kernel.
bool nvfp4Staged(const NVFP4Spec &spec) {
  return spec.rows % kNVFP4Tile == 0 && spec.cols % kNVFP4Tile == 0;
}

/// Whether the 2D tile kernel computes each element's E2M1 code once: with
/// 16x16 blocks and no RHT both copies scale an element by its tile's one
/// scale (S_enc too: both come from the plain amax), so the columnwise
/// nibbles are the rowwise ones transposed. Round to nearest only
/// (stochastic rounding draws other random bits for each copy), software
/// conversions, both copies, whole tiles. The tile scales are computed once
/// a 16x16 tile (%tcode, %tenc); the rowwise phase leaves every code in
/// %codes, from which the columnwise phase packs its bytes.
bool nvfp4Shared2D(const NVFP4Spec &spec) {
  return spec.twoD && !spec.stochastic && !spec.hardwareConversions &&
         spec.rowwise && spec.columnwise && nvfp4Staged(spec);
}

/// Lines of a block's E4M3 scale code (te-semantics.md §5.5) from its
/// amax %bamax and the copy's %senc: %code8 (i8) and %code (i32).
const char *kNVFP4ScaleCodeLines = R"(        // Block scale: e4m3(fminf(amax * (S_enc * (1/6)), FLT_MAX)).
        %sixth = arith.constant $SIXTH : f32
        %k6 = arith.mulf %senc, %sixth : f32
        %dec = arith.mulf %bamax, %k6 : f32
        %dlt = arith.cmpf olt, %dec, %fltmax : f32
        %dec1 = arith.select %dlt, %dec, %fltmax : f32
        %h = nvvm.convert.f32x2.to.f8x2 %fz, %dec1 {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16 (f8E4M3FN)
        %code8 = arith.trunci %h : i16 to i8
        %code = arith.extui %code8 : i8 to i32
)";

/// Lines of a block's E4M3 scale from its amax %bamax and the copy's %senc:
/// the code %code8 (i8) and the encode multiplier %enc, looked up in the
/// copy's table of `@<prefix>_nvfp4_consts` (%ncst; $ENCBASE: the copy's
/// first entry), which the amax pass filled (nvfp4ConstsLines).
const std::string kNVFP4ScaleLines = std::string(kNVFP4ScaleCodeLines) + R"(        %codei = arith.index_cast %code : i32 to index
        %encb = arith.constant $ENCBASE : index
        %enci = arith.addi %codei, %encb : index
        %enc = memref.load %ncst[%enci] : memref<$NCONSTxf32, #gpu.address_space<global>>
)";

/// Lines of `<v>o` = (`rowBase` + i) * `stride` + `col` (index): row i's
/// flat offset in a group of 16 rows of one column (needs %rc<i>).
std::string columnGroupOffset(const std::string &v, const std::string &rowBase,
                              int i, const std::string &stride,
                              const std::string &col) {
  return "        " + v + "r = arith.addi " + rowBase + ", %rc" +
         std::to_string(i) + " : index\n" + "        " + v +
         "m = arith.muli " + v + "r, " + stride + " : index\n" + "        " +
         v + "o = arith.addi " + v + "m, " + col + " : index\n";
}

/// The columnwise phase of the shared-code 2D kernel (nvfp4Shared2D): the
/// tile column %ci's block %cb takes its tile's scale code and packs its
/// 16 codes, read down the column of %codes, two a byte.
std::string nvfp4Shared2DColumnLines() {
  std::string s = R"(        %xtpr = arith.muli %cb, %c4 : index
        %xtpc = arith.divui %ci, %c16 : index
        %xtpi = arith.addi %xtpr, %xtpc : index
        %xcode8 = memref.load %tcode[%xtpi] : memref<16xi8, $SHM>
        %xsso0 = arith.muli %ci, %c4 : index
        %xsso = arith.addi %xsso0, %cb : index
        memref.store %xcode8, %csc[%xsso] : memref<256xi8, $SHM>
        %xr0 = arith.muli %cb, %c16 : index
)";
  for (int i = 0; i < 16; ++i) {
    std::string n = std::to_string(i);
    s += columnGroupOffset("%xr" + n, "%xr0", i, "%c64", "%ci") +
         "        %xc" + n + " = memref.load %codes[%xr" + n +
         "o] : memref<4096xi8, $SHM>\n" +
         "        %xw" + n + " = arith.extui %xc" + n + " : i8 to i32\n";
  }
  // Two codes a byte, the even row in the low nibble (codes are < 16).
  std::string bytes;
  for (int j = 0; j < 8; ++j) {
    std::string n = std::to_string(j), lo = std::to_string(2 * j),
                hi = std::to_string(2 * j + 1);
    s += "        %xh" + n + " = arith.muli %xw" + hi + ", %e2m1u16 : i32\n" +
         "        %xb" + n + "w = arith.addi %xw" + lo + ", %xh" + n + " : i32\n" +
         "        %xb" + n + " = arith.trunci %xb" + n + "w : i32 to i8\n";
    bytes += (j ? ", %xb" : "%xb") + n;
  }
  s += "        %xbytes = vector.from_elements " + bytes + " : vector<8xi8>\n"
       "        %xdo0 = arith.muli %ci, %c40 : index\n"
       "        %xdo1 = arith.muli %cb, %c8 : index\n"
       "        %xdo = arith.addi %xdo0, %xdo1 : index\n"
       "        vector.store %xbytes, %cdt[%xdo] {alignment = 8} : "
       "memref<2560xi8, $SHM>, vector<8xi8>\n";
  return s;
}

/// The lines of one copy's phase of the NVFP4 tile kernel, all inside
/// `scf.if %ract {` (rowwise) or `scf.if %cact {` (columnwise): the thread's
/// 16-element block of the copy (copy row %sr, block %b), read from the
/// staged tile, its E4M3 scale and its eight E2M1 bytes (one 8-byte vector
/// store when the copy's rows are whole blocks). The arithmetic is the
/// per-block one of te-semantics.md §5.5, in the reference's order.
std::string nvfp4PhaseLines(const NVFP4Spec &spec, bool columnwise) {
  if (columnwise && nvfp4Shared2D(spec))
    return substitute(nvfp4Shared2DColumnLines(),
                      {{"SHM", "#gpu.address_space<workgroup>"}});
  int64_t m = spec.rows, k = spec.cols;
  bool f32 = spec.input == InputType::F32;
  // The copy being quantized: rows of 16-element blocks.
  int64_t copyRows = columnwise ? k : m, rowLen = columnwise ? m : k;
  int64_t blocks = (rowLen + 15) / 16;
  int64_t scaleBytes = columnwise ? spec.colScaleRows * spec.colScaleCols
                                  : spec.rowScaleRows * spec.rowScaleCols;
  int64_t scaleCols = columnwise ? spec.colScaleCols : spec.rowScaleCols;
  std::map<std::string, std::string> vars = {
      {"N", std::to_string(m * k)},
      {"DB", std::to_string(m * k / 2)},
      {"SB", std::to_string(scaleBytes)},
      {"T", typeName(spec.input)},
      {"NB", std::to_string(blocks)},
      {"ROWS", std::to_string(copyRows)},
      {"LEN", std::to_string(rowLen)},
      {"HALF", std::to_string(rowLen / 2)},
      {"SIXTH", floatLiteral(1.0f / 6.0f)},
      {"SHM", "#gpu.address_space<workgroup>"},
      {"SI", columnwise ? "%c2" : "%c0"},
      {"ENCBASE", std::to_string(kNVFP4EncTable[columnwise])},
      {"NCONST", std::to_string(kNVFP4ConstsSize)},
  };
  // Staged: the block's scale into tile row %lrow's byte %tbi of %stsc
  // (the copy's 256-byte scale stage); else straight to the scale buffer.
  const bool staged = nvfp4Staged(spec);
  vars["SCALESTORE"] =
      staged ? std::string("        %sso0 = arith.muli %lrow, %c4 : index\n"
                           "        %sso = arith.addi %sso0, %tbi : index\n"
                           "        memref.store %code8, %stsc[%sso] : "
                           "memref<256xi8, $SHM>\n")
             : "        %rsi = arith.addi %sr, %c0 : index\n"
               "        %rsj = arith.addi %b, %c0 : index\n" +
                   scaleIndex("rs", spec.swizzled, scaleCols, scaleCols / 4) +
                   "        memref.store %code8, %scale[%rsidx] : "
                   "memref<$SBxi8>\n";
  // Stochastic rounding: element i of the copy (row-major in the stored
  // orientation, i = %sr * LEN + e) rounds with Philox word i % 4 of block
  // i / 4 (Random.h).
  const bool stochastic = spec.stochastic;
  bool rht = columnwise && spec.rht;
  // Blocks are whole (and 8-byte aligned in the data) when the copy's rows
  // are whole blocks: the 16 values are then kept in registers.
  bool inRegisters = rowLen % 16 == 0;
  // The thread's place. %lrow / %lb16: copy row and block start in the
  // tile; %ebase: the tile's first element of a copy row; (%prb, %pcc): the
  // 16x16 tile of the block (row, column of 16x16 tiles in the 64x64 one).
  std::string place =
      columnwise ? "        %sr = arith.addi %cgk, %c0 : index\n"
                   "        %b16 = arith.addi %cgm, %c0 : index\n"
                   "        %b = arith.divui %cgm, %c16 : index\n"
                   "        %lrow = arith.addi %ci, %c0 : index\n"
                   "        %lb16 = arith.muli %cb, %c16 : index\n"
                   "        %ebase = arith.addi %m0, %c0 : index\n"
                   "        %prb = arith.addi %cb, %c0 : index\n"
                   "        %pcc = arith.divui %ci, %c16 : index\n"
                   "        %tbi = arith.addi %cb, %c0 : index\n"
                 : "        %sr = arith.addi %gm, %c0 : index\n"
                   "        %b16 = arith.addi %gk, %c0 : index\n"
                   "        %b = arith.divui %gk, %c16 : index\n"
                   "        %lrow = arith.addi %li, %c0 : index\n"
                   "        %lb16 = arith.addi %lc, %c0 : index\n"
                   "        %ebase = arith.addi %k0, %c0 : index\n"
                   "        %prb = arith.divui %li, %c16 : index\n"
                   "        %pcc = arith.addi %lj, %c0 : index\n"
                   "        %tbi = arith.addi %lj, %c0 : index\n";
  // The name of the block's value i (f32) when in registers.
  auto val = [&](int i) {
    return (rht || !columnwise ? "%rt" : "%cl") + std::to_string(i) +
           (rht || !columnwise ? "" : "v");
  };
  // |value i| when in registers.
  auto absVal = [&](int i) {
    std::string n = std::to_string(i);
    return rht ? "%rt" + n + "abs" : columnwise ? "%cab" + n : "%rta" + n;
  };
  // Round-to-nearest blocks in registers take a fast path when they hold
  // no NaN (the NaN-propagating max of |x_i| tells): the sign bit is then
  // bit 3 as is (rawSign). Blocks with a NaN take the general path.
  const bool fast = inRegisters && !stochastic && !spec.hardwareConversions;
  // %bamax: the block's amax (NaN-ignoring), defined by `bamaxLines` where
  // the block's general path needs it.
  std::string amax, bamaxLines;
  if (rht) {
    amax = rhtLines("r", "%lrow", f32, /*tile=*/true, /*amaxReduction=*/false);
    bamaxLines = "        %bamax = vector.reduction <maxnumf>, %rtv, %fz : "
                 "vector<16xf32> into f32\n";
  } else {
    if (inRegisters && !columnwise) {
      // The thread staged exactly this block (tile row tid / 4, elements
      // 16 (tid % 4) on): its values are still in %vals.
      amax = f32 ? "        %vxf = arith.addf %vals, %vnz : vector<16xf32>\n"
                 : "        %vxf = arith.extf %vals : vector<16x$T> to "
                   "vector<16xf32>\n";
      for (int i = 0; i < 16; ++i)
        amax += "        %rt" + std::to_string(i) + " = vector.extract %vxf[" +
                std::to_string(i) + "] : f32 from vector<16xf32>\n";
      amax += "        %vabs = math.absf %vxf : vector<16xf32>\n";
      for (int i = 0; i < 16; ++i)
        amax += "        %rta" + std::to_string(i) + " = vector.extract %vabs[" +
                std::to_string(i) + "] : f32 from vector<16xf32>\n";
    } else if (inRegisters) {
      for (int i = 0; i < 16; ++i) {
        std::string li = "cl" + std::to_string(i);
        amax += "          %" + li + "e = arith.addi %lb16, %rc" +
                std::to_string(i) + " : index\n" +
                tileLoad(li, "%lrow", "%" + li + "e", columnwise, f32) +
                "        %cab" + std::to_string(i) + " = math.absf %" + li +
                "v : f32\n";
      }
      std::string elems;
      for (int i = 0; i < 16; ++i)
        elems += (i ? ", %cab" : "%cab") + std::to_string(i);
      amax += "        %cabv = vector.from_elements " + elems +
              " : vector<16xf32>\n";
    }
    if (spec.twoD) {
      // The 16x16 tile's amax, computed once per tile after staging.
      bamaxLines = R"(        %tpr4 = arith.muli %prb, %c4 : index
        %tpi = arith.addi %tpr4, %pcc : index
        %bamax = memref.load %tam[%tpi] : memref<16xf32, $SHM>
)";
    } else if (inRegisters && !columnwise) {
      // max(0, .) as the reference's fmaxf chain from 0: a block of NaNs
      // has amax 0 (0 the accumulator: see rhtLines).
      bamaxLines = "        %bamax = vector.reduction <maxnumf>, %vabs, %fz : "
                   "vector<16xf32> into f32\n";
    } else if (inRegisters) {
      // max(0, max |x_i|): NaN-ignoring, so in any order (a tree).
      bamaxLines = "        %bamax = vector.reduction <maxnumf>, %cabv, %fz : "
                   "vector<16xf32> into f32\n";
    } else {
      amax = R"(        %bamax = scf.for %w = %c0 to %c16 step %c1 iter_args(%mw = %fz) -> f32 {
          %we = arith.addi %b16, %w : index
          %wl = arith.addi %lb16, %w : index
          %weok = arith.cmpi ult, %we, %clen : index
          %mw2 = scf.if %weok -> f32 {
)" + tileLoad("ta", "%lrow", "%wl", columnwise, f32) +
             R"(          %taabs = math.absf %tav : f32
          %tamx = arith.maxnumf %mw, %taabs : f32
            scf.yield %tamx : f32
          } else {
            scf.yield %mw : f32
          }
          scf.yield %mw2 : f32
        }
)";
    }
  }

  std::string head = place + R"(        %cnb = arith.constant $NB : index
        %crows = arith.constant $ROWS : index
        %clen = arith.constant $LEN : index
        %chalf = arith.constant $HALF : index
)" + (stochastic ? philoxSetupLines(columnwise) : std::string()) +
                     R"(        // S_enc of this copy (from the amax pass).
        %senc = memref.load %sencs[$SI] : memref<8xf32, $SHM>
)" + amax;
  // The block's scale, its stores and its E2M1 data; rawSign: the fast
  // path's sign bits and nibble packing (NaN-free blocks).
  // Shared-code 2D (rowwise phase): the tile's scale, computed once.
  const bool shared2D = nvfp4Shared2D(spec);
  // With `scaleGiven` (the 1D fast path) %code8 and %enc are computed
  // before the branch, no value needs saturation, and whole words are
  // packed (e2m1FastBytes).
  auto blockBody = [&](bool rawSign, bool scaleGiven = false) {
    std::string text =
        scaleGiven ? std::string()
        : shared2D ? std::string(R"(        %code8 = memref.load %tcode[%tpi] : memref<16xi8, $SHM>
        %enc = memref.load %tenc[%tpi] : memref<16xf32, $SHM>
)")
                   : std::string(kNVFP4ScaleLines);
    text += R"($SCALESTORE        // Two codes a byte, the even element in the low nibble.
        %dbase = arith.muli %sr, %chalf : index
        %b8 = arith.muli %b, %c8 : index
        %dbase2 = arith.addi %dbase, %b8 : index
)";
  if (inRegisters) {
    // The block's values are in registers: every pair, unrolled. The block
    // starts at a multiple of 16 (LEN % 16 == 0 here): four Philox blocks.
    if (stochastic) {
      text += "        %srb0 = arith.muli %sr, %clen : index\n"
              "        %srb1 = arith.addi %srb0, %b16 : index\n"
              "        %srb = arith.index_cast %srb1 : index to i64\n"
              "        %srblk0 = arith.shrui %srb, %srl2 : i64\n"
              "        %srblk1 = arith.addi %srblk0, %srl1 : i64\n"
              "        %srblk2 = arith.addi %srblk0, %srl2 : i64\n"
              "        %srblk3 = arith.addi %srblk0, %srl3 : i64\n";
      for (int j = 0; j < 4; ++j)
        text += philoxLines("ph" + std::to_string(j),
                            "%srblk" + std::to_string(j));
    }
    const bool fastWords = scaleGiven;
    if (fastWords)
      text += e2m1FastBytes(absVal, val);
    std::string bytes;
    for (int pp = 0; pp < (fastWords ? 0 : 8); ++pp) {
      std::string n = std::to_string(pp);
      std::string q0 = "u" + n + "q0", q1 = "u" + n + "q1";
      std::string word = "%ph" + std::to_string(pp / 2) + "w";
      std::string rounding =
          stochastic
              ? "            %u" + n + "q0s = arith.mulf " + val(2 * pp) +
                    ", %enc : f32\n" + "            %u" + n +
                    "q1s = arith.mulf " + val(2 * pp + 1) + ", %enc : f32\n" +
                    e2m1StochasticCode(q0, word + std::to_string(2 * (pp % 2))) +
                    e2m1StochasticCode(q1,
                                       word + std::to_string(2 * (pp % 2) + 1))
              // Blackwell: the hardware conversion of x * enc.
              : spec.hardwareConversions
              ? "            %u" + n + "q0s = arith.mulf " + val(2 * pp) +
                    ", %enc : f32\n" + "            %u" + n +
                    "q1s = arith.mulf " + val(2 * pp + 1) + ", %enc : f32\n" +
                    e2m1Code(q0, "", "", true) + e2m1Code(q1, "", "", true)
              // Round to nearest from |x| * enc (= |x * enc|), x's sign.
              : "            %u" + n + "q0m = arith.mulf " + absVal(2 * pp) +
                    ", %enc : f32\n" + "            %u" + n +
                    "q1m = arith.mulf " + absVal(2 * pp + 1) + ", %enc : f32\n" +
                    e2m1Code(q0, "%u" + n + "q0m", val(2 * pp), false,
                             rawSign) +
                    e2m1Code(q1, "%u" + n + "q1m", val(2 * pp + 1), false,
                             rawSign);
      std::string n0 = "%" + q0 + (stochastic ? "rn" : "n");
      std::string n1 = "%" + q1 + (stochastic ? "rn" : "n");
      // Fast path: n0 + 16 * n1 by an integer multiply-add (the nibbles'
      // bits do not overlap; the opaque 16 keeps it a multiply).
      text += rounding +
              (rawSign ? "            %u" + n + "hi = arith.muli " + n1 +
                             ", %e2m1u16 : i32\n" + "            %u" + n +
                             "b32 = arith.addi " + n0 + ", %u" + n +
                             "hi : i32\n"
                       : "            %u" + n + "hi = arith.shli " + n1 +
                             ", %i4 : i32\n" + "            %u" + n +
                             "b32 = arith.ori " + n0 + ", %u" + n +
                             "hi : i32\n") +
              "            %u" + n + "b = arith.trunci %u" + n +
              "b32 : i32 to i8\n";
      bytes += (pp ? ", %u" : "%u") + n + "b";
      if (shared2D)
        text += "            %u" + n + "c0 = arith.trunci " + n0 +
                " : i32 to i8\n" + "            %u" + n +
                "c1 = arith.trunci " + n1 + " : i32 to i8\n";
    }
    if (shared2D) {
      // Every element's code (low byte: sign and magnitude) for the
      // columnwise phase: tile row %lrow, columns %lb16 + 0..15.
      std::string codes;
      for (int pp = 0; pp < 8; ++pp)
        codes += (pp ? ", %u" : "%u") + std::to_string(pp) + "c0, %u" +
                 std::to_string(pp) + "c1";
      text += "        %ucodes = vector.from_elements " + codes +
              " : vector<16xi8>\n"
              "        %ucdo0 = arith.muli %lrow, %c64 : index\n"
              "        %ucdo = arith.addi %ucdo0, %lb16 : index\n"
              "        vector.store %ucodes, %codes[%ucdo] {alignment = 16} : "
              "memref<4096xi8, $SHM>, vector<16xi8>\n";
    }
    // One 8-byte store: %dbase2 = sr * LEN/2 + b * 8 is a multiple of 8;
    // staged columnwise bytes go to tile column %lrow's 40-byte row of
    // %cdt (40, not 32: consecutive threads' rows then start in different
    // banks).
    if (!fastWords)
      text += "        %ubytes = vector.from_elements " + bytes +
              " : vector<8xi8>\n";
    if (staged && columnwise)
      text += "        %cdo0 = arith.muli %lrow, %c40 : index\n"
              "        %cdo1 = arith.muli %tbi, %c8 : index\n"
              "        %cdo = arith.addi %cdo0, %cdo1 : index\n"
              "        vector.store %ubytes, %cdt[%cdo] {alignment = 8} : "
              "memref<2560xi8, $SHM>, vector<8xi8>\n";
    else
      text += "        vector.store %ubytes, %data[%dbase2] {alignment = 8} : "
              "memref<$DBxi8>, vector<8xi8>\n";
  } else {
    text += R"(        scf.for %pp = %c0 to %c8 step %c1 {
          %pp2 = arith.muli %pp, %c2 : index
          %e0 = arith.addi %b16, %pp2 : index
          %pin = arith.cmpi ult, %e0, %clen : index
          scf.if %pin {
            %e1 = arith.addi %e0, %c1 : index
            %le0 = arith.addi %lb16, %pp2 : index
            %le1 = arith.addi %le0, %c1 : index
)" + tileLoad("l0", "%lrow", "%le0", columnwise, f32) +
            tileLoad("l1", "%lrow", "%le1", columnwise, f32) + R"(
            %q0s = arith.mulf %l0v, %enc : f32
            %q1s = arith.mulf %l1v, %enc : f32
)" + (stochastic ? std::string(
                   // e0 is even (LEN is): both words come from one block.
                   "            %sri0 = arith.muli %sr, %clen : index\n"
                   "            %sri1 = arith.addi %sri0, %e0 : index\n"
                   "            %sri = arith.index_cast %sri1 : index to i64\n"
                   "            %srblk = arith.shrui %sri, %srl2 : i64\n") +
                   philoxLines("ph", "%srblk") +
                   "            %sri2 = arith.andi %sri, %srl2 : i64\n"
                   "            %srpair2 = arith.cmpi ne, %sri2, %srl0 : i64\n"
                   "            %srr0 = arith.select %srpair2, %phw2, %phw0 : i32\n"
                   "            %srr1 = arith.select %srpair2, %phw3, %phw1 : i32\n" +
                   e2m1StochasticCode("q0", "%srr0") +
                   e2m1StochasticCode("q1", "%srr1") +
                   "            %q0n = arith.addi %q0rn, %i0 : i32\n"
                   "            %q1n = arith.addi %q1rn, %i0 : i32\n"
             : e2m1Code("q0", "", "", spec.hardwareConversions) +
                   e2m1Code("q1", "", "", spec.hardwareConversions)) + R"(
            %n1s = arith.shli %q1n, %i4 : i32
            %byte32 = arith.ori %q0n, %n1s : i32
            %byte = arith.trunci %byte32 : i32 to i8
            %di = arith.addi %dbase2, %pp : index
            memref.store %byte, %data[%di] : memref<$DBxi8>
          }
        }
)";
  }
    return text;
  };
  std::string text = head;
  // The NaN-propagating max of the block's |x_i| (0 the accumulator): NaN
  // iff the block holds a NaN; else the block's amax.
  std::string absVec = rht ? "%rtv" : columnwise ? "%cabv" : "%vabs";
  std::string fnm = "        %fnm = vector.reduction <maximumf>, " + absVec +
                    ", %fz : vector<16xf32> into f32\n";
  std::string opaqueConstants =
      "        %e2m1u2f = memref.load %sencs[%c4] : memref<8xf32, $SHM>\n"
      "        %e2m1u8f = memref.load %sencs[%c5] : memref<8xf32, $SHM>\n"
      "        %e2m1u16f = memref.load %sencs[%c6] : memref<8xf32, $SHM>\n"
      "        %e2m1u2 = arith.bitcast %e2m1u2f : f32 to i32\n"
      "        %e2m1u8 = arith.bitcast %e2m1u8f : f32 to i32\n"
      "        %e2m1u16 = arith.bitcast %e2m1u16f : f32 to i32\n";
  if (fast && !spec.twoD) {
    // 1D: the block's scale comes from %fnm before the branch; the fast
    // path takes the blocks without NaN whose |x_i| * enc are all below 7
    // (RN(amax * enc) < 7 bounds every one; a NaN makes it false), so that
    // E2M1 needs no saturation. Others (a NaN, or a subnormal or zero
    // scale) take the general path, which computes the scale again from
    // the NaN-ignoring amax.
    text += fnm +
            prefixDefinitions(renameValues(kNVFP4ScaleLines, {{"bamax", "fnm"}}),
                              "sc_") +
            "        %fsat = arith.mulf %fnm, %sc_enc : f32\n"
            "        %fgo = arith.cmpf olt, %fsat, %e2m1seven : f32\n"
            "        scf.if %fgo {\n" +
            opaqueConstants +
            // ($SCALESTORE names %code8 too: substituted first.)
            renameValues(substituteVars(substituteVars(blockBody(true, true), vars), vars),
                         {{"code8", "sc_code8"}, {"enc", "sc_enc"}}) +
            "        } else {\n" + bamaxLines + blockBody(false) + "        }\n";
  } else if (fast) {
    // 2D: blocks without NaN take the fast path (the tile's scale).
    text += fnm +
            "        %fnan = arith.cmpf uno, %fnm, %fnm : f32\n"
            "        scf.if %fnan {\n" +
            bamaxLines + blockBody(false) + "        } else {\n" +
            opaqueConstants + bamaxLines + blockBody(true) + "        }\n";
  } else {
    text += bamaxLines + blockBody(false);
  }
  std::string out = substitute(substitute(text, vars), vars);
  // This copy's buffers.
  const std::string a = columnwise ? "c[" : "r[";
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"%data[", "%data" + a},
        {"%scale[", "%scale" + a},
        {"%stsc[", columnwise ? "%csc[" : "%rsc["}}) {
    for (size_t at = out.find(from); at != std::string::npos;
         at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

/// The NVFP4 data kernel: one 64x64 tile of x a block (grid
/// nvfp4TileGrid, visited in reverse: the amax pass left the end of x in
/// L2). Phase 1 stages the tile in workgroup memory with 16-byte loads
/// (zeros outside x; with 2D scaling also the max |x| of each thread's 16
/// elements, the 16x16 tiles' row partials); after one barrier each thread
/// quantizes one rowwise 1x16 block (tile row tid / 4, block tid % 4: the
/// 16 values it staged, still in registers) and one columnwise 16x1 block
/// (tile column tid % 64, block tid / 64: consecutive threads read
/// consecutive shared addresses), writing 8 data bytes a block. On whole
/// tiles (nvfp4Staged) scales and columnwise bytes go through workgroup
/// memory and out as whole words; 2D on whole tiles computes each code once
/// (nvfp4Shared2D). Round-to-nearest blocks without NaN take a fast path
/// (see nvfp4PhaseLines). bench/RESULTS.md has the measured steps.
std::string nvfp4TileKernel(const NVFP4Spec &spec) {
  int64_t m = spec.rows, k = spec.cols;
  bool f32 = spec.input == InputType::F32;
  bool both = spec.rowwise && spec.columnwise;
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + (both            ? "_nvfp4"
                              : spec.rowwise ? "_nvfp4_row"
                                             : "_nvfp4_col")},
      {"N", std::to_string(m * k)},
      {"DB", std::to_string(m * k / 2)},
      {"RSB", std::to_string(spec.rowScaleRows * spec.rowScaleCols)},
      {"CSB", std::to_string(spec.colScaleRows * spec.colScaleCols)},
      {"M", std::to_string(m)},
      {"HALFM", std::to_string(m / 2)},
      // The last tile's column and row (the grid is nvfp4TileGrid).
      {"LASTTX", std::to_string(std::max<int64_t>(1, (k + kNVFP4Tile - 1) / kNVFP4Tile) - 1)},
      {"LASTTY", std::to_string(std::max<int64_t>(1, (m + kNVFP4Tile - 1) / kNVFP4Tile) - 1)},
      {"SIXTH", floatLiteral(1.0f / 6.0f)},
      {"K", std::to_string(k)},
      {"T", typeName(spec.input)},
      {"VECIN", k % 8 == 0 ? "true" : "false"},
      {"SHM", "#gpu.address_space<workgroup>"},
      // The amax pass's constants (S_enc, encode multipliers).
      {"AMAXLOADS",
       "      %ncst = memref.get_global @" + spec.prefix +
           "_nvfp4_consts : $NCSTTYPE\n"},
      {"NCSTTYPE", "memref<" + std::to_string(kNVFP4ConstsSize) +
                       "xf32, #gpu.address_space<global>>"},
      {"NCONST", std::to_string(kNVFP4ConstsSize)},
      // 1D round to nearest of 16-bit x on whole tiles fits 32 registers
      // without spills: eight blocks an SM, 2.5% faster than six on the
      // H100 (bench/RESULTS.md). 2D needs no more than 32 anyway, and the
      // cap made it slower.
      {"MAXNREG", !spec.stochastic && !spec.twoD && nvfp4Staged(spec) &&
                          spec.input != InputType::F32
                      ? ", nvvm.maxnreg = 32 : i32"
                      : ""},
      // The 2D tile scales: both copies' S_enc is the rowwise one.
      {"ENCBASE", std::to_string(kNVFP4EncTable[0])},
  };
  std::string args = "%x: memref<$Nx$T>";
  if (spec.rowwise)
    args += ", %datar: memref<$DBxi8>, %scaler: memref<$RSBxi8>";
  if (spec.columnwise)
    args += ", %datac: memref<$DBxi8>, %scalec: memref<$CSBxi8>";
  if (spec.stochastic)
    args += ", %rng: memref<2xi64>";
  const bool staged = nvfp4Staged(spec);
  std::string text = R"(
    gpu.func @$NAME()" + args + R"()
        workgroup(%tile: memref<4096x$T, $SHM> {llvm.align = 16 : i64},
                  %part: memref<256xf32, $SHM>, %tam: memref<16xf32, $SHM>,
                  %sencs: memref<8xf32, $SHM>)" +
                     (staged ? R"(,
                  %rsc: memref<256xi8, $SHM> {llvm.align = 4 : i64},
                  %csc: memref<256xi8, $SHM> {llvm.align = 4 : i64},
                  %cdt: memref<2560xi8, $SHM> {llvm.align = 8 : i64})"
                             : "") +
                     (nvfp4Shared2D(spec) ? R"(,
                  %codes: memref<4096xi8, $SHM> {llvm.align = 16 : i64},
                  %tcode: memref<16xi8, $SHM>, %tenc: memref<16xf32, $SHM>)"
                                          : "") + R"()
        kernel attributes {known_block_size = array<i32: 256, 1, 1>$MAXNREG} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c40 = arith.constant 40 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %chalfm = arith.constant $HALFM : index
      %cm = arith.constant $M : index
      %ck = arith.constant $K : index
      %fz = arith.constant 0.0 : f32
      %fnz = arith.constant -0.0 : f32
      %vnz = arith.constant dense<-0.0> : vector<16xf32>
      %fone = arith.constant 1.0 : f32
      %fltmax = arith.constant 0x7F7FFFFF : f32
      %tz = arith.constant 0.0 : $T
      %tzero = arith.constant dense<0.0> : vector<16x$T>
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i2 = arith.constant 2 : i32
      %i8 = arith.constant 8 : i32
      %i22 = arith.constant 22 : i32
      %i28 = arith.constant 28 : i32
      %e2m1m0 = arith.constant 8388608.0 : f32
      %e2m1m2 = arith.constant 8388610.0 : f32
      %e2m1m4 = arith.constant 8388612.0 : f32
      %e2m1m7 = arith.constant 8388615.0 : f32
      %e2m1wfix = arith.constant 83886080 : i32
      // e2m1FastBytes' sign permutes: bytes (3, 7) of two values; bytes
      // (0, 1, 4, 5) sign-replicated (selector nibbles with bit 3 set);
      // bit 3 and bit 7 of each byte.
      %e2m1top2 = arith.constant 115 : i32
      %e2m1sign4 = arith.constant 56472 : i32
      %e2m1evmask = arith.constant 134744072 : i32
      %e2m1odmask = arith.constant -2139062144 : i32
      %e2m1seven = arith.constant 7.0 : f32
      %e2m1two = arith.constant 2.0 : f32
      %e2m1half = arith.constant 0.5 : f32
      %e2m1smin = arith.constant -2147483648 : i32
      %e2m1sinf = arith.constant 2139095040 : i32
      %i3 = arith.constant 3 : i32
      %i4 = arith.constant 4 : i32
      %i7 = arith.constant 7 : i32
      %i15 = arith.constant 15 : i32
      %i20 = arith.constant 20 : i32
      %i23 = arith.constant 23 : i32
      %i31 = arith.constant 31 : i32
      %i120 = arith.constant 120 : i32
)" + registerBlockConstants() +
                     R"(      %tid = gpu.thread_id x
$AMAXLOADS      // Tiles in reverse order: the amax pass read the end of x last, and
      // what of it is still in L2 is read first.
      %bx0 = gpu.block_id x
      %by0 = gpu.block_id y
      %gdx1 = arith.constant $LASTTX : index
      %gdy1 = arith.constant $LASTTY : index
      %bx = arith.subi %gdx1, %bx0 : index
      %by = arith.subi %gdy1, %by0 : index
      %k0 = arith.muli %bx, %c64 : index
      %m0 = arith.muli %by, %c64 : index
      // Staging: thread tid loads 16 elements of tile row tid / 4.
      %li = arith.divui %tid, %c4 : index
      %lj = arith.remui %tid, %c4 : index
      %lc = arith.muli %lj, %c16 : index
      %gm = arith.addi %m0, %li : index
      %gk = arith.addi %k0, %lc : index
      %rowok = arith.cmpi ult, %gm, %cm : index
      %kin = arith.cmpi ult, %gk, %ck : index
      %kend = arith.addi %gk, %c16 : index
      %fullk = arith.cmpi ule, %kend, %ck : index
      %vecin = arith.constant $VECIN
      %vok0 = arith.andi %rowok, %fullk : i1
      %vok = arith.andi %vok0, %vecin : i1
      %rowbase = arith.muli %gm, %ck : index
      %vals = scf.if %vok -> vector<16x$T> {
        %off = arith.addi %rowbase, %gk : index
        %v = vector.load %x[%off] {alignment = 16} : memref<$Nx$T>, vector<16x$T>
        scf.yield %v : vector<16x$T>
      } else {
        %sv = scf.for %e = %c0 to %c16 step %c1 iter_args(%acc = %tzero) -> vector<16x$T> {
          %kk = arith.addi %gk, %e : index
          %kin2 = arith.cmpi ult, %kk, %ck : index
          %ok = arith.andi %rowok, %kin2 : i1
          %val = scf.if %ok -> $T {
            %go = arith.addi %rowbase, %kk : index
            %xs = memref.load %x[%go] : memref<$Nx$T>
            scf.yield %xs : $T
          } else {
            scf.yield %tz : $T
          }
          %ins = vector.insert %val, %acc[%e] : $T into vector<16x$T>
          scf.yield %ins : vector<16x$T>
        }
        scf.yield %sv : vector<16x$T>
      }
      %trow = arith.muli %li, %c64 : index
      %toff = arith.addi %trow, %lc : index
      vector.store %vals, %tile[%toff] : memref<4096x$T, $SHM>, vector<16x$T>
)";
  if (spec.twoD)
    text += std::string(f32 ? "      %pf = arith.addf %vals, %vnz : vector<16xf32>\n"
                            : "      %pf = arith.extf %vals : vector<16x$T> to vector<16xf32>\n") +
            R"(      %pa = math.absf %pf : vector<16xf32>
      %pmz = vector.reduction <maxnumf>, %pa, %fz : vector<16xf32> into f32
      memref.store %pmz, %part[%tid] : memref<256xf32, $SHM>
)";
  // With a dependent launch, the staging above may run while the amax
  // pass finishes; nothing the pass writes is read before this wait.
  if (spec.dependentLaunch)
    text += "      nvvm.griddepcontrol wait\n";
  // Thread 0: S_enc of each copy, which the amax pass left in
  // @<prefix>_nvfp4_consts (nvfp4ConstsLines), into %sencs[0] (rowwise) and
  // [2] (columnwise).
  text += "      %first = arith.cmpi eq, %tid, %c0 : index\n"
          "      scf.if %first {\n";
  for (int cw = 0; cw < 2; ++cw) {
    if (!(cw ? spec.columnwise : spec.rowwise))
      continue;
    std::string p = cw ? "%sc" : "%sr";
    std::string from = cw ? "%c1" : "%c0", to = cw ? "%c2" : "%c0";
    text += "        " + p + "senc = memref.load %ncst[" + from + "] : $NCSTTYPE\n"
            "        memref.store " + p + "senc, %sencs[" + to + "] : memref<8xf32, $SHM>\n";
  }
  // The fast path's integer constants 2, 8, 16 as loaded values LLVM
  // cannot fold (see e2m1Code).
  for (auto [slot, value] : {std::pair{"%c4", 2}, {"%c5", 8}, {"%c6", 16}})
    text += std::string("        %opq") + std::to_string(value) +
            " = arith.constant " + std::to_string(value) + " : i32\n"
            "        %opqf" + std::to_string(value) + " = arith.bitcast %opq" +
            std::to_string(value) + " : i32 to f32\n"
            "        memref.store %opqf" + std::to_string(value) +
            ", %sencs[" + slot + "] : memref<8xf32, $SHM>\n";
  text += "      }\n"
          "      gpu.barrier\n";
  if (spec.twoD)
    // Thread t < 16: the amax of 16x16 tile (t / 4, t % 4), the max of its
    // 16 row partials (each the max of |x| over 16 elements from 0;
    // NaN-ignoring max is order free, and the zeros outside the tensor do
    // not change it).
    text += R"(      %tt16 = arith.cmpi ult, %tid, %c16 : index
      scf.if %tt16 {
        %ttr = arith.divui %tid, %c4 : index
        %ttc = arith.remui %tid, %c4 : index
        %ttr0 = arith.muli %ttr, %c16 : index
        %ttm = scf.for %u = %c0 to %c16 step %c1 iter_args(%mu = %fz) -> f32 {
          %tpur = arith.addi %ttr0, %u : index
          %tpu4 = arith.muli %tpur, %c4 : index
          %tpui = arith.addi %tpu4, %ttc : index
          %tpv = memref.load %part[%tpui] : memref<256xf32, $SHM>
          %tpm = arith.maxnumf %mu, %tpv : f32
          scf.yield %tpm : f32
        }
        memref.store %ttm, %tam[%tid] : memref<16xf32, $SHM>
)";
  if (spec.twoD && nvfp4Shared2D(spec))
    // The tile's scale, once (both copies use it; S_enc is the rowwise
    // one, equal to the columnwise one here).
    text += "        %bamax = arith.addf %ttm, %fnz : f32\n"
            "        %senc = memref.load %sencs[%c0] : memref<8xf32, $SHM>\n" +
            kNVFP4ScaleLines +
            "        memref.store %code8, %tcode[%tid] : memref<16xi8, $SHM>\n"
            "        memref.store %enc, %tenc[%tid] : memref<16xf32, $SHM>\n";
  if (spec.twoD)
    text += R"(      }
      gpu.barrier
)";
  if (spec.rowwise)
    text += "      // Rowwise 1x16 blocks: tile row tid / 4, block tid % 4.\n"
            "      %ract = arith.andi %rowok, %kin : i1\n"
            "      scf.if %ract {\n" +
            nvfp4PhaseLines(spec, /*columnwise=*/false) + "      }\n";
  if (nvfp4Shared2D(spec))
    // The columnwise phase reads the codes the rowwise one left.
    text += "      gpu.barrier\n"
            "      %e2m1u16f = memref.load %sencs[%c6] : memref<8xf32, $SHM>\n"
            "      %e2m1u16 = arith.bitcast %e2m1u16f : f32 to i32\n";
  if (spec.columnwise)
    text += R"(      // Columnwise 16x1 blocks: tile column tid % 64, block tid / 64.
      %ci = arith.remui %tid, %c64 : index
      %cb = arith.divui %tid, %c64 : index
      %cgk = arith.addi %k0, %ci : index
      %cb16 = arith.muli %cb, %c16 : index
      %cgm = arith.addi %m0, %cb16 : index
      %cko = arith.cmpi ult, %cgk, %ck : index
      %cmo = arith.cmpi ult, %cgm, %cm : index
      %cact = arith.andi %cko, %cmo : i1
      scf.if %cact {
)" + nvfp4PhaseLines(spec, /*columnwise=*/true) +
            "      }\n";
  if (staged) {
    // The staged scales and columnwise data, written out after a barrier:
    // threads 0-63 the rowwise scale word of tile row tid, 64-127 the
    // columnwise one of tile column tid - 64, 128-255 half a tile column's
    // 32 data bytes each (16 contiguous bytes: whole sectors).
    text += "      gpu.barrier\n";
    // Threads first..first+63 each write the 4-byte scale word of one tile
    // row of a copy (staged in `stage`): copy row `rowBase` + t, blocks
    // from `colBase` / 16.
    auto scaleWriter = [&](const std::string &p, const char *first,
                           const char *stage, const char *rowBase,
                           const char *colBase, int64_t scaleCols,
                           const char *buffer, const char *bytes) {
      std::string v = "%" + p;
      return "      " + v + "t = arith.subi %tid, " + first + " : index\n" +
             "      " + v + "in = arith.cmpi ult, " + v + "t, %c64 : index\n" +
             "      scf.if " + v + "in {\n" +
             "        " + v + "o = arith.muli " + v + "t, %c4 : index\n" +
             "        " + v + "v = vector.load " + stage + "[" + v + "o] : "
             "memref<256xi8, $SHM>, vector<4xi8>\n" +
             "        " + v + "i = arith.addi " + rowBase + ", " + v + "t : index\n" +
             "        " + v + "j = arith.divui " + colBase + ", %c16 : index\n" +
             scaleIndex(p, spec.swizzled, scaleCols, scaleCols / 4) +
             "        vector.store " + v + "v, " + buffer + "[" + v +
             "idx] {alignment = 4} : memref<" + bytes + "xi8>, vector<4xi8>\n" +
             "      }\n";
    };
    if (spec.rowwise)
      text += scaleWriter("wr", "%c0", "%rsc", "%m0", "%k0", spec.rowScaleCols,
                          "%scaler", "$RSB");
    if (spec.columnwise)
      text += scaleWriter("wc", "%c64", "%csc", "%k0", "%m0",
                          spec.colScaleCols, "%scalec", "$CSB") +
              R"(      %wcd = arith.cmpi uge, %tid, %c128 : index
      scf.if %wcd {
        %wdt = arith.subi %tid, %c128 : index
        %wdr = arith.divui %wdt, %c2 : index
        %wdh = arith.remui %wdt, %c2 : index
        %wdo0 = arith.muli %wdr, %c40 : index
        %wdh16 = arith.muli %wdh, %c16 : index
        %wdo = arith.addi %wdo0, %wdh16 : index
        %wdo8 = arith.addi %wdo, %c8 : index
        %wdv0 = vector.load %cdt[%wdo] : memref<2560xi8, $SHM>, vector<8xi8>
        %wdv1 = vector.load %cdt[%wdo8] : memref<2560xi8, $SHM>, vector<8xi8>
        %wdgr = arith.addi %k0, %wdr : index
        %wdg0 = arith.muli %wdgr, %chalfm : index
        %wdm2 = arith.divui %m0, %c2 : index
        %wdg1 = arith.addi %wdg0, %wdm2 : index
        %wdg = arith.addi %wdg1, %wdh16 : index
        %wdg8 = arith.addi %wdg, %c8 : index
        vector.store %wdv0, %datac[%wdg] {alignment = 8} : memref<$DBxi8>, vector<8xi8>
        vector.store %wdv1, %datac[%wdg8] {alignment = 8} : memref<$DBxi8>, vector<8xi8>
      }
)";
  }
  text += R"(      gpu.return
    }
)";
  return substitute(substitute(text, vars), vars);
}

} // namespace

void mlir::teq::kernels::nvfp4TileGrid(const NVFP4Spec &spec, int64_t &gridX,
                                       int64_t &gridY) {
  gridX = std::max<int64_t>(1, (spec.cols + kNVFP4Tile - 1) / kNVFP4Tile);
  gridY = std::max<int64_t>(1, (spec.rows + kNVFP4Tile - 1) / kNVFP4Tile);
}

namespace {

/// `gpu.func @<prefix>_rht_amax(%x, %amax_c, <plainBuffers>)`: the amax of
/// the RHT-transformed columnwise copy into %amax_c (grid-stride over the
/// K * M/16 groups, one a thread; the last block finishes the reduction,
/// fusedAmaxLines) and, with `plainBuffers` (the rowwise copy needs the
/// plain amax), in the same read of x the plain max |x| into those.
/// The columns a thread of the RHT amax pass transforms at once: with
/// 16-bit x and K % W == 0, W (each of the group's 16 rows one 2W-byte
/// load), else 1.
constexpr int64_t kRhtAmaxWidth = 4;
int64_t rhtAmaxColumns(const NVFP4Spec &spec) {
  return spec.input != InputType::F32 && spec.cols % kRhtAmaxWidth == 0
             ? kRhtAmaxWidth
             : 1;
}

/// The RHT amax pass's work items: 16-row groups of rhtAmaxColumns columns.
int64_t rhtAmaxGroups(const NVFP4Spec &spec) {
  return spec.cols / rhtAmaxColumns(spec) * (spec.rows / 16);
}

/// Lines of `result` = max(`acc`, max |v_i|) over `values` (f32; the
/// NaN-ignoring max is order free: a tree; the running max as the
/// accumulator makes it a native max.f32, see rhtTransformLines). `tag`
/// names the temporaries.
std::string plainMaxLines(const std::vector<std::string> &values,
                          const std::string &acc, const std::string &result,
                          const std::string &tag) {
  std::string s, elems;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string a = "%pab" + tag + "_" + std::to_string(i);
    s += "        " + a + " = math.absf " + values[i] + " : f32\n";
    elems += (i ? ", " : "") + a;
  }
  std::string vec = "vector<" + std::to_string(values.size()) + "xf32>";
  return s + "        %pabv" + tag + " = vector.from_elements " + elems +
         " : " + vec + "\n        " + result +
         " = vector.reduction <maxnumf>, %pabv" + tag + ", " + acc + " : " +
         vec + " into f32\n";
}

std::string rhtAmaxKernel(const NVFP4Spec &spec,
                          const std::vector<std::string> &plainBuffers) {
  const bool plain = !plainBuffers.empty();
  // Warp maxima in 0..15 (the plain ones from 8), nvfp4ConstsLines' from 16.
  const std::string kRhtSmem = "memref<19xf32, #gpu.address_space<workgroup>>";
  const int64_t width = rhtAmaxColumns(spec);
  const bool quads = width > 1;
  const std::string vec = "vector<" + std::to_string(width) + "x$T>";
  int64_t groups = rhtAmaxGroups(spec);
  int64_t grid = nvfp4RhtAmaxGrid(spec);
  std::map<std::string, std::string> vars = {
      {"NAME", spec.prefix + "_rht_amax"},
      {"N", std::to_string(spec.rows * spec.cols)},
      {"T", typeName(spec.input)},
      {"K", std::to_string(spec.cols)},
      {"G", std::to_string(grid)},
      {"GROUPS", std::to_string(groups)},
      {"STRIDE", std::to_string(grid * kBlockSize)},
      {"QUADS", std::to_string(spec.cols / width)},
      {"SMEM", kRhtSmem},
      {"W", std::to_string(width)},
  };
  // The group's transform(s) and %ramax, their amax; `unscaled`: without
  // the 0.25 and the BF16 roundings (rhtUnscaledAmaxLines); `withPlain`
  // (quads): the group's plain max |x| into %pm2 as well.
  auto groupLines = [&](bool unscaled, bool withPlain) {
    std::string group;
    if (quads) {
      // W columns: 16 independent 2W-byte loads (consecutive threads,
      // consecutive column groups: a warp reads 64W contiguous bytes a row),
      // then W transforms from registers.
      group = R"(        %q = arith.remui %t, %cquads : index
        %b = arith.divui %t, %cquads : index
        %qc = arith.muli %q, %cw : index
        %qr0 = arith.muli %b, %c16 : index
)";
      for (int i = 0; i < 16; ++i) {
        std::string n = std::to_string(i);
        group += columnGroupOffset("%qo" + n, "%qr0", i, "%ck", "%qc") +
                 "        %ql" + n + " = vector.load %x[%qo" + n + "o" +
                 "] {alignment = " + std::to_string(2 * width) +
                 "} : memref<$Nx$T>, " + vec + "\n";
      }
      std::string amaxes;
      for (int j = 0; j < width; ++j) {
        std::vector<std::string> v;
        for (int i = 0; i < 16; ++i) {
          std::string e = "%qv" + std::to_string(j) + "_" + std::to_string(i);
          group += "        " + e + "h = vector.extract %ql" +
                   std::to_string(i) + "[" + std::to_string(j) + "] : $T from " +
                   vec + "\n" + "        " + e + " = arith.extf " + e +
                   "h : $T to f32\n";
          v.push_back(e);
        }
        if (withPlain) {
          // The column's max |x| into the running one right away: the
          // widened values die with the transform. The last column's is
          // %pm2, the group's.
          std::string cj = std::to_string(j);
          group += plainMaxLines(
              v, j ? "%pm2_" + std::to_string(j - 1) : "%pm",
              j + 1 < width ? "%pm2_" + cj : "%pm2", cj);
        }
        std::string p = "h" + std::to_string(j);
        group += unscaled ? rhtUnscaledAmaxLines(p, v)
                          : rhtTransformLines(p, v, /*f32=*/false,
                                              /*amaxReduction=*/true);
        amaxes += (j ? ", %" : "%") + p + "amax";
      }
      group += "        %qam = vector.from_elements " + amaxes +
               " : vector<$Wxf32>\n"
               "        %ramax = vector.reduction <maxnumf>, %qam, %fz : "
               "vector<$Wxf32> into f32\n";
    } else {
      group = R"(        %sr = arith.remui %t, %ck : index
        %b = arith.divui %t, %ck : index
        %b16 = arith.muli %b, %c16 : index
)" + rhtLines("r", "%sr", spec.input == InputType::F32);
    }
    return group;
  };
  // 16-bit columns in groups take the unscaled transform (the plain amax
  // then bounds it: computed even without a rowwise copy); f32 or odd K
  // the exact one (f32 products by 0.25 can round).
  const bool unscaled = quads;
  std::string group = groupLines(unscaled, plain || unscaled);
  // One column: the plain max over the group's loaded values.
  std::string plainMax;
  if (plain && !quads) {
    std::vector<std::string> values;
    for (int i = 0; i < 16; ++i)
      values.push_back("%rl" + std::to_string(i) + "v");
    plainMax = plainMaxLines(values, "%pm", "%pm2", "");
  }
  // The thread's transformed amax: from the unscaled one while the plain
  // one is below 2^123 (rhtUnscaledAmaxLines); else (huge values, an inf)
  // the thread's groups again with the exact transform.
  std::string finish =
      unscaled ? R"(
      %bound = arith.constant 0x7D000000 : f32
      %inrange = arith.cmpf olt, %pacc, %bound : f32
      %acc = scf.if %inrange -> f32 {
        %accq = arith.mulf %uacc, %fq : f32
        %accb = arith.truncf %accq : f32 to bf16
        %accr = arith.extf %accb : bf16 to f32
        scf.yield %accr : f32
      } else {
        %sacc = scf.for %t = %start to %cgroups step %stride iter_args(%m = %fz) -> f32 {
)" + groupLines(false, false) + R"(          %m2 = arith.maxnumf %m, %ramax : f32
          scf.yield %m2 : f32
        }
        scf.yield %sacc : f32
      })"
               : std::string();
  std::string text = std::string(R"(
    gpu.func @$NAME(%x: memref<$Nx$T>, %amax_c: memref<1xf32>)") + [&] {
    std::string a;
    for (const std::string &b : plainBuffers)
      a += ", %" + b + ": memref<1xf32>";
    return a;
  }() + R"()
        workgroup(%smem: $SMEM)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %ck = arith.constant $K : index
      %cw = arith.constant $W : index
      %cquads = arith.constant $QUADS : index
      %cgroups = arith.constant $GROUPS : index
      %stride = arith.constant $STRIDE : index
      %fz = arith.constant 0.0 : f32
      %fnz = arith.constant -0.0 : f32
      %zero = arith.constant 0.0 : f32
)" + registerBlockConstants() +
                     (spec.dependentLaunch ? kLaunchDependentsLine : "") +
                     R"(      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %start = arith.addi %base, %tid : index
      %)" + std::string(unscaled ? "uacc" : "acc") + R"(, %pacc = scf.for %t = %start to %cgroups step %stride iter_args(%m = %fz, %pm = %fz) -> (f32, f32) {
)" + group + plainMax + R"(
        %m2 = arith.maxnumf %m, %ramax : f32
        scf.yield %m2, )" + (plain || unscaled ? "%pm2" : "%pm") + R"( : f32, f32
      })" + finish + std::regex_replace(std::string(kBlockMaxReduce), std::regex("memref<8xf32, #gpu.address_space<workgroup>>"), kRhtSmem) + (plain ? R"(
      // The plain amax the same way, in %smem[8 + warp].
      %q16, %qp16 = gpu.shuffle xor %pacc, %o16, %w32 : f32
      %b16m = arith.maxnumf %pacc, %q16 : f32
      %q8, %qp8 = gpu.shuffle xor %b16m, %o8, %w32 : f32
      %b8m = arith.maxnumf %b16m, %q8 : f32
      %q4, %qp4 = gpu.shuffle xor %b8m, %o4, %w32 : f32
      %b4m = arith.maxnumf %b8m, %q4 : f32
      %q2, %qp2 = gpu.shuffle xor %b4m, %o2, %w32 : f32
      %b2m = arith.maxnumf %b4m, %q2 : f32
      %q1, %qp1 = gpu.shuffle xor %b2m, %o1, %w32 : f32
      %b1m = arith.maxnumf %b2m, %q1 : f32
      scf.if %lane0 {
        %pw = arith.addi %warp, %c8 : index
        memref.store %b1m, %smem[%pw] : $SMEM
      }
      gpu.barrier
)" : "") + R"(
      scf.if %t0 {
        %bm = scf.for %j = %c0 to %c8 step %c1 iter_args(%mm = %zero) -> f32 {
          %e = memref.load %smem[%j] : $SMEM
          %n = arith.maxnumf %mm, %e : f32
          scf.yield %n : f32
        }
)" + (plain ? R"(        %pbm = scf.for %j = %c8 to %c16 step %c1 iter_args(%mm = %zero) -> f32 {
          %e = memref.load %smem[%j] : $SMEM
          %n = arith.maxnumf %mm, %e : f32
          scf.yield %n : f32
        }
)" : "") + fusedAmaxLines(spec.prefix, grid,
                                plain ? std::vector<std::string>{"%bm", "%pbm"}
                                      : std::vector<std::string>{"%bm"},
                                plain ? std::vector<std::vector<std::string>>{
                                            {"amax_c"}, plainBuffers}
                                      : std::vector<std::vector<std::string>>{
                                            {"amax_c"}},
                                // Rowwise: the plain amax; columnwise: the
                                // transformed copy's.
                                {plain ? 1 : 0, 0}, kRhtSmem, 16) +
                     "      }\n" + nvfp4ConstsLines(spec.prefix, kRhtSmem, 16) +
                     R"(      gpu.return
    }
)";
  return substitute(substitute(text, vars), vars);
}

} // namespace

int64_t mlir::teq::kernels::nvfp4RhtAmaxGrid(const NVFP4Spec &spec) {
  int64_t groups = rhtAmaxGroups(spec);
  return std::clamp<int64_t>((groups + kBlockSize - 1) / kBlockSize, 1, 1024);
}

std::string mlir::teq::kernels::nvfp4Kernels(const NVFP4Spec &spec) {
  PerTensorFP8Spec amaxSpec;
  amaxSpec.prefix = spec.prefix;
  amaxSpec.rows = spec.rows;
  amaxSpec.cols = spec.cols;
  amaxSpec.input = spec.input;
  amaxSpec.launchDependents = spec.dependentLaunch;
  // The plain amax feeds the rowwise copy, and the columnwise one unless
  // that is RHT-transformed (its amax is then the transformed tensor's).
  std::vector<std::string> plain;
  if (spec.rowwise)
    plain.push_back("amax_r");
  if (spec.columnwise && !spec.rht)
    plain.push_back("amax_c");
  std::string text;
  // With RHT the pass over x computing the transformed copy's amax also
  // computes the plain one (x is read once for both).
  bool rht = spec.columnwise && spec.rht;
  // Each amax pass finishes its own reduction (fusedAmaxLines): its last
  // block writes the amax buffers.
  if ((!plain.empty() && !rht) || rht)
    text += fusedAmaxGlobals(spec.prefix) + nvfp4ConstsGlobal(spec.prefix);
  if (!plain.empty() && !rht)
    text += perTensorGlobals(amaxSpec) + perTensorAmaxKernel(amaxSpec, plain);
  if (rht)
    text += rhtAmaxKernel(spec, plain);
  if (spec.rowwise || spec.columnwise)
    text += nvfp4TileKernel(spec);
  return text;
}

std::string mlir::teq::kernels::nvfp4GemmAlphaKernel(const std::string &name) {
  // te-semantics.md §6.2: alpha' = amax_A amax_B / (6 6 448 448), on the
  // device so the GEMM never waits for the host.
  return substitute(R"(
    gpu.func @$NAME(%amax_a: memref<1xf32>, %amax_b: memref<1xf32>,
                    %alpha: memref<1xf32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %a = memref.load %amax_a[%c0] : memref<1xf32>
        %b = memref.load %amax_b[%c0] : memref<1xf32>
        %ab = arith.mulf %a, %b : f32
        %den = arith.constant 7225344.0 : f32
        %r = arith.divf %ab, %den : f32
        memref.store %r, %alpha[%c0] : memref<1xf32>
      }
      gpu.return
    }
)",
                    {{"NAME", name}});
}

//===----------------------------------------------------------------------===//
// Bias gradient (teq.bias_grad): column sums of an M x N gradient
//===----------------------------------------------------------------------===//

int64_t mlir::teq::kernels::biasGradChunks(const BiasGradSpec &spec) {
  // Enough blocks to fill the GPU (~4 per SM on 132 SMs) without making the
  // ordered second pass long.
  int64_t columnBlocks = (spec.cols + kBlockSize - 1) / kBlockSize;
  int64_t chunks = (528 + columnBlocks - 1) / columnBlocks;
  return std::clamp<int64_t>(chunks, 1, std::min<int64_t>(spec.rows, 64));
}

std::string mlir::teq::kernels::biasGradKernels(const BiasGradSpec &spec) {
  // Pass 1: block (x, y) sums rows [y*R, min(M, (y+1)*R)) of 256 columns
  // into partial[y][col] (fp32). Pass 2 adds the partials in chunk order,
  // so the result does not depend on scheduling.
  int64_t chunks = biasGradChunks(spec);
  int64_t rowsPerChunk = (spec.rows + chunks - 1) / chunks;
  auto typeName = [](InputType t) {
    return t == InputType::F32 ? "f32" : t == InputType::F16 ? "f16" : "bf16";
  };
  std::string in = typeName(spec.input), out = typeName(spec.output);
  std::map<std::string, std::string> vars = {
      {"P", spec.prefix},
      {"MN", std::to_string(spec.rows * spec.cols)},
      {"M", std::to_string(spec.rows)},
      {"N", std::to_string(spec.cols)},
      {"R", std::to_string(rowsPerChunk)},
      {"C", std::to_string(chunks)},
      {"CN", std::to_string(chunks * spec.cols)},
      {"T", in},
      {"O", out},
      {"LOADF", spec.input == InputType::F32
                    ? "%vf = arith.addf %v, %zero : f32"
                    : "%vf = arith.extf %v : " + in + " to f32"},
      {"STOREO", spec.output == InputType::F32
                     ? "%o = arith.addf %total, %zero : f32"
                     : "%o = arith.truncf %total : f32 to " + out}};
  return substitute(R"(
    gpu.func @$P_bgrad_partial(%x: memref<$MNx$T>, %partial: memref<$CNxf32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cm = arith.constant $M : index
      %cn = arith.constant $N : index
      %cr = arith.constant $R : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c0x = arith.muli %bx, %c256 : index
      %col = arith.addi %c0x, %tid : index
      %inside = arith.cmpi ult, %col, %cn : index
      scf.if %inside {
        %r0 = arith.muli %by, %cr : index
        %r1u = arith.addi %r0, %cr : index
        %r1 = arith.minui %r1u, %cm : index
        %sum = scf.for %r = %r0 to %r1 step %c1 iter_args(%acc = %zero) -> (f32) {
          %rn = arith.muli %r, %cn : index
          %i = arith.addi %rn, %col : index
          %v = memref.load %x[%i] : memref<$MNx$T>
          $LOADF
          %next = arith.addf %acc, %vf : f32
          scf.yield %next : f32
        }
        %pn = arith.muli %by, %cn : index
        %pi = arith.addi %pn, %col : index
        memref.store %sum, %partial[%pi] : memref<$CNxf32>
      }
      gpu.return
    }

    gpu.func @$P_bgrad_final(%partial: memref<$CNxf32>, %db: memref<$Nx$O>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %cn = arith.constant $N : index
      %cc = arith.constant $C : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %c0x = arith.muli %bx, %c256 : index
      %col = arith.addi %c0x, %tid : index
      %inside = arith.cmpi ult, %col, %cn : index
      scf.if %inside {
        %total = scf.for %c = %c0 to %cc step %c1 iter_args(%acc = %zero) -> (f32) {
          %pn = arith.muli %c, %cn : index
          %pi = arith.addi %pn, %col : index
          %p = memref.load %partial[%pi] : memref<$CNxf32>
          %next = arith.addf %acc, %p : f32
          scf.yield %next : f32
        }
        $STOREO
        memref.store %o, %db[%col] : memref<$Nx$O>
      }
      gpu.return
    }
)",
                    vars);
}

std::string mlir::teq::kernels::sliceKernel(const SliceSpec &spec) {
  // Element i of the slice (row-major over `sizes`) is element
  //   sum_d (offsets[d] + idx_d * strides[d]) * fullStride[d]
  // of the full tensor; gather reads it, scatter writes it.
  int64_t elements = 1, full = 1;
  for (int64_t s : spec.sizes)
    elements *= s;
  for (int64_t s : spec.fullShape)
    full *= s;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "    gpu.func @" << spec.name << "(%full: memref<" << full << "x"
     << spec.elementType << ">, %part: memref<" << elements << "x"
     << spec.elementType << ">)\n"
     << "        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {\n"
     << "      %c256 = arith.constant 256 : index\n"
     << "      %cs = arith.constant " << elements << " : index\n"
     << "      %tid = gpu.thread_id x\n"
     << "      %bid = gpu.block_id x\n"
     << "      %gd = gpu.grid_dim x\n"
     << "      %b0 = arith.muli %bid, %c256 : index\n"
     << "      %start = arith.addi %b0, %tid : index\n"
     << "      %stride = arith.muli %gd, %c256 : index\n"
     << "      scf.for %i = %start to %cs step %stride {\n"
     << "        %rem" << spec.sizes.size() << " = arith.addi %i, %c0i : index\n";
  // Peel dimensions from the innermost: idx_d = rem % size_d.
  int64_t fullStride = 1;
  std::string sum = "%zero";
  size_t rank = spec.sizes.size();
  for (size_t k = rank; k-- > 0;) {
    std::string d = std::to_string(k);
    os << "        %sz" << d << " = arith.constant " << spec.sizes[k]
       << " : index\n"
       << "        %idx" << d << " = arith.remui %rem" << k + 1 << ", %sz" << d
       << " : index\n"
       << "        %rem" << d << " = arith.divui %rem" << k + 1 << ", %sz"
       << d << " : index\n"
       << "        %st" << d << " = arith.constant " << spec.strides[k]
       << " : index\n"
       << "        %off" << d << " = arith.constant " << spec.offsets[k]
       << " : index\n"
       << "        %fs" << d << " = arith.constant " << fullStride
       << " : index\n"
       << "        %p" << d << " = arith.muli %idx" << d << ", %st" << d
       << " : index\n"
       << "        %q" << d << " = arith.addi %p" << d << ", %off" << d
       << " : index\n"
       << "        %r" << d << " = arith.muli %q" << d << ", %fs" << d
       << " : index\n"
       << "        %sum" << d << " = arith.addi " << sum << ", %r" << d
       << " : index\n";
    sum = "%sum" + d;
    fullStride *= spec.fullShape[k];
  }
  std::string fullType =
      "memref<" + std::to_string(full) + "x" + spec.elementType + ">";
  std::string partType =
      "memref<" + std::to_string(elements) + "x" + spec.elementType + ">";
  if (spec.scatter)
    os << "        %v = memref.load %part[%i] : " << partType << "\n"
       << "        memref.store %v, %full[" << sum << "] : " << fullType << "\n";
  else
    os << "        %v = memref.load %full[" << sum << "] : " << fullType << "\n"
       << "        memref.store %v, %part[%i] : " << partType << "\n";
  os << "      }\n      gpu.return\n    }\n";
  // %zero and %c0i are defined at the top (the loop body refers to them).
  std::string header = "      %zero = arith.constant 0 : index\n"
                       "      %c0i = arith.constant 0 : index\n";
  size_t at = text.find("      %c256");
  text.insert(at, header);
  return text;
}
