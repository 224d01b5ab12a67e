//===- QuantizeKernels.cpp - GPU kernels of teq.quantize ------------------===//
//
// Kernels are emitted as MLIR text specialised to one quantization, then
// parsed into the module's gpu.module. `$NAME` tokens are substituted; loops
// that must be unrolled (byte packing) are generated here.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernels.h"

#include "llvm/ADT/StringRef.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace mlir::teq::kernels;

namespace {

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

} // namespace

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
